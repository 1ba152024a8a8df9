/**
 * The network series and leaderboards cost what their range holds, not the history around it, in the
 * style of test/integration/scan/read-cost.test.ts: each read of a two-day window touches about the same
 * number of buffers when the activities held around it span ten times as many months.
 */
import { parseTimestamp } from '../../../src/domain/time';
import { ensureHistoryPartitions } from '../../../src/store/partitions';
import {
  activePartiesPerPeriod,
  dailyActivitySums,
  periodActivitySums,
  rewardLeaders,
  volumeLeaders,
} from '../../../src/store/series-repository';
import { bufferCounter, type BufferCounter } from '../../support/database/buffer-count';
import { useTestDatabase } from '../../support/database/database';

const FROM = parseTimestamp('2025-03-10T00:00:00Z');
const TO = parseTimestamp('2025-03-12T00:00:00Z');

describe('the series and leaderboards do not grow with history', () => {
  const t = useTestDatabase();
  let counter: BufferCounter;

  /** A month of activities, one every two minutes, of the kinds the reads sum, among 50 parties. */
  async function month(start: string): Promise<void> {
    await ensureHistoryPartitions(t.db, [{ migrationId: 0, recordTime: parseTimestamp(`${start}T00:00:00Z`) }]);
    await t.pool.query(
      `insert into activities (migration_id, record_time, update_id, node, kind, leg, party, round, amount, fees, holding_fees, burned, counterparties)
       select 0, $1::timestamptz + i * interval '2 minutes', $1 || '-' || i, 0,
         (array['transfer', 'app_reward', 'tap', 'ans_entry'])[1 + i % 4], 0, 'p' || (i % 50) || '::1220', 1, 1, 0.1, 0.01, 0.2, '{}'
       from generate_series(0, extract(epoch from ($1::timestamptz + interval '1 month' - $1::timestamptz))::int / 120 - 1) i`,
      [start],
    );
  }

  beforeAll(async () => {
    await t.pool.query('insert into migrations (migration_id) values (0) on conflict do nothing');
    counter = bufferCounter(t.pool);
  });

  const reads = {
    daily: () => dailyActivitySums(counter.db, FROM, TO),
    hourly: () => periodActivitySums(counter.db, 'hour', FROM, TO),
    active: () => activePartiesPerPeriod(counter.db, 'hour', FROM, TO),
    rewards: () => rewardLeaders(counter.db, ['app_reward'], FROM, TO, 20),
    volume: () => volumeLeaders(counter.db, FROM, TO, 20),
  };

  async function costs(): Promise<Record<keyof typeof reads, number>> {
    const out = {} as Record<keyof typeof reads, number>;
    for (const [k, run] of Object.entries(reads)) out[k as keyof typeof reads] = await counter.lastQuery(run);
    return out;
  }

  it('each read of a two-day window touches the same buffers against a history ten times longer', async () => {
    await month('2025-03-01');
    await t.pool.query('vacuum analyze activities');
    const short = await costs();
    // The reads return the window's activities: 48 hours, 50 parties (720 a kind per day).
    expect((await reads.hourly()).length).toBe(48 * 4);
    expect((await reads.daily()).map((s) => [s.day, s.kind, s.count])).toEqual(
      ['2025-03-10', '2025-03-11'].flatMap((d) => ['app_reward', 'tap', 'transfer'].map((k) => [d, k, 180])),
    );
    expect((await reads.volume()).length).toBe(20);

    for (const m of ['2024-09', '2024-10', '2024-11', '2024-12', '2025-01', '2025-02', '2025-04', '2025-05', '2025-06']) {
      await month(`${m}-01`);
    }
    await t.pool.query('vacuum analyze activities');
    const long = await costs();
    for (const k of Object.keys(reads) as (keyof typeof reads)[]) {
      expect({ read: k, short: short[k] > 0, blocks: long[k] <= short[k] * 1.5 + 10 }).toEqual({ read: k, short: true, blocks: true });
    }
  }, 300_000);
});
