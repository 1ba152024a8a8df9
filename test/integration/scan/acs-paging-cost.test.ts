/**
 * Keyset pages cost the same deep into a history-heavy ACS as at its start:
 * the page queries of /v2/holdings/state and /v0/state/acs run as index
 * range scans from the token's position, measured in buffers touched.
 */
import { Kysely, PostgresDialect, sql, type CompiledQuery } from 'kysely';
import { parseTimestamp } from '../../../src/domain/time';
import { acsPage } from '../../../src/store/acs-repository';
import { holdingsPage } from '../../../src/store/holdings-repository';
import type { Database } from '../../../src/store/schema';
import { useTestDatabase } from '../../support/database';

const N = 120_000;
const AT = parseTimestamp('2025-03-01T00:00:00Z');

interface Plan {
  'Node Type': string;
  'Index Name'?: string;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: Plan[];
}

const nodes = (p: Plan): Plan[] => [p, ...(p.Plans ?? []).flatMap(nodes)];

describe('paging cost', () => {
  const t = useTestDatabase();
  let captured: CompiledQuery[] = [];
  let db: Kysely<Database>;

  beforeAll(async () => {
    // Half of the owner's amulets were archived right after creation (history); a third of all rows belong to someone else.
    await sql`
      insert into contracts (migration_id, contract_id, template_id, package_name, qualified_name, create_arguments, created_at,
        signatories, observers, created_record_time, archived_record_time, amulet_owner, amulet_initial_amount,
        amulet_created_round, amulet_rate_per_round, amulet_locked)
      select 0, lpad(to_hex(i), 8, '0'), 'p:Splice.Amulet:Amulet', 'splice-amulet', 'Splice.Amulet:Amulet', '{}',
        timestamptz '2025-01-01' + i * interval '1 second', array['owner::1220'], array[]::text[],
        timestamptz '2025-01-01' + i * interval '1 second',
        case when i % 2 = 0 then timestamptz '2025-01-01' + (i + 1) * interval '1 second' else 'infinity' end,
        case when i % 3 = 0 then 'other::1220' else 'owner::1220' end, 1, 0, 0.001, false
      from generate_series(1, ${N}) i`.execute(t.db);
    await t.pool.query('vacuum analyze contracts');
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: t.pool }), log: (e) => void (e.level === 'query' && captured.push(e.query)) });
  });

  async function buffers(run: () => Promise<unknown>): Promise<{ blocks: number; indexes: string[] }> {
    captured = [];
    await run();
    const q = captured[captured.length - 1]!;
    const res = await t.pool.query<{ 'QUERY PLAN': [{ Plan: Plan }] }>(`explain (analyze, buffers, format json) ${q.sql}`, q.parameters as unknown[]);
    const plan = res.rows[0]!['QUERY PLAN'][0].Plan;
    return {
      blocks: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'],
      indexes: nodes(plan).filter((n) => n['Node Type'].startsWith('Index')).map((n) => `${n['Node Type']} ${n['Index Name']}`),
    };
  }

  const deep = { createdAt: parseTimestamp('2025-01-01T00:00:00Z') + BigInt(N - 2_000) * 1_000_000n, contractId: '' };

  it('holdings pages use the owner index from the token position', async () => {
    const page = (after?: typeof deep) => () => holdingsPage(db, { migrationId: 0, at: AT, after, limit: 100, owners: ['owner::1220', 'nobody::1220'] });
    const first = await buffers(page());
    const later = await buffers(page(deep));
    expect(first.indexes).toContain('Index Only Scan contracts_holdings_by_owner_created_at');
    expect(later.indexes).toContain('Index Only Scan contracts_holdings_by_owner_created_at');
    expect(later.blocks).toBeLessThanOrEqual(first.blocks * 2 + 20);
    expect((await page(deep)()).length).toBe(100);
  });

  it('ACS pages use the creation-order index from the token position', async () => {
    const page = (after?: typeof deep) => () => acsPage(db, { migrationId: 0, at: AT, after, limit: 100, parties: [], templates: [] });
    const first = await buffers(page());
    const later = await buffers(page(deep));
    expect(first.indexes).toContain('Index Only Scan contracts_by_created_at');
    expect(later.indexes).toContain('Index Only Scan contracts_by_created_at');
    expect(later.blocks).toBeLessThanOrEqual(first.blocks * 2 + 20);
    expect((await page(deep)()).length).toBe(100);
  });
});
