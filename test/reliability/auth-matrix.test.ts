/**
 * Authentication on every route that needs a token: each operation of the
 * OpenAPI document under the ledger API (/v2) and the validator scan-proxy
 * (/api/validator), against one server that verifies HS256 tokens, RS256
 * tokens of a PEM key and tokens of a JWKS at once, with every kind of bad
 * token: none, garbage, a forged signature, alg none, HS/RS algorithm
 * confusion (an HS256 token keyed with the public key), expired, not yet valid
 * (nbf and iat in the future), too long-lived, the wrong audience, an unknown
 * kid. Then a valid token without rights, and a reader's view of a
 * transaction that other parties see more of.
 *
 * Figures: requests let through that should not be (0); events of parties the
 * caller may not read that were returned (0).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { exportJWK, SignJWT, UnsecuredJWT } from 'jose';
import type { TransactionUpdate } from '../../src/domain/items';
import { ingestItems } from '../support/ingest';
import { useTestDatabase } from '../support/database/database';
import { request, startTestApi, type TestApi } from '../support/http/http';
import { simulatedItems } from '../support/items/simulated-network';
import { createsOf, witnessesOf } from '../integration/ledger/expected';
import { AUDIENCE, hs256Token, SECRET } from '../integration/ledger/support';
import { recordFigure, recordZero } from './figures';

// Full-scale runs take minutes.
jest.setTimeout(600_000);

const PART = 'auth';
const fixtures = path.join(__dirname, '..', 'unit', 'api', 'auth-fixtures');
const items = simulatedItems({ seed: 'auth-matrix', updates: 400 });
const creates = createsOf(items);
const transactions = items.flatMap((i) => (i.update && 'events_by_id' in i.update ? [i.update] : []));

/** A transaction with a party that sees only part of it, and another party that sees more. */
const {
  tx: TX,
  reader: READER,
  other: OTHER,
} = ((): { tx: TransactionUpdate; reader: string; other: string } => {
  for (const tx of transactions) {
    const witnesses = witnessesOf(tx, creates);
    const count = (p: string) => [...witnesses.values()].filter((ws) => ws.includes(p)).length;
    const parties = [...new Set([...witnesses.values()].flat())].filter((p) => !p.startsWith('DSO::'));
    for (const reader of parties) {
      const other = parties.find((p) => count(p) > count(reader));
      if (other && count(reader) > 0) return { tx, reader, other };
    }
  }
  throw new Error('no transaction where one party sees less than another');
})();

