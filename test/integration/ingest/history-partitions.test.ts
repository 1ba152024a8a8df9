/**
 * What the partitioning of history (migration 20261126_001) is for, shown with EXPLAIN:
 * - the writer's per-item statements touch the same number of buffers when ten times more
 *   contracts and updates are stored, because what they touch is the active contracts and the
 *   current month, not the history;
 * - a page of /v2/updates scans the same partitions however many months are stored around it.
 * The history is loaded straight into the tables (with random ids, as real contract and update
 * ids are hashes), spread over two years of record time.
 */
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import { parseTimestamp } from '../../../src/domain/time';
import { explainWriterStatements } from '../../../src/store/ingest-repository';
import type { ArchiveRow, ReassignmentRow } from '../../../src/store/ingest-rows';
import { ensureHistoryPartitions } from '../../../src/store/partitions';
import type { Database } from '../../../src/store/schema';
import { listEvents, listUpdates } from '../../../src/store/update-repository';
import { bufferCounter } from '../../support/database/buffer-count';
import { useTestDatabase } from '../../support/database/database';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Loops'?: number;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}

const nodes = (p: PlanNode): PlanNode[] => [p, ...(p.Plans ?? []).flatMap(nodes)];
const planOf = (explained: unknown) => (explained as [{ Plan: PlanNode }])[0].Plan;
const blocksOf = (plan: PlanNode) => plan['Shared Hit Blocks'] + plan['Shared Read Blocks'];

/** Every month from `from` (YYYY-MM) for `count` months, as keys of migration 0. */
function months(from: string, count: number) {
  const [y, m] = from.split('-').map(Number) as [number, number];
  return Array.from({ length: count }, (_, k) => {
    const month = m - 1 + k;
    const iso = `${y + Math.floor(month / 12)}-${String((month % 12) + 1).padStart(2, '0')}-01T00:00:00Z`;
    return { migrationId: 0, recordTime: parseTimestamp(iso) };
  });
}

const ACTIVE = 5_000;
const activeId = (i: number) => `active-${String(i).padStart(6, '0')}`;

