/**
 * The authentication matrix of the ledger interface through the real server:
 * every kind of bad token is a redacted 401, a valid user without the rights
 * is a redacted 403, and no event of a party the caller may not read is ever
 * returned. One server verifies HS256, one fetches its keys from a JWKS
 * served by a local HTTP server.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { exportJWK, SignJWT, UnsecuredJWT } from 'jose';
import type { TransactionUpdate } from '../../../src/domain/items';
import { ingestItems } from '../../support/ingest';
import { useTestDatabase } from '../../support/database/database';
import { startTestApi, type TestApi } from '../../support/http/http';
import { simulatedItems } from '../../support/items/simulated-network';
import { createsOf, expectedTransaction, wildcard, witnessesOf } from './expected';
import { AUDIENCE, expectedErrors, hs256Token, ledgerRequest, PARTICIPANT_ID, SECRET } from './support';

const PATH = '/v2/updates/transaction-by-id';
const items = simulatedItems({ seed: 7, updates: 400 });
const creates = createsOf(items);
const transactions = items.flatMap((i) => (i.update && 'events_by_id' in i.update ? [i.update] : []));
const nodesOf = (body: unknown) =>
  (body as { events: Record<string, { nodeId: number }>[] }).events.map((e) => Object.values(e)[0]!.nodeId);
/**
 * A transaction where ALICE witnesses fewer events than BOB, and sees some in
 * the ACS_DELTA shape too: a reader as ALICE must not see BOB's part in either.
 */
const {
  tx: TX,
  alice: ALICE,
  bob: BOB,
  aliceNodes: ALICE_NODES,
  aliceAcsNodes: ALICE_ACS_NODES,
} = ((): { tx: TransactionUpdate; alice: string; bob: string; aliceNodes: number[]; aliceAcsNodes: number[] } => {
  for (const tx of transactions) {
    const witnesses = witnessesOf(tx, creates);
    const seenBy = (p: string) => [...witnesses.entries()].filter(([, ws]) => ws.includes(p)).map(([id]) => Number(id.split(':').pop()));
    const parties = [...new Set([...witnesses.values()].flat())].filter((p) => !p.startsWith('DSO::')).sort();
    for (const alice of parties) {
      const bob = parties.find((p) => seenBy(p).length > seenBy(alice).length);
      const acs = expectedTransaction(tx, { shape: 'ACS_DELTA', byParty: { [alice]: wildcard() } }, { creates, offset: 0 });
      if (bob && acs) return { tx, alice, bob, aliceNodes: seenBy(alice).sort((a, b) => a - b), aliceAcsNodes: nodesOf(acs) };
    }
  }
  throw new Error('no transaction where one user party sees less than another');
})();
const UNKNOWN_ID = `1220${'ef'.repeat(32)}`;

