/**
 * `npm run bench -- --only holdings`: holdings summaries (S1, S2) of 1,000 owners that each hold
 * hundreds to thousands of amulets, read from the per-owner totals kept at the snapshot
 * (holdingsTotals) against summing every holding (holdingsTotalsFromContracts), the path of
 * snapshots taken without totals, as the same run's baseline. Also times the announcement of a
 * snapshot and then the derivation of its holdings totals (src/jobs/holding-totals.ts): the first
 * one with totals (every holding aggregated once) and a later one (what changed since the previous one).
 */
import { sql } from 'kysely';
import { formatRecordTime, parseTimestamp } from '../src/domain/time';
import { HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT } from '../src/internal/config';
import { earliestOpenRound, holdingsTotals, holdingsTotalsFromContracts } from '../src/store/holdings-repository';
import { migrate } from '../src/store/migrator';
import { createDb, createPool } from '../src/store/pool';
import { deriveHoldingTotals } from '../src/store/holding-totals-repository';
import { takeSnapshot } from '../src/store/snapshot-repository';

export interface HoldingsBenchOptions {
  databaseUrl: string;
  scale: 'full' | 'quick' | 'tiny';
  log: (line: string) => void;
}

/** Owners, and the range of holdings each holds (spread evenly over the owners). */
const SIZES = {
  full: { owners: 1000, minHoldings: 200, maxHoldings: 1800, repeats: 30 },
  quick: { owners: 1000, minHoldings: 20, maxHoldings: 180, repeats: 20 },
  tiny: { owners: 1000, minHoldings: 1, maxHoldings: 3, repeats: 3 },
} as const;

const HOUR = 3_600_000_000n;
const DAY0 = parseTimestamp('2026-11-10T00:00:00Z');
const GOAL_MS = 50;

interface Timing {
  median: number;
  p99: number;
}

async function timed(work: () => Promise<unknown>, repeats: number): Promise<Timing> {
  for (let i = 0; i < 2; i++) await work();
  const ms: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const start = process.hrtime.bigint();
    await work();
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  ms.sort((a, b) => a - b);
  const mid = ms.length / 2;
  return {
    median: ms.length % 2 ? ms[Math.floor(mid)]! : (ms[mid - 1]! + ms[mid]!) / 2,
    p99: ms[Math.min(ms.length - 1, Math.ceil(0.99 * ms.length) - 1)]!,
  };
}

/**
 * Holdings of `owners` parties, created in [from, from + 3 h): owner i holds between min and max of
 * them; a tenth of them archived within the hour after (archived after their first snapshot).
 */
function insertHoldings(owners: number, min: number, max: number, from: bigint, prefix: string) {
  const t0 = formatRecordTime(from);
  return sql`insert into contracts (migration_id, contract_id, template_id, package_name, qualified_name, create_arguments, created_at,
      signatories, observers, created_record_time, archived_record_time, amulet_owner, amulet_initial_amount, amulet_created_round,
      amulet_rate_per_round, amulet_locked)
    select 0, ${prefix} || o || '-' || h, 'p:Splice.Amulet:Amulet', 'splice-amulet', 'Splice.Amulet:Amulet', '{}', ct,
      array[owner], '{}', ct, case when h % 10 = 0 then ct + interval '3 hours' else 'infinity' end, owner,
      -- Mostly whole amounts, some dust whose fee the clamp bounds.
      case when h % 50 = 1 then 0.0001 else (h % 997) + 1.5 end, h % 500, 0.0000190259, h % 7 = 0
    from generate_series(1, ${owners}) o
    cross join lateral generate_series(1, ${min} + (o * ${max - min}) / ${owners}) h
    cross join lateral (select ('party-' || o || '::1220' || md5(o::text)) as owner,
      ${t0}::timestamptz + (h * 7 + o) * interval '1 millisecond' as ct) x`;
}