describe('partitioned history', () => {
  const t = useTestDatabase();

  describe('per-item writes cost the same at ten times the stored contracts', () => {
    let storedContracts = 0;
    let storedUpdates = 0;

    /** Archived contracts (a third of them visible in a snapshot, with stakeholder rows) and updates, over 2024-01 to 2025-11. */
    async function addHistory(contracts: number): Promise<void> {
      const from = storedContracts;
      await t.pool.query(
        `insert into contracts (migration_id, contract_id, template_id, package_name, qualified_name, create_arguments, created_at,
           signatories, observers, created_record_time, archived_record_time, archived_in_update_id, synchronizer_id,
           amulet_owner, amulet_initial_amount, amulet_created_round, amulet_rate_per_round, amulet_locked)
         select 0, '00' || md5(i::text) || md5((-i)::text), 'p:Splice.Amulet:Amulet', 'splice-amulet', 'Splice.Amulet:Amulet',
           '{"amount":"1.0"}', t0, array['dso::1220', 'owner' || (i % 997) || '::1220'], array[]::text[], t0,
           t0 + case when i % 3 = 0 then interval '5 hours' else interval '1 minute' end, md5(i::text), 'sync::1220',
           'owner' || (i % 997) || '::1220', 1, 0, 0.001, false
         from generate_series($1::int, $2::int) i,
           lateral (select timestamptz '2024-01-01' + (i % 600000) * interval '101 seconds' as t0) x`,
        [from + 1, from + contracts],
      );
      await t.pool.query(
        `insert into contract_stakeholders (migration_id, party, created_at, contract_id, package_name, qualified_name,
           created_record_time, archived_record_time)
         select c.migration_id, p.party, c.created_at, c.contract_id, c.package_name, c.qualified_name,
           c.created_record_time, c.archived_record_time
         from contracts c cross join lateral unnest(c.signatories) as p(party)
         where c.archived_record_time < 'infinity' and c.archived_record_time > c.created_slot
           and c.contract_id in (select '00' || md5(i::text) || md5((-i)::text) from generate_series($1::int, $2::int) i)`,
        [from + 1, from + contracts],
      );
      const updates = Math.floor(contracts / 4);
      await t.pool.query(
        `insert into updates (update_id, migration_id, record_time, synchronizer_id, kind, event_count, payload, payload_compact_length)
         select '1220' || md5('u' || i), 0, timestamptz '2024-01-01' + (i % 600000) * interval '101 seconds' + interval '1 millisecond',
           'sync::1220', 'transaction', 4, '\\x00'::bytea, 0
         from generate_series($1::int, $2::int) i`,
        [storedUpdates + 1, storedUpdates + updates],
      );
      storedContracts += contracts;
      storedUpdates += updates;
      await t.pool.query('vacuum analyze contracts, contract_stakeholders, updates');
    }

    let round = 0;
    /** The blocks the writer's statements touch per row: archives and reassignments of active contracts, inserts of new rows. */
    async function costPerRow(count: number) {
      round += 1;
      // What earlier measures rolled back leaves dead entries behind, as any writer's aborted batch would: gone first.
      await t.pool.query('vacuum contracts, contract_stakeholders, updates');
      const targets = Array.from({ length: count }, (_, k) => k * Math.floor(ACTIVE / count / 2) * 2 + round * 2);
      const archives: ArchiveRow[] = targets.map((i) => ({
        migration_id: 0,
        contract_id: activeId(i),
        record_time: '2026-01-05T00:00:00.000000Z',
        update_id: `archive-${i}`,
        slot: '2026-01-05T00:00:00.000000Z',
      }));
      const reassignments: ReassignmentRow[] = targets.map((i) => ({
        migration_id: 0,
        contract_id: activeId(i + 1),
        synchronizer_id: null,
        reassignment_counter: 1,
      }));
      const explained = await explainWriterStatements(t.db, { archives, reassignments });
      expect((planOf(explained.archive) as unknown as { 'Actual Rows': number })['Actual Rows']).toBe(count);
      // New rows go in by COPY, which EXPLAIN cannot show: the same rows by INSERT maintain the same indexes.
      const client = await t.pool.connect();
      try {
        await client.query('begin');
        const explain = async (text: string) =>
          planOf((await client.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, buffers, format json) ${text}`)).rows[0]!['QUERY PLAN']);
        const newContracts = await explain(
          `insert into contracts (migration_id, contract_id, template_id, package_name, qualified_name, create_arguments, created_at,
             signatories, observers, created_record_time, amulet_owner, amulet_initial_amount, amulet_created_round,
             amulet_rate_per_round, amulet_locked)
           select 0, '00' || md5('new' || ${round} || i) || md5('x' || i), 'p:Splice.Amulet:Amulet', 'splice-amulet',
             'Splice.Amulet:Amulet', '{}', timestamptz '2026-01-05', array['dso::1220', 'owner' || i || '::1220'], array[]::text[],
             timestamptz '2026-01-05', 'owner' || i || '::1220', 1, 0, 0.001, false
           from generate_series(1, ${count}) i`,
        );
        const newUpdates = await explain(
          `insert into updates (update_id, migration_id, record_time, synchronizer_id, kind, event_count, payload, payload_compact_length)
           select '1220' || md5('new' || ${round} || i), 0, timestamptz '2026-01-05' + i * interval '1 second', 'sync::1220',
             'transaction', 4, '\\x00'::bytea, 0
           from generate_series(1, ${count}) i`,
        );
        return {
          archive: blocksOf(planOf(explained.archive)) / count,
          reassign: blocksOf(planOf(explained.reassign)) / count,
          insertContract: blocksOf(newContracts) / count,
          insertUpdate: blocksOf(newUpdates) / count,
          relations: [...nodes(planOf(explained.archive)), ...nodes(planOf(explained.reassign))].flatMap((n) =>
            n['Relation Name'] && n['Node Type'] !== 'ModifyTable' ? [n['Relation Name']] : [],
          ),
        };
      } finally {
        await client.query('rollback');
        client.release();
      }
    }

    beforeAll(async () => {
      await ensureHistoryPartitions(t.db, months('2024-01', 26));
      await t.pool.query(
        `insert into contracts (migration_id, contract_id, template_id, package_name, qualified_name, create_arguments, created_at,
           signatories, observers, created_record_time, synchronizer_id, amulet_owner, amulet_initial_amount, amulet_created_round,
           amulet_rate_per_round, amulet_locked)
         select 0, 'active-' || lpad(i::text, 6, '0'), 'p:Splice.Amulet:Amulet', 'splice-amulet', 'Splice.Amulet:Amulet', '{}',
           timestamptz '2025-12-01' + i * interval '1 second', array['dso::1220', 'holder' || (i % 50) || '::1220'], array[]::text[],
           timestamptz '2025-12-01' + i * interval '1 second', 'sync::1220', 'holder' || (i % 50) || '::1220', 1, 0, 0.001, false
         from generate_series(0, ${ACTIVE - 1}) i`,
      );
      await t.pool.query(
        `insert into contract_stakeholders (migration_id, party, created_at, contract_id, package_name, qualified_name,
           created_record_time, archived_record_time)
         select c.migration_id, p.party, c.created_at, c.contract_id, c.package_name, c.qualified_name,
           c.created_record_time, c.archived_record_time
         from contracts c cross join lateral unnest(c.signatories) as p(party)`,
      );
    }, 600_000);

    it('archives, reassignments and inserts touch the same buffers per row at 100,000 and at 1,000,000 stored contracts', async () => {
      await addHistory(100_000);
      const small = await costPerRow(50);
      await addHistory(900_000);
      const large = await costPerRow(50);
      // The statements on existing rows read only the active partitions.
      for (const cost of [small, large])
        expect(new Set(cost.relations)).toEqual(new Set(['contracts_active', 'contract_stakeholders_active']));
      // The same buffers per row, within one: different rows of the same tables are measured each time.
      for (const k of ['archive', 'reassign', 'insertContract', 'insertUpdate'] as const) {
        expect({ statement: k, small: small[k], large: large[k], same: Math.abs(large[k] - small[k]) <= 1 }).toEqual({
          statement: k,
          small: small[k],
          large: large[k],
          same: true,
        });
      }
      expect(storedContracts).toBe(1_000_000);
    }, 600_000);
  });

  describe('a page of updates scans a bounded number of partitions', () => {
    let captured: CompiledQuery[] = [];
    let db: Kysely<Database>;

    /** `perDay` updates a day in each month of `keys`. */
    async function fill(keys: { recordTime: bigint }[], perDay: number): Promise<void> {
      await ensureHistoryPartitions(
        t.db,
        keys.map((k) => ({ migrationId: 0, recordTime: k.recordTime })),
      );
      for (const k of keys) {
        const start = new Date(Number(k.recordTime / 1000n)).toISOString();
        await t.pool.query(
          `insert into updates (update_id, migration_id, record_time, synchronizer_id, kind, event_count, json_compact, payload)
           select 'page-' || md5($1 || i), 0, $1::timestamptz + i * ($2::float8 * interval '1 second'), 'sync::1220', 'transaction', 1,
             '{}', null
           from generate_series(0, $3::int - 1) i`,
          [start, 86_400 / perDay, perDay * 28],
        );
      }
      await t.pool.query('analyze updates');
    }

    /** The partitions of updates the statement of a page ran a scan on. */
    async function scanned(after: string): Promise<string[]> {
      captured = [];
      const page = await listUpdates(db, { migrationId: 0, recordTime: parseTimestamp(after) }, 100, 'compact_json');
      expect(page).toHaveLength(100);
      const q = captured[captured.length - 1]!;
      const res = await t.pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `explain (analyze, format json) ${q.sql}`,
        q.parameters as unknown[],
      );
      return nodes(res.rows[0]!['QUERY PLAN'][0].Plan)
        .filter((n) => n['Relation Name']?.startsWith('updates_') && (n['Actual Loops'] ?? 0) > 0)
        .map((n) => n['Relation Name']!);
    }

    beforeAll(async () => {
      await t.pool.query('truncate updates');
      db = new Kysely<Database>({
        dialect: new PostgresDialect({ pool: t.pool }),
        log: (e) => void (e.level === 'query' && captured.push(e.query)),
      });
    });

    it('the same partitions with 3 and with 27 months stored, and a page across a month boundary scans two', async () => {
      await fill(months('2025-04', 3), 100);
      const mid = await scanned('2025-05-15T00:00:00Z');
      const boundary = await scanned('2025-05-28T23:00:00Z');
      await fill([...months('2024-01', 15), ...months('2025-07', 9)], 100);
      expect(await scanned('2025-05-15T00:00:00Z')).toEqual(mid);
      expect(await scanned('2025-05-28T23:00:00Z')).toEqual(boundary);
      expect(mid).toEqual(['updates_m0_p202505']);
      expect(boundary).toEqual(['updates_m0_p202505', 'updates_m0_p202506']);
    }, 300_000);

    it('a page at the start of a large month reads about what it returns, not the rest of the month', async () => {
      // All in one migration, with statistics that say so: read as one row comparison, the range after a
      // cursor was estimated by `migration_id > 0` (no row), and everything after the cursor was sorted.
      // A month analyzed, and the next one's partition made since, empty and never analyzed: PostgreSQL
      // then takes it for a table of some pages, and read that way it is not in order.
      await t.pool.query('truncate updates');
      await fill(months('2023-01', 1), 2000);
      await ensureHistoryPartitions(t.db, [{ migrationId: 0, recordTime: parseTimestamp('2023-02-01T00:00:00Z') }]);
      const counter = bufferCounter(t.pool);
      const blocks = (after: string) =>
        counter.lastQuery(async () =>
          expect(await listUpdates(counter.db, { migrationId: 0, recordTime: parseTimestamp(after) }, 100, 'compact_json')).toHaveLength(
            100,
          ),
        );
      const early = await blocks('2023-01-01T00:10:00Z');
      const late = await blocks('2023-01-28T20:00:00Z');
      expect({ early, late, bounded: early <= late * 2 + 20 }).toEqual({ early, late, bounded: true });

      // A /v0/events page reads the page's verdicts too, up to its last update: bounded above by a row
      // comparison led by the migration id, that scan began at the migration's first verdict.
      await t.pool.query(
        `insert into verdicts (update_id, migration_id, record_time, domain_id, finalization_time, submitting_parties,
           submitting_participant_uid, verdict_result, mediator_group, root_views, json)
         select update_id, migration_id, record_time, synchronizer_id, record_time, '{}', 'participant::1220',
           'VERDICT_RESULT_ACCEPTED', 0, '{}', '{}'
         from updates`,
      );
      await t.pool.query('analyze verdicts');
      const eventBlocks = (after: string) =>
        counter.allQueries(async () =>
          expect(await listEvents(counter.db, { migrationId: 0, recordTime: parseTimestamp(after) }, 100, 'compact_json')).toHaveLength(
            100,
          ),
        );
      const eventsEarly = await eventBlocks('2023-01-01T00:10:00Z');
      const eventsLate = await eventBlocks('2023-01-28T20:00:00Z');
      expect({ eventsEarly, eventsLate, bounded: eventsEarly <= eventsLate * 2 + 20 }).toEqual({ eventsEarly, eventsLate, bounded: true });
    }, 300_000);
  });
});