const byParties = (...parties: string[]) => byPartiesIn('LEDGER_EFFECTS', ...parties);
const byPartiesIn = (shape: 'ACS_DELTA' | 'LEDGER_EFFECTS', ...parties: string[]) => ({
  updateId: TX.update_id,
  transactionFormat: {
    eventFormat: { filtersByParty: Object.fromEntries(parties.map((p) => [p, { cumulative: [] }])) },
    transactionShape: `TRANSACTION_SHAPE_${shape}`,
  },
});
const anyParty = {
  updateId: TX.update_id,
  transactionFormat: { eventFormat: { filtersForAnyParty: {} }, transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' },
};

/** Every party named in the events of a response. */
function partiesIn(body: unknown): Set<string> {
  const events = (body as { transaction: { events: Record<string, { witnessParties: string[] }>[] } }).transaction.events;
  return new Set(events.flatMap((e) => Object.values(e)[0]!.witnessParties));
}

describe('ledger authentication', () => {
  const t = useTestDatabase();
  const env = {
    LEDGER_AUTH_AUDIENCE: AUDIENCE,
    LEDGER_ADMIN_USERS: 'admin',
    LEDGER_USER_RIGHTS: JSON.stringify({ alice: [ALICE], idle: [] }),
  };
  let hsApi: TestApi;
  let jwksApi: TestApi;
  /** HS256 without LEDGER_AUTH_AUDIENCE: Canton's participant-audience or scope rule. */
  let noAudienceApi: TestApi;
  /** A PEM certificate and a JWKS at once. */
  let pemAndJwksApi: TestApi;
  const fixtures = path.join(__dirname, '..', '..', 'unit', 'api', 'auth-fixtures');
  const pemKey = crypto.createPrivateKey(fs.readFileSync(path.join(fixtures, 'rsa-test-key.pem'), 'utf8'));
  let jwksServer: http.Server;
  let jwksRequests = 0;
  const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });

  const rs256 = (kid: string | undefined, sub = 'alice', key = rsa.privateKey) =>
    new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', ...(kid ? { kid } : {}) })
      .setSubject(sub)
      .setAudience(AUDIENCE)
      .setExpirationTime('5m')
      .sign(key);

  beforeAll(async () => {
    await ingestItems(
      t.db,
      'sim',
      items.map((item, i) => ({ item, position: String(i + 1), origin: `item ${i + 1}` })),
    );
    const keys = [
      { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
      { ...(await exportJWK(ec.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' },
    ];
    jwksServer = http.createServer((_req, res) => {
      jwksRequests += 1;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys }));
    });
    await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
    const jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
    hsApi = await startTestApi(t, { env: { ...env, LEDGER_AUTH_HS256_SECRET: SECRET } });
    jwksApi = await startTestApi(t, { env: { ...env, LEDGER_AUTH_JWKS_URL: jwksUrl } });
    const { LEDGER_AUTH_AUDIENCE: _audience, ...withoutAudience } = env;
    noAudienceApi = await startTestApi(t, { env: { ...withoutAudience, LEDGER_AUTH_HS256_SECRET: SECRET } });
    pemAndJwksApi = await startTestApi(t, {
      env: { ...env, LEDGER_AUTH_JWKS_URL: jwksUrl, LEDGER_AUTH_PUBLIC_KEY_FILE: path.join(fixtures, 'rsa-test-cert.pem') },
    });
  });
  afterAll(async () => {
    await hsApi.close();
    await jwksApi.close();
    await noAudienceApi.close();
    await pemAndJwksApi.close();
    await new Promise((resolve) => jwksServer.close(resolve));
  });

  describe('401 for every token that does not verify, on every route that needs one', () => {
    const cases: [string, () => Promise<Record<string, string>>][] = [
      ['no token', async () => ({})],
      ['a malformed token', async () => ({ authorization: 'Bearer not-a-jwt' })],
      ['a non-Bearer Authorization header', async () => ({ authorization: `Basic ${Buffer.from('admin:pw').toString('base64')}` })],
      [
        'a wrong signature',
        async () => ({ authorization: `Bearer ${await hs256Token('admin', {}, { secret: 'not-the-secret-0123456789abcdef' })}` }),
      ],
      [
        'an unsigned token (alg none)',
        async () => ({ authorization: `Bearer ${new UnsecuredJWT({ sub: 'admin', aud: AUDIENCE }).setExpirationTime('5m').encode()}` }),
      ],
      ['a wrong algorithm (RS256 to an HS256 verifier)', async () => ({ authorization: `Bearer ${await rs256('rsa-1', 'admin')}` })],
      [
        'an expired token',
        async () => ({ authorization: `Bearer ${await hs256Token('admin', {}, { expiresIn: Math.floor(Date.now() / 1000) - 60 })}` }),
      ],
      [
        'a token without exp (it would never expire)',
        async () => ({ authorization: `Bearer ${await hs256Token('admin', {}, { expiresIn: null })}` }),
      ],
      ['a wrong audience', async () => ({ authorization: `Bearer ${await hs256Token('admin', { aud: 'https://elsewhere.test' })}` })],
      ['no subject', async () => ({ authorization: `Bearer ${await hs256Token(undefined)}` })],
    ];
    it.each(cases)('%s', async (_name, headers) => {
      const h = await headers();
      for (const [method, path, body] of [
        ['POST', PATH, byParties(ALICE)],
        ['POST', PATH, { not: 'even valid' }],
        ['GET', '/v2/parties/participant-id', undefined],
      ] as const) {
        const res = await ledgerRequest(hsApi.url, method, path, undefined, body, h);
        expect({ path, status: res.status, json: res.json }).toEqual({ path, status: 401, json: expectedErrors.unauthenticated });
      }
    });
  });

  describe('JWKS keys', () => {
    it('verify tokens by kid, for RS256 and ES256 keys', async () => {
      const es256 = await new SignJWT({})
        .setProtectedHeader({ alg: 'ES256', kid: 'ec-1' })
        .setSubject('admin')
        .setAudience(AUDIENCE)
        .setExpirationTime('5m')
        .sign(ec.privateKey);
      for (const token of [await rs256('rsa-1', 'admin'), es256]) {
        const res = await ledgerRequest(jwksApi.url, 'GET', '/v2/parties/participant-id', token);
        expect(res).toMatchObject({
          status: 200,
          json: { participantId: 'scan-indexer::12200000000000000000000000000000000000000000000000000000000000000000' },
        });
      }
    });

    it('refuse an unknown key id, a token without kid, a key of the wrong kind, and an HS256 token', async () => {
      const other = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
      for (const token of [
        await rs256('rsa-9', 'admin'),
        await rs256(undefined, 'admin'),
        await rs256('rsa-1', 'admin', other),
        await rs256('ec-1', 'admin'),
        await hs256Token('admin'),
      ]) {
        const res = await ledgerRequest(jwksApi.url, 'GET', '/v2/parties/participant-id', token);
        expect(res).toMatchObject({ status: 401, json: expectedErrors.unauthenticated });
      }
    });

    it('caches the key set', async () => {
      const before = jwksRequests;
      for (let i = 0; i < 3; i++)
        expect((await ledgerRequest(jwksApi.url, 'GET', '/v2/parties/participant-id', await rs256('rsa-1', 'admin'))).status).toBe(200);
      expect(jwksRequests - before).toBe(0);
    });

    it('apply the same rights as any other token', async () => {
      const res = await ledgerRequest(jwksApi.url, 'POST', PATH, await rs256('rsa-1', 'alice'), byParties(BOB));
      expect(res).toMatchObject({ status: 403, json: expectedErrors.forbidden });
    });
  });

  describe('a PEM key and a JWKS configured together', () => {
    it('verify a token with a kid by the JWKS, and one without by the PEM key', async () => {
      const pemToken = (header: Record<string, string>) =>
        new SignJWT({})
          .setProtectedHeader({ alg: 'RS256', ...header })
          .setSubject('admin')
          .setAudience(AUDIENCE)
          .setExpirationTime('5m')
          .sign(pemKey);
      for (const [name, token] of [
        ['JWKS key rsa-1', await rs256('rsa-1', 'admin')],
        ['PEM key, no kid', await pemToken({})],
        ['PEM key with a kid the JWKS does not know', await pemToken({ kid: 'pem-1' })],
      ] as const) {
        const res = await ledgerRequest(pemAndJwksApi.url, 'GET', '/v2/parties/participant-id', token);
        expect({ name, status: res.status }).toEqual({ name, status: 200 });
      }
    });

    it('refuse a token neither key signed', async () => {
      const other = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
      for (const token of [await rs256('rsa-1', 'admin', other), await rs256(undefined, 'admin', other), await rs256(undefined, 'admin')]) {
        expect(await ledgerRequest(pemAndJwksApi.url, 'GET', '/v2/parties/participant-id', token)).toMatchObject({
          status: 401,
          json: expectedErrors.unauthenticated,
        });
      }
    });
  });

  describe('without LEDGER_AUTH_AUDIENCE: Canton’s participant-audience or scope rule', () => {
    const participantAudience = `https://daml.com/jwt/aud/participant/${PARTICIPANT_ID}`;

    it('accepts a token with this participant’s audience, and a daml_ledger_api scope token', async () => {
      for (const claims of [
        { aud: participantAudience },
        { aud: [participantAudience] },
        { aud: undefined, scope: 'daml_ledger_api' },
        { aud: undefined, scope: 'openid daml_ledger_api offline_access' },
        { aud: PARTICIPANT_ID, scope: 'daml_ledger_api' },
      ]) {
        const res = await ledgerRequest(noAudienceApi.url, 'GET', '/v2/parties/participant-id', await hs256Token('alice', claims));
        expect({ claims, status: res.status, json: res.json }).toEqual({ claims, status: 200, json: { participantId: PARTICIPANT_ID } });
        expect((await ledgerRequest(noAudienceApi.url, 'POST', PATH, await hs256Token('alice', claims), byParties(ALICE))).status).toBe(
          200,
        );
      }
    });

    it('refuses with 401 a token that is neither (any key-holder’s token is not enough)', async () => {
      for (const claims of [
        { aud: undefined },
        { aud: 'https://elsewhere.test' },
        { aud: undefined, scope: 'openid profile' },
        { aud: [participantAudience, 'https://elsewhere.test'] },
      ]) {
        for (const [method, path, body] of [
          ['POST', PATH, byParties(ALICE)],
          ['GET', '/v2/parties/participant-id', undefined],
        ] as const) {
          const res = await ledgerRequest(noAudienceApi.url, method, path, await hs256Token('admin', claims), body);
          expect({ claims, path, status: res.status, json: res.json }).toEqual({
            claims,
            path,
            status: 401,
            json: expectedErrors.unauthenticated,
          });
        }
      }
    });

    it('refuses with 403 a token bound to another participant', async () => {
      for (const claims of [
        { aud: 'https://daml.com/jwt/aud/participant/other::1220ab' },
        { aud: 'other::1220ab', scope: 'daml_ledger_api' },
      ]) {
        const res = await ledgerRequest(noAudienceApi.url, 'GET', '/v2/parties/participant-id', await hs256Token('admin', claims));
        expect({ claims, status: res.status, json: res.json }).toEqual({ claims, status: 403, json: expectedErrors.forbidden });
      }
    });
  });

  describe('rights', () => {
    it('a user reads as its own parties and sees no event of another party, in either shape and in the legacy form', async () => {
      const alice = await hs256Token('alice');
      for (const [body, expectedNodes] of [
        [byParties(ALICE), ALICE_NODES],
        [byPartiesIn('ACS_DELTA', ALICE), ALICE_ACS_NODES],
        [{ updateId: TX.update_id, requestingParties: [ALICE] }, ALICE_ACS_NODES],
      ] as const) {
        const res = await ledgerRequest(hsApi.url, 'POST', PATH, alice, body);
        expect({ body, status: res.status }).toEqual({ body, status: 200 });
        expect([...partiesIn(res.json)]).toEqual([ALICE]);
        const nodes = nodesOf((res.json as { transaction: unknown }).transaction);
        expect(nodes).toEqual(expectedNodes);
        expect(nodes.length).toBeLessThan(Object.keys(TX.events_by_id).length);
        expect(JSON.stringify(res.json)).not.toMatch(new RegExp(`"witnessParties":\\[[^\\]]*${BOB.split('::')[0]}`));
      }
    });

    it('403 for a party outside its rights, for any-party filters, before validating the format and before looking the update up', async () => {
      const alice = await hs256Token('alice');
      for (const body of [
        byParties(BOB),
        byParties(ALICE, BOB),
        anyParty,
        { updateId: TX.update_id, requestingParties: [BOB] },
        { ...byParties(BOB), updateId: UNKNOWN_ID },
        // Rights are checked on the raw format, before it is validated (Canton's UpdateServiceAuthorization).
        { ...byParties(BOB), updateId: 'not-hex' },
        { updateId: TX.update_id, transactionFormat: { eventFormat: { filtersByParty: { [BOB]: { cumulative: [] } } } } },
        {
          updateId: TX.update_id,
          transactionFormat: {
            eventFormat: {
              filtersByParty: {
                [BOB]: { cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: 'no-such-template' } } } }] },
              },
            },
            transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
          },
        },
      ]) {
        const res = await ledgerRequest(hsApi.url, 'POST', PATH, alice, body);
        expect({ body, status: res.status, json: res.json }).toEqual({ body, status: 403, json: expectedErrors.forbidden });
      }
    });

    it('a user without parties may ask for the participant id, and nothing else', async () => {
      const idle = await hs256Token('idle');
      expect((await ledgerRequest(hsApi.url, 'GET', '/v2/parties/participant-id', idle)).status).toBe(200);
      expect(await ledgerRequest(hsApi.url, 'POST', PATH, idle, byParties(ALICE))).toMatchObject({
        status: 403,
        json: expectedErrors.forbidden,
      });
    });

    it('a valid token of an unknown user is 403 on every route', async () => {
      const stranger = await hs256Token('stranger');
      for (const [method, path, body] of [
        ['POST', PATH, byParties(ALICE)],
        ['GET', '/v2/parties/participant-id', undefined],
      ] as const) {
        const res = await ledgerRequest(hsApi.url, method, path, stranger, body);
        expect({ path, status: res.status, json: res.json }).toEqual({ path, status: 403, json: expectedErrors.unknownUser });
      }
    });

    it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
      'a user named like a member of Object.prototype (%s) is unknown: 403 on /v2, and let through by the validator scan-proxy',
      async (sub) => {
        const token = await hs256Token(sub);
        for (const [method, path, body] of [
          ['POST', PATH, byParties(ALICE)],
          ['GET', '/v2/parties/participant-id', undefined],
        ] as const) {
          const res = await ledgerRequest(hsApi.url, method, path, token, body);
          expect({ path, status: res.status, json: res.json }).toEqual({ path, status: 403, json: expectedErrors.unknownUser });
        }
        const proxy = await ledgerRequest(hsApi.url, 'GET', '/api/validator/v0/scan-proxy/open-and-issuing-mining-rounds', token);
        expect(proxy.status).toBe(200);
      },
    );

    it('an admin reads as any party', async () => {
      const admin = await hs256Token('admin');
      for (const body of [byParties(ALICE, BOB), anyParty, { updateId: TX.update_id, requestingParties: [ALICE] }]) {
        expect((await ledgerRequest(hsApi.url, 'POST', PATH, admin, body)).status).toBe(200);
      }
      const res = await ledgerRequest(hsApi.url, 'POST', PATH, admin, byParties(ALICE, BOB));
      expect(partiesIn(res.json)).toEqual(new Set([ALICE, BOB]));
    });
  });

  describe('without a verifier', () => {
    it('GET /v2/version needs no token and names a version Canton clients accept', async () => {
      const res = await ledgerRequest(hsApi.url, 'GET', '/v2/version', undefined);
      expect(res.status).toBe(200);
      expect((res.json as { version: string }).version).toMatch(/^3\.4\./);
      expect(res.json).toHaveProperty('features');
    });

    it('LEDGER_AUTH_DISABLED=true serves everything without a token', async () => {
      const open = await startTestApi(t, { env: { LEDGER_AUTH_DISABLED: 'true' } });
      try {
        expect((await ledgerRequest(open.url, 'POST', PATH, undefined, anyParty)).status).toBe(200);
        expect((await ledgerRequest(open.url, 'GET', '/v2/parties/participant-id', undefined)).status).toBe(200);
      } finally {
        await open.close();
      }
    });

    it('a server built without a key and without LEDGER_AUTH_DISABLED refuses every request', async () => {
      const closed = await startTestApi(t, { env: {} });
      try {
        expect(await ledgerRequest(closed.url, 'GET', '/v2/parties/participant-id', await hs256Token('admin'))).toMatchObject({
          status: 401,
          json: expectedErrors.unauthenticated,
        });
      } finally {
        await closed.close();
      }
    });

    it('unknown paths under /v2 are a plain 404', async () => {
      const res = await ledgerRequest(hsApi.url, 'GET', '/v2/nope', undefined);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(res.text).toBe('The requested resource could not be found.');
    });
  });
});
