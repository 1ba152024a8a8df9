/**
 * GET /api/scan/v0/rewards-collected through the real HTTP server, on a simulated network. The newest
 * closed round is read here from the simulator's ClosedMiningRound creates. The simulator claims no
 * rewards, so reward claims are added as rows of the projection (app and validator rewards, which count,
 * and SV rewards and faucets, which do not), in closed rounds and in rounds not closed yet; the expected
 * sums are of those rows, in exact units.
 */
import type { CreatedEvent, TransactionUpdate } from '../../../src/domain/items';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../../support/items/simulated-network';

const text = (x: bigint) => `${x / 10_000_000_000n}.${(x % 10_000_000_000n).toString().padStart(10, '0')}`;

describe('Scan round aggregates: GET /v0/rewards-collected', () => {
  const t = useTestDatabase();
  const items = simulatedItems({ seed: 'round-aggregates', updates: 600, migrations: 1, meanUpdateGapMs: 60_000, tickSeconds: 600 });
  let closed = -1n;
  for (const item of items) {
    const tx = item.update as TransactionUpdate | null;
    for (const ev of Object.values(tx?.events_by_id ?? {})) {
      const c = ev as CreatedEvent;
      if (c.event_type === 'created_event' && c.template_id.endsWith(':Splice.Round:ClosedMiningRound')) {
        const n = BigInt((c.create_arguments as { round: { number: string } }).round.number);
        if (n > closed) closed = n;
      }
    }
  }
  // Claims in rounds 0..closed+2, amounts in units of 1e-10, differing per row.
  const kinds = ['app_reward', 'validator_reward', 'sv_reward', 'validator_faucet'] as const;
  const claims = Array.from({ length: 40 }, (_, i) => ({
    kind: kinds[i % 4]!,
    round: BigInt(i % Number(closed + 3n)),
    units: 1_234_567_891n * BigInt(i + 1) + 7n,
  }));
  const counted = (c: (typeof claims)[number]) => c.kind === 'app_reward' || c.kind === 'validator_reward';
  const sumOf = (keep: (round: bigint) => boolean) =>
    text(claims.filter((c) => counted(c) && keep(c.round)).reduce((a, c) => a + c.units, 0n));

  let api: TestApi;
  const get = (query: string) => request(api.url, 'GET', `/api/scan/v0/rewards-collected${query}`);

  beforeAll(async () => {
    await ingestThroughWorker(t, items);
    for (const [i, c] of claims.entries()) {
      await t.pool.query(
        `insert into activities (migration_id, record_time, update_id, node, kind, leg, party, round, amount, fees, counterparties)
         values (0, timestamptz '2025-01-01T00:00:00Z' + $1 * interval '1 minute', $2, 0, $3, 0, 'p::1220', $4, $5::numeric, 0, '{}')`,
        [i, `claim-${i}`, c.kind, c.round.toString(), text(c.units)],
      );
    }
    api = await startTestApi(t);
  });
  afterAll(async () => api?.close());

  it('has closed rounds, and claims of counted kinds in some of them and after them', () => {
    expect(closed).toBeGreaterThan(1n);
    expect(claims.some((c) => counted(c) && c.round > closed)).toBe(true);
    expect(new Set(claims.filter(counted).map((c) => c.round)).size).toBeGreaterThan(2);
  });

  it('sums the app and validator rewards of every round up to the newest closed one', async () => {
    const res = await get('');
    expect([res.status, res.json]).toEqual([200, { amount: sumOf((r) => r <= closed) }]);
    expect(sumOf((r) => r <= closed)).not.toBe(sumOf(() => true));
  });

  it("sums one closed round's, 0 for a round without claims", async () => {
    for (const round of [0n, 1n, closed]) {
      const res = await get(`?round=${round}`);
      expect([res.status, res.json]).toEqual([200, { amount: sumOf((r) => r === round) }]);
    }
    const empty = await get('?round=-5');
    expect([empty.status, empty.json]).toEqual([200, { amount: '0.0000000000' }]);
  });

  it('404 for a round not closed yet, 400 for a round that is not an integer', async () => {
    const later = await get(`?round=${closed + 1n}`);
    expect([later.status, later.json]).toEqual([404, { error: 'No data has been made available yet' }]);
    for (const bad of ['?round=two', '?round=1.5', '?round=99999999999999999999']) {
      const res = await get(bad);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: expect.any(String) });
    }
  });
});
