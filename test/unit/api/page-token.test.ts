import crypto from 'node:crypto';
import { z } from 'zod';
import { PageTokenError, pageTokensWithKey } from '../../../src/api/page-token';

const Position = z.object({ c: z.string(), i: z.string() });
const key = crypto.randomBytes(32);
const tokens = pageTokensWithKey(key);
const scope = { operation: 'holdings-state', request: { m: 1, o: ['alice::1220'] } };

async function rejection(p: Promise<unknown>): Promise<PageTokenError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(PageTokenError);
    expect((err as PageTokenError).status).toBe(400);
    return err as PageTokenError;
  }
  throw new Error('expected a rejection');
}

describe('page tokens', () => {
  it('round-trips a position', async () => {
    const token = await tokens.encode(scope, { c: '1735689600000000', i: '00ab' });
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    await expect(tokens.verify(scope, token, Position)).resolves.toEqual({ c: '1735689600000000', i: '00ab' });
    // Deterministic: the same position gives the same token.
    expect(await tokens.encode(scope, { c: '1735689600000000', i: '00ab' })).toBe(token);
  });

  it('refuses an edited payload, an edited MAC and garbage', async () => {
    const token = await tokens.encode(scope, { c: '1', i: 'a' });
    const [payload, mac] = token.split('.') as [string, string];
    const edited = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), p: { c: '2', i: 'a' } }),
    ).toString('base64url');
    const altered = /altered or was not issued by this service/;
    expect((await rejection(tokens.verify(scope, `${edited}.${mac}`, Position))).message).toMatch(altered);
    const flipped = mac.slice(0, 10) + (mac[10] === 'A' ? 'B' : 'A') + mac.slice(11);
    expect((await rejection(tokens.verify(scope, `${payload}.${flipped}`, Position))).message).toMatch(altered);
    for (const junk of ['', 'x', '123', `${payload}`, `${payload}.${mac}.x`, '💥.💥']) {
      expect((await rejection(tokens.verify(scope, junk, Position))).message).toMatch(altered);
    }
  });

  it('refuses a token signed with another key (another deployment)', async () => {
    const foreign = await pageTokensWithKey(crypto.randomBytes(32)).encode(scope, { c: '1', i: 'a' });
    expect((await rejection(tokens.verify(scope, foreign, Position))).message).toMatch(/altered or was not issued by this service/);
  });

  it('refuses a token of another operation or another request', async () => {
    const token = await tokens.encode(scope, { c: '1', i: 'a' });
    const other = /issued for a different request/;
    expect((await rejection(tokens.verify({ ...scope, operation: 'acs-state' }, token, Position))).message).toMatch(other);
    expect((await rejection(tokens.verify({ ...scope, request: { m: 2, o: ['alice::1220'] } }, token, Position))).message).toMatch(other);
  });

  it('refuses a genuine token whose position has another shape', async () => {
    const token = await tokens.encode(scope, { unexpected: true });
    expect((await rejection(tokens.verify(scope, token, Position))).message).toMatch(/incompatible version/);
  });

  it('names the request field', async () => {
    expect((await rejection(tokens.verify(scope, 'nope', Position, 'page_token'))).message).toMatch(/in 'page_token'/);
  });
});
