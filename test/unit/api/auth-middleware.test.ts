/** authenticate(): the reusable middleware, with the rejection left to the router (here a Scan-style body). */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { SignJWT } from 'jose';
import { authenticate, authModeFromConfig, principalOf, type AuthenticateOptions, type AuthMode } from '../../../src/api/auth/middleware';
import { participantAudience } from '../../../src/api/auth/verifier';
import { loadConfig } from '../../../src/internal/config';

const SECRET = 'middleware-test-secret-0123456789';
const config = loadConfig({ LEDGER_AUTH_HS256_SECRET: SECRET, LEDGER_ADMIN_USERS: 'admin', LEDGER_USER_RIGHTS: '{"alice":["A"]}' });
// No LEDGER_AUTH_AUDIENCE: tokens carry this participant's audience (Canton's rule, verifier.ts).
const token = (sub: string) =>
  new SignJWT({ sub, aud: participantAudience(config.ledger.participantId) })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(SECRET));

async function call(mode: AuthMode, options: Partial<AuthenticateOptions>, authorization?: string) {
  const app = express();
  app.use(
    authenticate(mode, {
      reject: (res, f) => res.status(f.status).json({ error: f.status === 401 ? 'Unauthorized' : 'Forbidden' }),
      ...options,
    }),
  );
  app.get('/', (_req, res) => {
    const p = principalOf(res);
    res.json({ user: p.user, known: p.known, any: p.readAsAnyParty, readAs: [...p.readAs] });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
      headers: authorization ? { authorization } : {},
    });
    return { status: res.status, body: await res.json() };
  } finally {
    server.close();
  }
}

describe('authenticate', () => {
  const mode = authModeFromConfig(config);

  it('builds one mode per configuration', () => {
    expect(authModeFromConfig(config)).toBe(mode);
    expect(mode.kind).toBe('verify');
    expect(authModeFromConfig(loadConfig({})).kind).toBe('unconfigured');
    expect(authModeFromConfig(loadConfig({ LEDGER_AUTH_DISABLED: 'true' })).kind).toBe('disabled');
  });

  it('passes the principal of a valid token on', async () => {
    expect(await call(mode, {}, `Bearer ${await token('alice')}`)).toEqual({
      status: 200,
      body: { user: 'alice', known: true, any: false, readAs: ['A'] },
    });
    expect(await call(mode, {}, `bearer ${await token('admin')}`)).toEqual({
      status: 200,
      body: { user: 'admin', known: true, any: true, readAs: [] },
    });
  });

  it('rejects through the router’s renderer: 401 without a valid token, 403 for an unknown user', async () => {
    expect(await call(mode, {})).toEqual({ status: 401, body: { error: 'Unauthorized' } });
    expect(await call(mode, {}, 'Bearer')).toEqual({ status: 401, body: { error: 'Unauthorized' } });
    expect(await call(mode, {}, `Bearer ${await token('stranger')}`)).toEqual({ status: 403, body: { error: 'Forbidden' } });
  });

  it('lets unknown users through when asked (e.g. a proxy that needs a token but no party rights)', async () => {
    expect(await call(mode, { allowUnknownUsers: true }, `Bearer ${await token('stranger')}`)).toEqual({
      status: 200,
      body: { user: 'stranger', known: false, any: false, readAs: [] },
    });
  });

  it('disabled lets everything through; unconfigured refuses everything', async () => {
    expect(await call({ kind: 'disabled' }, {})).toEqual({ status: 200, body: { user: '', known: true, any: true, readAs: [] } });
    expect(await call({ kind: 'unconfigured' }, {}, `Bearer ${await token('admin')}`)).toEqual({
      status: 401,
      body: { error: 'Unauthorized' },
    });
  });
});
