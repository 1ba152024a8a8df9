/**
 * The writer's statements on existing rows (archives, reassignments) cost the
 * same whatever the size of the tables: measured in buffers touched per row,
 * at about 10,000 and about 1,000,000 stored contracts, on tables fresh from a
 * bulk load and never analysed (what a backfill leaves behind).
 */
import { explainWriterStatements } from '../../../src/store/ingest-repository';
import type { ArchiveRow, ReassignmentRow } from '../../../src/store/ingest-rows';
import { parseTimestamp } from '../../../src/domain/time';
import { ensureHistoryPartitions } from '../../../src/store/partitions';
import { useTestDatabase } from '../../support/database/database';
import { declaredIndexNames } from '../../support/database/declared-indexes';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}

const nodes = (p: PlanNode): PlanNode[] => [p, ...(p.Plans ?? []).flatMap(nodes)];
const planOf = (explained: unknown) => (explained as [{ Plan: PlanNode }])[0].Plan;
const blocksOf = (explained: unknown) => {
  const plan = planOf(explained);
  return plan['Shared Hit Blocks'] + plan['Shared Read Blocks'];
};

/** Every tenth contract is active (with its stakeholder rows); the others were archived within their snapshot slot. */
const ACTIVE_EVERY = 10;
const contractId = (i: number) => `00${i.toString(16).padStart(12, '0')}ca1012201234`;

describe('writer cost per row does not grow with the tables', () => {
  const t = useTestDatabase();
  let stored = 0;
  let declared: Awaited<ReturnType<typeof declaredIndexNames>>;

  async function growTo(n: number): Promise<void> {
    await t.pool.query(
      `insert into contracts (migration_id, contract_id, template_id, package_name, qualified_name, create_arguments, created_at,
         signatories, observers, created_record_time, archived_record_time, archived_in_update_id, synchronizer_id,
         amulet_owner, amulet_initial_amount, amulet_created_round, amulet_rate_per_round, amulet_locked)
       select 0, '00' || lpad(to_hex(i), 12, '0') || 'ca1012201234', 'p:Splice.Amulet:Amulet', 'splice-amulet', 'Splice.Amulet:Amulet',
         '{"amount":"1.0"}', timestamptz '2025-01-01' + i * interval '10 milliseconds',
         array['dso::1220', 'owner' || (i % 1000) || '::1220'], array[]::text[],
         timestamptz '2025-01-01' + i * interval '10 milliseconds',
         case when i % ${ACTIVE_EVERY} = 0 then 'infinity' else timestamptz '2025-01-01' + i * interval '10 milliseconds' end,
         case when i % ${ACTIVE_EVERY} = 0 then null else 'u' || i end, 'sync::1220',
         'owner' || (i % 1000) || '::1220', 1, 0, 0.001, false
       from generate_series($1::int, $2::int) i`,
      [stored + 1, n],
    );
    await t.pool.query(
      `insert into contract_stakeholders (migration_id, party, created_at, contract_id, package_name, qualified_name,
         created_record_time, archived_record_time)
       select c.migration_id, p.party, c.created_at, c.contract_id, c.package_name, c.qualified_name,
         c.created_record_time, c.archived_record_time
       from contracts c cross join lateral unnest(c.signatories) as p(party)
       where c.archived_record_time = 'infinity' and c.contract_id > $1`,
      [contractId(stored)],
    );
    stored = n;
  }

  /** Active contracts spread over what is stored, none measured twice. */
  let round = 0;
  function targets(count: number): number[] {
    round += 1;
    return Array.from(
      { length: count },
      (_, k) => Math.floor(((k + 0.5) * stored) / count / ACTIVE_EVERY) * ACTIVE_EVERY - ACTIVE_EVERY * round,
    );
  }

  async function costPerRow(count: number): Promise<{ archive: number; reassign: number; indexes: string[] }> {
    const ids = targets(count);
    const archives: ArchiveRow[] = ids.map((i) => ({
      migration_id: 0,
      contract_id: contractId(i),
      record_time: '2026-01-01T00:00:00.000000Z',
      update_id: `archive-${i}`,
      slot: '2026-01-01T00:00:00.000000Z',
    }));
    const reassignments: ReassignmentRow[] = ids.map((i) => ({
      migration_id: 0,
      contract_id: contractId(i + ACTIVE_EVERY / 2),
      synchronizer_id: null,
      reassignment_counter: 1,
    }));
    const explained = await explainWriterStatements(t.db, { archives, reassignments });
    // Every target was found and archived: the measure is of real work.
    expect((planOf(explained.archive) as unknown as { 'Actual Rows': number })['Actual Rows']).toBe(count);
    return {
      archive: blocksOf(explained.archive) / count,
      reassign: blocksOf(explained.reassign) / count,
      indexes: [...nodes(planOf(explained.archive)), ...nodes(planOf(explained.reassign))].flatMap((n) =>
        n['Index Name'] ? [declared(n['Index Name'])!] : [],
      ),
    };
  }

  it('archives and reassignments touch the same buffers per row at 10k and at 1M contracts', async () => {
    // The month partitions of the rows below (the writer makes them as it ingests).
    await ensureHistoryPartitions(
      t.db,
      ['2025-01-01T00:00:00Z', '2026-01-01T00:00:00Z'].map((m) => ({ migrationId: 0, recordTime: parseTimestamp(m) })),
    );
    declared = await declaredIndexNames(t.pool);
    await growTo(10_000);
    const small = await costPerRow(50);
    await growTo(1_000_000);
    const large = await costPerRow(50);
    // Only lookups by a whole key: the contract's primary key, and each stakeholder row's (the writer names every
    // column of both of its indexes, so either is an exact lookup).
    const exact = new Set(['contracts_pkey', 'contract_stakeholders_pkey', 'contract_stakeholders_by_template']);
    for (const cost of [small, large]) {
      expect(cost.indexes).toContain('contracts_pkey');
      expect(cost.indexes.filter((i) => !exact.has(i))).toEqual([]);
    }
    expect(large.archive).toBeLessThanOrEqual(small.archive * 1.5);
    expect(large.reassign).toBeLessThanOrEqual(small.reassign * 1.5);
  }, 300_000);
});
