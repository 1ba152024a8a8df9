/**
 * The start-up rule of the ledger interface: it is served only with a token
 * verifier, or with LEDGER_AUTH_DISABLED=true said explicitly. The demo (the
 * embedded database, which is what `npm start` runs) needs no setup: it signs
 * HS256 tokens with a random secret kept in the database, and hands out a
 * development token of an admin user.
 */
import crypto from 'node:crypto';
import { SignJWT } from 'jose';
import { ConfigError, type Config } from '../../internal/config';
import { getOrCreateApiSecret } from '../../store/api-secret-repository';
import type { Db } from '../../store/pool';
import { authSettingsFromConfig, participantAudience } from './verifier';

/** The admin user of the demo's development token. */
export const DEMO_ADMIN_USER = 'scan-indexer-demo-admin';
const DEMO_SECRET_NAME = 'ledger_demo_hs256';
const DEMO_TOKEN_LIFETIME = '24h';

export interface LedgerAuthStart {
  /** The configuration to serve with (the demo's adds its secret and admin user). */
  config: Config;
  /** A development token for the banner, in the demo only. */
  devToken?: string;
}

export async function prepareLedgerAuth(config: Config, database: { db: Db; embedded: boolean }): Promise<LedgerAuthStart> {
  if (authSettingsFromConfig(config.ledger) || config.ledger.authDisabled) return { config };
  if (!database.embedded) {
    throw new ConfigError(
      'Invalid configuration: the ledger API (/v2) needs authentication: set LEDGER_AUTH_HS256_SECRET, ' +
        'LEDGER_AUTH_PUBLIC_KEY_FILE or LEDGER_AUTH_JWKS_URL, or LEDGER_AUTH_DISABLED=true to serve it without (never in production).',
    );
  }
  const secret = (await getOrCreateApiSecret(database.db, DEMO_SECRET_NAME, () => crypto.randomBytes(32))).toString('hex');
  const ledger = Object.freeze({
    ...config.ledger,
    hs256Secret: secret,
    adminUsers: Object.freeze([...config.ledger.adminUsers, DEMO_ADMIN_USER]),
  });
  let jwt = new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(DEMO_ADMIN_USER)
    .setIssuedAt()
    .setExpirationTime(DEMO_TOKEN_LIFETIME);
  // Without a configured audience, Canton's rule binds the token to this participant (verifier.ts).
  jwt = jwt.setAudience(config.ledger.audience ?? participantAudience(config.ledger.participantId));
  const devToken = await jwt.sign(new TextEncoder().encode(secret));
  return { config: Object.freeze({ ...config, ledger }), devToken };
}
