/** The bearer header of an admin user's HS256 token, as the benches' servers are configured to accept. */
import { SignJWT } from 'jose';
import { participantAudience } from '../../src/api/auth/verifier';
import { knobs } from '../../src/internal/config';

export async function adminAuthorization(user: string, secret: string): Promise<{ authorization: string }> {
  const token = await new SignJWT({ aud: participantAudience(knobs.LEDGER_PARTICIPANT_ID.default) })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(user)
    .setIssuedAt()
    .setExpirationTime('4h')
    .sign(new TextEncoder().encode(secret));
  return { authorization: `Bearer ${token}` };
}
