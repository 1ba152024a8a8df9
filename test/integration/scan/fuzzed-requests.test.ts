/**
 * Fuzzed requests to the operations of this round: whatever JSON body or
 * query a client sends, the answer is a 2xx or a 4xx with a Scan error body
 * (`{"error": "<message>"}`), never a 5xx.
 */
import fc from 'fast-check';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';

/** Values a careless or hostile client may put anywhere: odd strings (NUL included), numbers beyond int64, nesting. */
const anyValue = fc.oneof(
  fc.string(),
  fc.constantFrom('', 'a\u0000b', 'alice::1220ab', '9999-99-99T00:00:00Z', '2025-01-01T00:00:00Z', '-1', '1e400', '%'),
  fc.integer(),
  fc.double(),
  fc.constantFrom(2 ** 63, -(2 ** 63), Number.MAX_SAFE_INTEGER + 2),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string(), { maxKeys: 2 }),
);

const bodies: Record<string, string[]> = {
  '/api/scan/v0/admin/sv/voteresults': ['actionName', 'accepted', 'requester', 'effectiveFrom', 'effectiveTo', 'limit'],
  '/api/scan/v0/voterequest': ['vote_request_contract_ids'],
  '/api/scan/v0/admin/sv/voteresults/count': ['actionName', 'accepted', 'requester', 'effectiveFrom', 'effectiveTo'],
  '/api/scan/v0/admin/sv/previous-sv-reward-weight': ['svParty', 'effectiveBefore'],
  '/api/scan/v0/backfilling/updates-before': ['migration_id', 'synchronizer_id', 'before', 'at_or_after', 'count'],
};
const queries: Record<string, string[]> = {
  '/api/scan/v0/validators/validator-faucets': ['validator_ids'],
  '/api/scan/v0/transfer-command/status': ['sender', 'nonce'],
  '/api/validator/v0/scan-proxy/transfer-command/status': ['sender', 'nonce'],
};

describe('fuzzed requests to the new operations', () => {
  const t = useTestDatabase();
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(t, { env: { LEDGER_AUTH_DISABLED: 'true' } });
  });
  afterAll(async () => {
    await api.close();
  });

  const expectNoServerError = (res: { status: number; json: unknown }, what: string) => {
    if (res.status >= 500) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.json)}`);
    if (res.status >= 400) expect(res.json).toEqual({ error: expect.any(String) });
  };

  it.each(Object.entries(bodies))('POST %s answers every body without a 5xx', async (path, fields) => {
    const body = fc.record(Object.fromEntries(fields.map((f) => [f, anyValue])), { requiredKeys: [] });
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        expectNoServerError(await request(api.url, 'POST', path, b), `${path} ${JSON.stringify(b)}`);
      }),
      { numRuns: 60, seed: 20261124 },
    );
  });

  it.each(Object.entries(queries))('GET %s answers every query without a 5xx', async (path, fields) => {
    const pairs = fc.array(
      fc.tuple(
        fc.constantFrom(...fields, 'other'),
        fc.oneof(fc.string(), fc.constantFrom('a\u0000b', 'bob::1220', '3', '-9223372036854775809')),
      ),
      {
        maxLength: 4,
      },
    );
    await fc.assert(
      fc.asyncProperty(pairs, async (ps) => {
        const query = ps.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
        expectNoServerError(await request(api.url, 'GET', `${path}?${query}`), `${path}?${query}`);
      }),
      { numRuns: 60, seed: 20261124 },
    );
  });
});
