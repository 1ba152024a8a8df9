/**
 * Keyset pages cost the same deep into a history-heavy ACS as at its start:
 * the page queries of /v2/holdings/state and /v0/state/acs run as index
 * range scans from the token's position, measured in buffers touched.
 */
import { Kysely, PostgresDialect, sql, type CompiledQuery } from 'kysely';
import { parseTimestamp } from '../../../src/domain/time';
import { acsPage, MAX_PAIR_RANGES, type TemplateRef } from '../../../src/store/acs-repository';
import { holdingsPage } from '../../../src/store/holdings-repository';
import type { Database } from '../../../src/store/schema';
import { ensureHistoryPartitions } from '../../../src/store/partitions';
import { useTestDatabase } from '../../support/database/database';
import { declaredIndexNames } from '../../support/database/declared-indexes';

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
    // Stakeholders: everyone's signatory owner::1220, a third also other::1220, every fifth observed by owner::1220 again;
    // rare::1220 observes 2 in 1000 (one active). LockedAmulet: 2 in 1000, both active, one observed by rare::1220.
    // The month partitions the rows below go in (the writer makes them as it ingests).
    await ensureHistoryPartitions(t.db, [{ migrationId: 0, recordTime: parseTimestamp('2025-01-01T00:00:00Z') }]);
    await sql`
      insert into contracts (migration_id, contract_id, template_id, package_name, qualified_name, create_arguments, created_at,
        signatories, observers, created_record_time, archived_record_time, amulet_owner, amulet_initial_amount,
        amulet_created_round, amulet_rate_per_round, amulet_locked)
      select 0, lpad(to_hex(i), 8, '0'), 'p:' || template, 'splice-amulet', template, '{}',
        timestamptz '2025-01-01' + i * interval '1 second',
        case when i % 3 = 0 then array['other::1220', 'owner::1220'] else array['owner::1220'] end,
        case when i % 1000 < 2 then array['rare::1220'] when i % 5 = 0 then array['owner::1220'] else array[]::text[] end,
        timestamptz '2025-01-01' + i * interval '1 second',
        case when i % 2 = 0 then timestamptz '2025-01-01' + (i + 1) * interval '1 second' else 'infinity' end,
        case when i % 3 = 0 then 'other::1220' else 'owner::1220' end, 1, 0, 0.001, false
      from generate_series(1, ${N}) i
      cross join lateral (select case when i % 1000 in (1, 3) then 'Splice.Amulet:LockedAmulet' else 'Splice.Amulet:Amulet' end) x(template)`.execute(
      t.db,
    );
    // What the ingestion writer writes with each contract.
    await sql`
      insert into contract_stakeholders (migration_id, party, created_at, contract_id, package_name, qualified_name,
        created_record_time, archived_record_time)
      select distinct c.migration_id, p.party, c.created_at, c.contract_id, c.package_name, c.qualified_name,
        c.created_record_time, c.archived_record_time
      from contracts c cross join lateral unnest(c.signatories || c.observers) as p(party)`.execute(t.db);
    await t.pool.query('vacuum analyze contract_stakeholders');
    await t.pool.query('vacuum analyze contracts');
    db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: t.pool }),
      log: (e) => void (e.level === 'query' && captured.push(e.query)),
    });
  });

  async function buffers(run: () => Promise<unknown>): Promise<{ blocks: number; indexes: string[] }> {
    captured = [];
    await run();
    const q = captured[captured.length - 1]!;
    const res = await t.pool.query<{ 'QUERY PLAN': [{ Plan: Plan }] }>(
      `explain (analyze, buffers, format json) ${q.sql}`,
      q.parameters as unknown[],
    );
    const plan = res.rows[0]!['QUERY PLAN'][0].Plan;
    const declared = await declaredIndexNames(t.pool);
    return {
      blocks: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'],
      indexes: nodes(plan)
        .filter((n) => n['Node Type'].startsWith('Index'))
        .map((n) => `${n['Node Type']} ${declared(n['Index Name'])}`),
    };
  }

  const deep = { createdAt: parseTimestamp('2025-01-01T00:00:00Z') + BigInt(N - 2_000) * 1_000_000n, contractId: '' };

  it('holdings pages use the owner index from the token position', async () => {
    const page = (after?: typeof deep) => () =>
      holdingsPage(db, { migrationId: 0, at: AT, after, limit: 100, owners: ['owner::1220', 'nobody::1220'] });
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

  describe('filtered ACS pages merge one index range per party, template or pair', () => {
    const amulet: TemplateRef = { packageName: 'splice-amulet', qualifiedName: 'Splice.Amulet:Amulet' };
    const locked: TemplateRef = { packageName: 'splice-amulet', qualifiedName: 'Splice.Amulet:LockedAmulet' };
    const query = (parties: string[], templates: TemplateRef[], after?: typeof deep) => ({
      migrationId: 0,
      at: AT,
      after,
      limit: 100,
      parties,
      templates,
    });

    /** The page as the filter reads, on the contracts themselves. */
    async function reference(q: ReturnType<typeof query>): Promise<string[]> {
      const rows = await t.pool.query<{ contract_id: string }>(
        `select contract_id from contracts
         where migration_id = 0 and created_record_time <= $1::timestamptz and archived_record_time > $1::timestamptz
           and (created_at, contract_id) > ($2::timestamptz, $3)
           and (cardinality($4::text[]) = 0 or signatories && $4::text[] or observers && $4::text[])
           and (cardinality($5::text[]) = 0 or (package_name, qualified_name) in (select * from unnest($5::text[], $6::text[])))
         order by created_at, contract_id limit $7`,
        [
          '2025-03-01T00:00:00Z',
          q.after ? new Date(Number(q.after.createdAt / 1000n)).toISOString() : '1970-01-01T00:00:00Z',
          q.after?.contractId ?? '',
          q.parties,
          q.templates.map((x) => x.packageName),
          q.templates.map((x) => x.qualifiedName),
          q.limit,
        ],
      );
      return rows.rows.map((r) => r.contract_id);
    }

    let unfiltered: number;
    beforeAll(async () => {
      unfiltered = (await buffers(() => acsPage(db, query([], [])))).blocks;
    });

    const cases: { name: string; parties: string[]; templates: TemplateRef[]; index: string; first: number; deep: number }[] = [
      { name: 'a rare party', parties: ['rare::1220'], templates: [], index: 'contract_stakeholders_pkey', first: 100, deep: 2 },
      { name: 'an absent party', parties: ['nobody::1220'], templates: [], index: 'contract_stakeholders_pkey', first: 0, deep: 0 },
      {
        name: 'parties sharing contracts',
        parties: ['owner::1220', 'other::1220', 'rare::1220'],
        templates: [],
        index: 'contract_stakeholders_pkey',
        first: 100,
        deep: 100,
      },
      { name: 'a rare template', parties: [], templates: [locked], index: 'contracts_by_template_created_at', first: 100, deep: 4 },
      {
        name: 'an absent template',
        parties: [],
        templates: [{ packageName: 'splice-amulet', qualifiedName: 'Splice.Amulet:Nothing' }],
        index: 'contracts_by_template_created_at',
        first: 0,
        deep: 0,
      },
      {
        name: 'a rare party and a rare template',
        parties: ['rare::1220'],
        templates: [locked],
        index: 'contract_stakeholders_by_template',
        first: 100,
        deep: 2,
      },
      {
        name: 'a common party and a rare template',
        parties: ['owner::1220'],
        templates: [locked, locked],
        index: 'contract_stakeholders_by_template',
        first: 100,
        deep: 4,
      },
      {
        name: 'a rare party and a common template',
        parties: ['rare::1220', 'nobody::1220'],
        templates: [amulet],
        index: 'contract_stakeholders_by_template',
        first: 0,
        deep: 0,
      },
      {
        name: 'common parties and templates',
        parties: ['owner::1220', 'other::1220'],
        templates: [amulet, locked],
        index: 'contract_stakeholders_by_template',
        first: 100,
        deep: 100,
      },
    ];

    it.each(cases)('$name: the same page as the filter, from the index, at the cost of an unfiltered page', async (c) => {
      for (const [after, count] of [
        [undefined, c.first],
        [deep, c.deep],
      ] as const) {
        const q = query(c.parties, c.templates, after);
        const page = await acsPage(db, q);
        expect(page.map((x) => x.contractId)).toEqual(await reference(q));
        expect(page.length).toBe(count);
        const cost = await buffers(() => acsPage(db, q));
        expect(cost.indexes).toContain(`Index Only Scan ${c.index}`);
        expect(cost.indexes).not.toContain('Index Only Scan contracts_by_created_at');
        // Ranges of rare or absent keys cost their index descents; a full page its rows, as unfiltered.
        expect(cost.blocks).toBeLessThanOrEqual(count === 0 ? 20 : unfiltered * 2 + 20);
      }
    });

    it(`more than ${MAX_PAIR_RANGES} pairs: each party's range, filtered by template`, async () => {
      const templates = [locked, ...Array.from({ length: 600 }, (_, i) => ({ packageName: 'splice-amulet', qualifiedName: `M:T${i}` }))];
      for (const after of [undefined, deep]) {
        const q = query(['rare::1220', 'nobody::1220'], templates, after);
        const page = await acsPage(db, q);
        expect(page.map((x) => x.contractId)).toEqual(await reference(q));
      }
    });
  });
});