export async function runHoldingsBench(options: HoldingsBenchOptions): Promise<string> {
  const { log } = options;
  const size = SIZES[options.scale];
  const pool = createPool({ connectionString: options.databaseUrl, max: 2 });
  const db = createDb(pool);
  const lines: string[] = [];
  const add = (line: string) => {
    lines.push(line);
    log(`  ${line}`);
  };
  try {
    await migrate(pool);
    await sql`select ensure_history_partitions(0, ${formatRecordTime(DAY0)}::timestamptz)`.execute(db);
    log(`holdings: ${size.owners} owners holding ${size.minHoldings}-${size.maxHoldings} amulets each`);
    await insertHoldings(size.owners, size.minHoldings, size.maxHoldings, DAY0 + HOUR, 'a').execute(db);
    await sql`vacuum analyze contracts`.execute(db);
    const first = DAY0 + 6n * HOUR;
    const since = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;
    let start = process.hrtime.bigint();
    const firstRow = await takeSnapshot(db, 0, undefined, first);
    const firstMs = since(start);
    start = process.hrtime.bigint();
    await deriveHoldingTotals(db, 0, first, HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT);
    const firstTotalsMs = since(start);
    // A window later, a tenth as many holdings more (and the archives of the first ones' tenth).
    await insertHoldings(size.owners, 1, Math.max(2, Math.floor(size.maxHoldings / 10)), first + HOUR, 'b').execute(db);
    const at = first + 3n * HOUR;
    start = process.hrtime.bigint();
    await takeSnapshot(db, 0, firstRow, at);
    const nextMs = since(start);
    start = process.hrtime.bigint();
    await deriveHoldingTotals(db, 0, at, HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT);
    const nextTotalsMs = since(start);
    // As autovacuum would have it: the visibility map lets the clamp candidates be read from the index alone.
    await sql`vacuum analyze contracts`.execute(db);
    const counts = await sql<{ active: string; all: string }>`
      select count(*) filter (where archived_record_time = 'infinity')::text as active, count(*)::text as all from contracts`.execute(db);
    const held = await sql<{ n: string }>`
      select count(*)::text as n from contracts where amulet_owner is not null
        and created_record_time <= ${formatRecordTime(at)}::timestamptz and archived_record_time > ${formatRecordTime(at)}::timestamptz`.execute(
      db,
    );
    add(
      `dataset: ${counts.rows[0]!.all} holdings stored, ${counts.rows[0]!.active} active; ${held.rows[0]!.n} held at the snapshot by ${size.owners} owners`,
    );
    add(
      `announcing the first snapshot: ${firstMs.toFixed(0)} ms, then its holdings totals (every holding once) ${firstTotalsMs.toFixed(0)} ms; ` +
        `the next one: ${nextMs.toFixed(0)} ms, then its totals ${nextTotalsMs.toFixed(0)} ms`,
    );

    const owners = (await sql<{ owner: string }>`select distinct amulet_owner as owner from contracts order by 1`.execute(db)).rows.map(
      (r) => r.owner,
    );
    const round = (await earliestOpenRound(db)) ?? 600n;
    const same =
      JSON.stringify(await holdingsTotals(db, 0, at, owners, round), (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ===
      JSON.stringify(await holdingsTotalsFromContracts(db, 0, at, owners, round), (_, v: unknown) =>
        typeof v === 'bigint' ? v.toString() : v,
      );
    if (!same) throw new Error('holdings totals differ from the sums over every holding');
    for (const [id, asOf] of [
      ['S1 (fees as of a round)', round],
      ['S2 (no fees)', undefined],
    ] as const) {
      const baseline = await timed(() => holdingsTotalsFromContracts(db, 0, at, owners, asOf), size.repeats);
      const totals = await timed(() => holdingsTotals(db, 0, at, owners, asOf), size.repeats);
      add(
        `${id} holdingsTotals, ${fmt(owners.length)} owners, median: ${totals.median.toFixed(1)} ms ` +
          `(p99 ${totals.p99.toFixed(1)}); every holding summed: ${baseline.median.toFixed(1)} ms (p99 ${baseline.p99.toFixed(1)}); ` +
          `ratio ${(totals.median / baseline.median).toFixed(3)}; goal ≤ ${GOAL_MS} ms: ${totals.median <= GOAL_MS ? 'met' : 'NOT met'}`,
      );
    }
    return lines.join('\n');
  } finally {
    await db.destroy();
  }
}

const fmt = (n: number) => n.toLocaleString('en-US');
