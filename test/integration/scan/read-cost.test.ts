/**
 * Reads at the latest snapshot cost what they return, not the history behind
 * it: the holdings summary (S1) and holdings page (S3) of a party with a long
 * history, and the first and last unfiltered ACS pages, touch the same number
 * of buffers when the archived history is ten times longer. The history is
 * visible in snapshots (each archived contract lived across a snapshot
 * boundary), so the ACS indexes hold all of it.
 */
import { parseTimestamp } from '../../../src/domain/time';
import { acsPage } from '../../../src/store/acs-repository';
import { holdingsPage, holdingsTotals } from '../../../src/store/holdings-repository';
import { ensureHistoryPartitions } from '../../../src/store/partitions';
import { bufferCounter, type BufferCounter } from '../../support/database/buffer-count';
import { useTestDatabase } from '../../support/database/database';

const T = '2025-03-01T00:00:00Z';
const AT = parseTimestamp(T);
const HEAVY = 'heavy::1220';
const LIVE_PER_OWNER = 50;
const OWNERS = 40;

describe('read cost at the latest snapshot does not grow with history', () => {
  const t = useTestDatabase();
  let counter: BufferCounter;
  let db: BufferCounter['db'];
  let archivedRows = 0;

  /** `count` amulets of `owner`, with ids numbered from `from`; created and archived as given (SQL over i, 0 to count - 1). */
  async function amulets(owner: string, from: number, count: number, created: string, archived: string): Promise<void> {
    await t.pool.query(
      `insert into contracts (migration_id, contract_id, template_id, package_name, qualified_name, create_arguments, created_at,
         signatories, observers, created_record_time, archived_record_time, amulet_owner, amulet_initial_amount,
         amulet_created_round, amulet_rate_per_round, amulet_locked)
       select 0, $1 || '-' || lpad((i + $2)::text, 9, '0'), 'p:Splice.Amulet:Amulet', 'splice-amulet', 'Splice.Amulet:Amulet', '{}',
         ${created}, array['dso::1220', $1], array[]::text[], ${created}, ${archived}, $1, 1, 0, 0.001, false
       from generate_series(0, $3::int - 1) i`,
      [owner, from, count],
    );
  }

  /** Archived history: each amulet lived 5 hours, across a 3-hour boundary, all before T. */
  async function addHistory(count: number): Promise<void> {
    const created = `timestamptz '2025-01-01' + i * interval '1 second'`;
    await amulets(HEAVY, archivedRows, count, created, `${created} + interval '5 hours'`);
    await amulets('other::1220', archivedRows, count, created, `${created} + interval '5 hours'`);
    archivedRows += count;
    await t.pool.query('vacuum analyze contracts');
  }

  beforeAll(async () => {
    // The month partitions the rows below go in (the writer makes them as it ingests).
    await ensureHistoryPartitions(t.db, [{ migrationId: 0, recordTime: parseTimestamp('2025-01-01T00:00:00Z') }]);
    // Live holdings created before T: the heavy party's, and those of other owners.
    await amulets(HEAVY, 10_000_000, 100, `timestamptz '2025-02-27' + i * interval '1 second'`, `'infinity'`);
    for (let o = 0; o < OWNERS; o++) {
      await amulets(
        `owner${o}::1220`,
        0,
        LIVE_PER_OWNER,
        `timestamptz '2025-02-28' + (i * ${OWNERS} + ${o}) * interval '1 second'`,
        `'infinity'`,
      );
    }
    // Created after the snapshot and still live: the last page must stop before them.
    await amulets('late::1220', 0, 2_000, `timestamptz '2025-03-01 00:00:01' + i * interval '1 second'`, `'infinity'`);
    await t.pool.query(
      `insert into acs_snapshots (migration_id, record_time, contract_count, unlocked_amulet, locked_amulet, max_created_at)
       select 0, $1::timestamptz, count(*), 0, 0, max(created_at) from contracts where created_record_time <= $1::timestamptz`,
      [T],
    );
    counter = bufferCounter(t.pool);
    db = counter.db;
  });

  const blocks = (run: () => Promise<unknown>) => counter.lastQuery(run);

  /** The ACS at T in creation order after `after`, read from the table itself. */
  async function reference(after: { createdAt: bigint; contractId: string } | undefined, limit: number): Promise<string[]> {
    const rows = await t.pool.query<{ contract_id: string }>(
      `select contract_id from contracts
       where migration_id = 0 and created_record_time <= $1::timestamptz and archived_record_time > $1::timestamptz
         and (created_at, contract_id) > ($2::timestamptz, $3)
       order by created_at, contract_id limit $4`,
      [T, after ? new Date(Number(after.createdAt / 1000n)).toISOString() : '1970-01-01T00:00:00Z', after?.contractId ?? '', limit],
    );
    return rows.rows.map((r) => r.contract_id);
  }

  /** Keyset position ten contracts before the end of the ACS at T. */
  let lastPageKey: { createdAt: bigint; contractId: string };

  async function costs() {
    const s1 = await blocks(() => holdingsTotals(db, 0, AT, [HEAVY], 10n));
    const s3 = await blocks(() => holdingsPage(db, { migrationId: 0, at: AT, after: undefined, limit: 100, owners: [HEAVY] }));
    const first = await blocks(() => acsPage(db, { migrationId: 0, at: AT, after: undefined, limit: 100, parties: [], templates: [] }));
    const last = await blocks(() => acsPage(db, { migrationId: 0, at: AT, after: lastPageKey, limit: 100, parties: [], templates: [] }));
    return { s1, s3, first, last };
  }

  it('S1, S3 and the first and last ACS pages touch the same buffers against a history ten times longer', async () => {
    const key = await t.pool.query<{ created_at: string; contract_id: string }>(
      `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_at, contract_id from contracts
       where created_record_time <= $1::timestamptz and archived_record_time > $1::timestamptz
       order by created_at desc, contract_id desc offset 10 limit 1`,
      [T],
    );
    lastPageKey = { createdAt: parseTimestamp(key.rows[0]!.created_at), contractId: key.rows[0]!.contract_id };

    await addHistory(2_000);
    const short = await costs();
    // The reads return what they should: the heavy party's live holdings, the first page, the last ten.
    expect(await holdingsPage(db, { migrationId: 0, at: AT, after: undefined, limit: 1000, owners: [HEAVY] })).toHaveLength(100);
    const first = await acsPage(db, { migrationId: 0, at: AT, after: undefined, limit: 100, parties: [], templates: [] });
    expect(first.map((c) => c.contractId)).toEqual(await reference(undefined, 100));
    const last = await acsPage(db, { migrationId: 0, at: AT, after: lastPageKey, limit: 100, parties: [], templates: [] });
    expect(last.map((c) => c.contractId)).toEqual(await reference(lastPageKey, 100));
    expect(last).toHaveLength(10);

    await addHistory(18_000);
    const long = await costs();
    for (const k of ['s1', 's3', 'first', 'last'] as const) {
      expect({ read: k, blocks: long[k] <= short[k] * 1.5 + 10 }).toEqual({ read: k, blocks: true });
    }
  }, 120_000);
});
