/**
 * What marking answer families costs the writer: the templates of archived and reassigned
 * contracts are looked up by primary key, one index probe each, on tables fresh from a bulk load
 * and never analysed (what a backfill leaves behind), so the cost follows the batch, not the tables.
 */
import { explainMarkChangedAnswers } from '../../../src/store/answer-versions-repository';
import { useTestDatabase } from '../../support/database/database';
import { declaredIndexNames } from '../../support/database/declared-indexes';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

const nodes = (p: PlanNode): PlanNode[] => [p, ...(p.Plans ?? []).flatMap(nodes)];

describe('marking answer families', () => {
  const t = useTestDatabase();

  it('looks each archived contract up by primary key, never scanning contracts', async () => {
    await t.pool.query(
      `insert into contracts (migration_id, contract_id, template_id, package_name, qualified_name, create_arguments, created_at,
         signatories, observers, created_record_time)
       select 0, 'c' || i, 'p:Splice.Amulet:Amulet', 'splice-amulet',
         case when i % 100 = 0 then 'Splice.Round:OpenMiningRound' else 'Splice.Amulet:Amulet' end,
         '{}', timestamptz '2025-01-01', array['dso::1220'], array[]::text[], timestamptz '2025-01-01'
       from generate_series(1, 100000) i`,
    );
    // Looked up by their whole key, archive time included (here still active), each in its one partition.
    const archives = Array.from({ length: 500 }, (_, i) => ({ migration_id: 0, contract_id: `c${i * 97 + 1}`, record_time: 'infinity' }));
    const plan = (await explainMarkChangedAnswers(t.db, archives)) as [{ Plan: PlanNode }];
    const declared = await declaredIndexNames(t.pool);
    const onContracts = nodes(plan[0].Plan).filter((n) => n['Relation Name']?.startsWith('contracts') && (n['Actual Loops'] ?? 0) > 0);
    expect(onContracts.map((n) => ({ type: n['Node Type'], index: declared(n['Index Name']), loops: n['Actual Loops'] }))).toEqual([
      { type: 'Index Scan', index: 'contracts_pkey', loops: 500 },
    ]);
  });
});
