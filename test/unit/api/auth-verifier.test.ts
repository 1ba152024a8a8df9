/**
 * The token verifier: each key kind, the claims, the rights, and every way a
 * token can be wrong. The RSA certificate fixture is a self-signed test key
 * (auth-fixtures/), EC keys are generated per run.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { jwtVerify, SignJWT, UnsecuredJWT } from 'jose';
import {
  AuthFailure,
  createTokenVerifier,
  mayRead,
  participantAudience,
  readPublicKey,
  type AuthSettings,
} from '../../../src/api/auth/verifier';

// jose's own check, counted: the verifier keeps verified tokens and must not check a kept one again.
jest.mock('jose', () => {
  const actual = jest.requireActual<typeof import('jose')>('jose');
  return { ...actual, jwtVerify: jest.fn(actual.jwtVerify) };
});

const fixtures = path.join(__dirname, 'auth-fixtures');
const RSA_CERT = fs.readFileSync(path.join(fixtures, 'rsa-test-cert.pem'), 'utf8');
const RSA_KEY = crypto.createPrivateKey(fs.readFileSync(path.join(fixtures, 'rsa-test-key.pem'), 'utf8'));
const SECRET = 'unit-test-secret-0123456789abcdef';
const AUD = 'https://participant.test';

const PARTICIPANT = 'participant1::1220aa';
const base: AuthSettings = {
  audience: AUD,
  participantId: PARTICIPANT,
  adminUsers: ['admin'],
  userRights: { alice: ['Alice::1220aa'], idle: [] },
};

function sign(alg: string, key: crypto.KeyObject | Uint8Array, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}) {
  return new SignJWT({ aud: AUD, sub: 'alice', exp: Math.floor(Date.now() / 1000) + 600, ...claims })
    .setProtectedHeader({ alg, ...header })
    .sign(key);
}
const hs = (claims?: Record<string, unknown>, secret = SECRET) => sign('HS256', new TextEncoder().encode(secret), claims);

async function failure(promise: Promise<unknown>): Promise<{ status: number; unknownUser: boolean }> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof AuthFailure) return { status: err.status, unknownUser: err.unknownUser };
    throw err;
  }
  return { status: 200, unknownUser: false }; // accepted: the caller's expectation shows it
}

describe('token verifier', () => {
  const hsVerifier = createTokenVerifier({ ...base, hs256Secret: SECRET });

  it('accepts an HS256 user token and resolves its rights', async () => {
    await expect(hsVerifier.verify(await hs())).resolves.toEqual({
      user: 'alice',
      known: true,
      readAsAnyParty: false,
      readAs: new Set(['Alice::1220aa']),
    });
    await expect(hsVerifier.verify(await hs({ sub: 'admin' }))).resolves.toEqual({
      user: 'admin',
      known: true,
      readAsAnyParty: true,
      readAs: new Set(),
    });
    await expect(hsVerifier.verify(await hs({ sub: 'idle', aud: ['other', AUD] }))).resolves.toEqual({
      user: 'idle',
      known: true,
      readAsAnyParty: false,
      readAs: new Set(),
    });
  });

  it('refuses forged, expired, wrongly addressed and malformed tokens with 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    const bad = [
      await hs({}, 'another-secret-0123456789abcdef'),
      await hs({ exp: now - 60 }),
      await hs({ nbf: now + 60 }),
      await hs({ aud: 'https://other.test' }),
      await hs({ aud: undefined }),
      await hs({ sub: undefined }),
      await hs({ sub: '' }),
      new UnsecuredJWT({ sub: 'admin', aud: AUD }).encode(),
      'not.a.jwt',
      '',
    ];
    for (const [i, token] of bad.entries())
      expect([i, await failure(hsVerifier.verify(token))]).toEqual([i, { status: 401, unknownUser: false }]);
  });

  it('refuses tokens valid too far ahead (exp past the lifetime bound) or issued in the future', async () => {
    const now = Math.floor(Date.now() / 1000);
    const bounded = createTokenVerifier({ ...base, hs256Secret: SECRET, maxTokenLifetimeSeconds: 3600 });
    for (const [what, claims] of [
      ['exp = 1e20', { exp: 1e20 }],
      ['exp a day away', { exp: now + 86_400 }],
      ['iat in an hour', { iat: now + 3600 }],
      ['nbf in a minute', { nbf: now + 60 }],
    ] as const) {
      expect([what, await failure(bounded.verify(await hs(claims)))]).toEqual([what, { status: 401, unknownUser: false }]);
    }
    // Within the bound, and with a few seconds of skew on iat, they pass.
    for (const claims of [{ exp: now + 3600 }, { iat: now + 2 }, { iat: now - 600 }]) {
      await expect(bounded.verify(await hs(claims))).resolves.toMatchObject({ user: 'alice' });
    }
  });

  it('allows a few seconds of clock skew on exp', async () => {
    await expect(hsVerifier.verify(await hs({ exp: Math.floor(Date.now() / 1000) - 2 }))).resolves.toMatchObject({ user: 'alice' });
  });

  it('tells an unknown user apart, with no rights', async () => {
    await expect(hsVerifier.verify(await hs({ sub: 'mallory' }))).resolves.toEqual({
      user: 'mallory',
      known: false,
      readAsAnyParty: false,
      readAs: new Set(),
    });
  });

  it('verifies RS256 with a certificate, and refuses HS256 tokens keyed with that certificate (algorithm confusion)', async () => {
    const verifier = createTokenVerifier({ ...base, publicKeyPem: RSA_CERT });
    await expect(verifier.verify(await sign('RS256', RSA_KEY))).resolves.toMatchObject({ user: 'alice' });
    expect(await failure(verifier.verify(await hs({}, RSA_CERT)))).toEqual({ status: 401, unknownUser: false });
    expect(await failure(verifier.verify(await sign('PS256', RSA_KEY)))).toEqual({ status: 401, unknownUser: false });
  });

  it.each([
    ['ES256', 'prime256v1'],
    ['ES512', 'secp521r1'],
  ])('verifies %s with an SPKI public key of curve %s', async (alg, namedCurve) => {
    const { publicKey, privateKey } = crypto.generateKeyPairSync('ec', { namedCurve });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(readPublicKey(pem).alg).toBe(alg);
    const verifier = createTokenVerifier({ ...base, publicKeyPem: pem });
    await expect(verifier.verify(await sign(alg, privateKey))).resolves.toMatchObject({ user: 'alice' });
    const other = crypto.generateKeyPairSync('ec', { namedCurve }).privateKey;
    expect(await failure(verifier.verify(await sign(alg, other)))).toEqual({ status: 401, unknownUser: false });
  });

  it('rejects keys it cannot use', () => {
    const ed = crypto.generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(() => readPublicKey(ed)).toThrow('ed25519 keys are not supported');
    const p384 = crypto.generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(() => readPublicKey(p384)).toThrow('EC curve secp384r1 is not supported');
    expect(() => createTokenVerifier(base)).toThrow();
  });

  it('picks the key by the token algorithm when several are configured', async () => {
    const verifier = createTokenVerifier({ ...base, hs256Secret: SECRET, publicKeyPem: RSA_CERT });
    await expect(verifier.verify(await hs())).resolves.toMatchObject({ user: 'alice' });
    await expect(verifier.verify(await sign('RS256', RSA_KEY))).resolves.toMatchObject({ user: 'alice' });
  });

  it('requires exp: a token that never expires is refused', async () => {
    expect(await failure(hsVerifier.verify(await hs({ exp: undefined })))).toEqual({ status: 401, unknownUser: false });
    expect(await failure(hsVerifier.verify(await hs({ sub: 'admin', exp: undefined })))).toEqual({ status: 401, unknownUser: false });
  });

  it('does not take members of Object.prototype for configured users', async () => {
    for (const sub of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      await expect(hsVerifier.verify(await hs({ sub }))).resolves.toEqual({
        user: sub,
        known: false,
        readAsAnyParty: false,
        readAs: new Set(),
      });
    }
  });

  describe('without a configured audience (Canton: no target audience)', () => {
    const verifier = createTokenVerifier({ ...base, audience: undefined, hs256Secret: SECRET });
    const mine = participantAudience(PARTICIPANT);

    it('accepts a participant-audience token for this participant', async () => {
      expect(mine).toBe('https://daml.com/jwt/aud/participant/participant1::1220aa');
      for (const aud of [mine, [mine]])
        await expect(verifier.verify(await hs({ aud }))).resolves.toMatchObject({ user: 'alice', known: true });
    });

    it('accepts a scope token (scope or scp holding daml_ledger_api), without aud or with this participant as aud', async () => {
      for (const claims of [
        { aud: undefined, scope: 'daml_ledger_api' },
        { aud: undefined, scope: 'openid daml_ledger_api offline_access' },
        { aud: undefined, scp: ['openid', 'daml_ledger_api'] },
        { aud: PARTICIPANT, scope: 'daml_ledger_api' },
      ]) {
        await expect(verifier.verify(await hs(claims))).resolves.toMatchObject({ user: 'alice', known: true });
      }
    });

    it('refuses with 401 a token that is neither, or whose aud is not one value', async () => {
      for (const claims of [
        { aud: undefined },
        { aud: AUD },
        { aud: undefined, scope: 'openid' },
        { aud: undefined, scope: 'daml_ledger_api_admin' },
        { aud: [mine, AUD] },
        { aud: [mine, AUD], scope: 'daml_ledger_api' },
        { aud: PARTICIPANT },
        { aud: 'https://daml.com/jwt/aud/participant/' },
      ]) {
        expect([claims, await failure(verifier.verify(await hs(claims)))]).toEqual([claims, { status: 401, unknownUser: false }]);
      }
    });

    it('refuses with 403 a token bound to another participant', async () => {
      for (const claims of [
        { aud: participantAudience('participant2::1220bb') },
        { aud: 'participant2::1220bb', scope: 'daml_ledger_api' },
      ]) {
        expect([claims, await failure(verifier.verify(await hs(claims)))]).toEqual([claims, { status: 403, unknownUser: false }]);
      }
    });
  });

  it('with a configured audience, a participant audience or scope alone is not enough', async () => {
    expect(await failure(hsVerifier.verify(await hs({ aud: participantAudience(PARTICIPANT) })))).toEqual({
      status: 401,
      unknownUser: false,
    });
    expect(await failure(hsVerifier.verify(await hs({ aud: undefined, scope: 'daml_ledger_api' })))).toEqual({
      status: 401,
      unknownUser: false,
    });
  });
});

describe('verified tokens kept', () => {
  const signatureChecks = jwtVerify as jest.MockedFunction<typeof jwtVerify>;
  /** Moves the clock (Date, which jose reads too) and nothing else. */
  const clockAt = (now: number) =>
    jest.useFakeTimers({
      now,
      doNotFake: [
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'setImmediate',
        'clearImmediate',
        'setInterval',
        'clearInterval',
        'setTimeout',
        'clearTimeout',
      ],
    });
  afterEach(() => jest.useRealTimers());

  it('takes a verified token on trust for a minute, then checks its signature again', async () => {
    const verifier = createTokenVerifier({ ...base, hs256Secret: SECRET });
    const token = await hs();
    const start = Date.now();
    signatureChecks.mockClear();
    await expect(verifier.verify(token)).resolves.toMatchObject({ user: 'alice' });
    await expect(verifier.verify(token)).resolves.toMatchObject({ user: 'alice' });
    expect(signatureChecks).toHaveBeenCalledTimes(1);
    clockAt(start + 61_000);
    await expect(verifier.verify(token)).resolves.toMatchObject({ user: 'alice' });
    expect(signatureChecks).toHaveBeenCalledTimes(2);
  });

  it('never past exp (with the leeway): a kept token that expired is refused', async () => {
    const verifier = createTokenVerifier({ ...base, hs256Secret: SECRET });
    const start = Date.now();
    const token = await hs({ exp: Math.floor(start / 1000) + 20 });
    await expect(verifier.verify(token)).resolves.toMatchObject({ user: 'alice' });
    clockAt(start + 26_000);
    expect(await failure(verifier.verify(token))).toEqual({ status: 401, unknownUser: false });
  });

  it('keeps no refusal: a refused token is checked, and refused, every time', async () => {
    const verifier = createTokenVerifier({ ...base, hs256Secret: SECRET });
    const forged = await hs({}, 'another-secret-0123456789abcdef');
    signatureChecks.mockClear();
    expect(await failure(verifier.verify(forged))).toEqual({ status: 401, unknownUser: false });
    expect(await failure(verifier.verify(forged))).toEqual({ status: 401, unknownUser: false });
    expect(signatureChecks).toHaveBeenCalledTimes(2);
  });
});

describe('read rights', () => {
  const alice = { user: 'alice', known: true, readAsAnyParty: false, readAs: new Set(['A', 'B']) };
  const admin = { user: 'admin', known: true, readAsAnyParty: true, readAs: new Set<string>() };

  it('need ReadAs for every listed party and ReadAsAnyParty for any-party filters', () => {
    expect(mayRead(alice, { parties: ['A', 'B'], anyParty: false })).toBe(true);
    expect(mayRead(alice, { parties: ['A', 'C'], anyParty: false })).toBe(false);
    expect(mayRead(alice, { parties: [], anyParty: true })).toBe(false);
    expect(mayRead(admin, { parties: ['Z'], anyParty: true })).toBe(true);
  });
});