describe('the authentication matrix', () => {
  const t = useTestDatabase();
  let api: TestApi;
  let jwksServer: http.Server;
  const jwksKey = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pemPrivate = crypto.createPrivateKey(fs.readFileSync(path.join(fixtures, 'rsa-test-key.pem'), 'utf8'));
  const pemCertificate = fs.readFileSync(path.join(fixtures, 'rsa-test-cert.pem'), 'utf8');
  const pemPublic = crypto.createPublicKey(pemCertificate).export({ type: 'spki', format: 'pem' }).toString();

  beforeAll(async () => {
    await ingestItems(
      t.db,
      'sim',
      items.map((item, i) => ({ item, position: String(i + 1), origin: `item ${i + 1}` })),
    );
    const keys = [{ ...(await exportJWK(jwksKey.publicKey)), kid: 'known', alg: 'RS256', use: 'sig' }];
    jwksServer = http.createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys }));
    });
    await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
    api = await startTestApi(t, {
      env: {
        LEDGER_AUTH_AUDIENCE: AUDIENCE,
        LEDGER_AUTH_HS256_SECRET: SECRET,
        LEDGER_AUTH_PUBLIC_KEY_FILE: path.join(fixtures, 'rsa-test-cert.pem'),
        LEDGER_AUTH_JWKS_URL: `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`,
        LEDGER_ADMIN_USERS: 'admin',
        LEDGER_USER_RIGHTS: JSON.stringify({ reader: [READER], idle: [] }),
      },
    });
  });
  afterAll(async () => {
    await api?.close();
    await new Promise((resolve) => jwksServer?.close(resolve));
  });

  const now = () => Math.floor(Date.now() / 1000);
  const hmac = (key: string | Uint8Array, claims: Record<string, unknown>, header: Record<string, unknown> = {}) =>
    new SignJWT({ aud: AUDIENCE, sub: 'admin', ...claims })
      .setProtectedHeader({ alg: 'HS256', ...header })
      .sign(typeof key === 'string' ? new TextEncoder().encode(key) : key);
  const rs256 = (key: crypto.KeyObject, kid: string | undefined, claims: Record<string, unknown> = {}) =>
    new SignJWT({ aud: AUDIENCE, sub: 'admin', exp: now() + 300, ...claims })
      .setProtectedHeader({ alg: 'RS256', ...(kid ? { kid } : {}) })
      .sign(key);

  /** Tokens that must not get through, by what is wrong with them: the value of the Authorization header. */
  const badTokens = async (): Promise<[string, string | undefined][]> => {
    const valid = await hs256Token('admin');
    const [head, body] = valid.split('.');
    return [
      ['no token', undefined],
      ['garbage', 'Bearer abc.def.ghi'],
      ['not a bearer token', `Basic ${Buffer.from('admin:admin').toString('base64')}`],
      ['a forged signature', `Bearer ${head}.${body}.${Buffer.from('forged').toString('base64url')}`],
      ['another secret', `Bearer ${await hs256Token('admin', {}, { secret: 'some-other-secret-of-enough-length-42' })}`],
      ['alg none', `Bearer ${new UnsecuredJWT({ sub: 'admin', aud: AUDIENCE }).setExpirationTime('5m').encode()}`],
      ['HS256 keyed with the RSA public key', `Bearer ${await hmac(pemPublic, { exp: now() + 300 })}`],
      ['HS256 keyed with the certificate', `Bearer ${await hmac(pemCertificate, { exp: now() + 300 })}`],
      [
        'RS256 by a key nobody trusts',
        `Bearer ${await rs256(crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey, undefined)}`,
      ],
      ['an unknown kid', `Bearer ${await rs256(jwksKey.privateKey, 'unknown')}`],
      ['expired', `Bearer ${await hs256Token('admin', {}, { expiresIn: now() - 60 })}`],
      ['no expiry', `Bearer ${await hs256Token('admin', {}, { expiresIn: null })}`],
      ['expiring in 3,000 years', `Bearer ${await hmac(SECRET, { exp: now() + 1e11, iat: now() })}`],
      ['not valid before an hour from now', `Bearer ${await hmac(SECRET, { exp: now() + 7200, nbf: now() + 3600 })}`],
      ['issued an hour from now', `Bearer ${await hmac(SECRET, { exp: now() + 7200, iat: now() + 3600 })}`],
      ['the wrong audience', `Bearer ${await hs256Token('admin', { aud: 'https://elsewhere.example' })}`],
      ['no subject', `Bearer ${await hs256Token(undefined)}`],
      ['RS256 of the trusted PEM key, tampered', `Bearer ${(await rs256(pemPrivate, undefined)).slice(0, -4)}AAAA`],
    ];
  };

  /** The operations that need a token, from the served OpenAPI document, with a request each. */
  const securedRoutes = async (): Promise<{ method: string; path: string; body?: unknown }[]> => {
    const doc = (await request(api.url, 'GET', '/docs/openapi.json')).json as { paths: Record<string, Record<string, unknown>> };
    const routes: { method: string; path: string; body?: unknown }[] = [];
    for (const [p, methods] of Object.entries(doc.paths)) {
      // Health probes and the version need no token (as in the validator app and Canton).
      if (!(p.startsWith('/api/validator/') || p.startsWith('/v2/')) || p === '/v2/version' || /\/(livez|readyz)$/.test(p)) continue;
      const concrete = p.replace(/\{[^}]+\}/g, encodeURIComponent(READER));
      for (const method of Object.keys(methods)) {
        if (method === 'get') routes.push({ method: 'GET', path: concrete });
        if (method === 'post')
          routes.push({
            method: 'POST',
            path: concrete,
            body: p.includes('transaction-by-id') ? readerBody(READER) : p.includes('update-by-id') ? readerUpdateBody(READER) : {},
          });
      }
    }
    return routes;
  };

  const readerBody = (party: string) => ({
    updateId: TX.update_id,
    transactionFormat: {
      eventFormat: { filtersByParty: { [party]: { cumulative: [] } } },
      transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
    },
  });

  /** The same request as update-by-id takes it (Canton 3.4's form). */
  const readerUpdateBody = (party: string) => ({
    updateId: TX.update_id,
    updateFormat: { includeTransactions: readerBody(party).transactionFormat },
  });

  it('lets no bad token through on any route, and shows a reader no event of another party', async () => {
    const routes = await securedRoutes();
    expect(routes.filter((r) => r.path.startsWith('/v2/')).length).toBeGreaterThanOrEqual(2);
    expect(routes.filter((r) => r.path.startsWith('/api/validator/')).length).toBeGreaterThanOrEqual(15);

    const letThrough: string[] = [];
    let attempts = 0;
    for (const [what, authorization] of await badTokens()) {
      for (const r of routes) {
        attempts += 1;
        const res = await request(api.url, r.method, r.path, r.body, authorization === undefined ? {} : { authorization });
        if (res.status !== 401) letThrough.push(`${what}: ${r.method} ${r.path} → ${res.status}`);
      }
    }

    // A valid token of a user without rights: the proxy answers it (any validator user may, as in the
    // validator app); the ledger API refuses it everything but the participant id.
    const idle = await hs256Token('idle');
    for (const r of routes.filter((x) => x.path.startsWith('/v2/') && !x.path.includes('participant-id'))) {
      attempts += 1;
      const res = await request(api.url, r.method, r.path, r.body, { authorization: `Bearer ${idle}` });
      if (res.status !== 403) letThrough.push(`a user without rights: ${r.method} ${r.path} → ${res.status}`);
    }
    // A reader asking for a party it may not read.
    const reader = await hs256Token('reader');
    attempts += 1;
    const foreign = await request(api.url, 'POST', '/v2/updates/transaction-by-id', readerBody(OTHER), {
      authorization: `Bearer ${reader}`,
    });
    if (foreign.status !== 403) letThrough.push(`a reader asking as another party → ${foreign.status}`);

    // What the reader is shown of the transaction: events of its own party only.
    const own = await request(api.url, 'POST', '/v2/updates/transaction-by-id', readerBody(READER), { authorization: `Bearer ${reader}` });
    expect(own.status).toBe(200);
    const events = (own.json as { transaction: { events: Record<string, { witnessParties: string[] }>[] } }).transaction.events;
    expect(events.length).toBeGreaterThan(0);
    const foreignEvents = events.filter((e) => Object.values(e)[0]!.witnessParties.some((p) => p !== READER)).length;

    recordFigure({ part: PART, figure: 'requests with a bad token or without rights', value: attempts, target: '', ok: true });
    recordZero(PART, 'requests let through that should not be', letThrough.length);
    recordZero(PART, 'events of parties the caller may not read, returned', foreignEvents);
    expect(letThrough).toEqual([]);
    expect(foreignEvents).toBe(0);
  });
});
