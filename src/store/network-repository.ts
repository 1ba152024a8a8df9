/**
 * Network facts: the DSO party (from the ACS) and the current migration id
 * (from the migrations table), and the facts no contract carries (LSU
 * announcements) from network_facts. No source records LSU facts yet, so they
 * are empty unless written there (the setters below are for such a source).
 */
import { sql } from 'kysely';
import { SPLICE } from '../domain/splice-contracts';
import { parseTimestamp, type Micros } from '../domain/time';
import { markChangedFamilies } from './answer-versions-repository';
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';

export const findDsoPartyId = repositoryOperation('findDsoPartyId', async function findDsoPartyId(db: Db): Promise<string | undefined> {
  // The newest migration with a live DsoRules: the migrations with live contracts, newest first, each
  // found in one step of the active-contract index (a loose index scan), then one range of the
  // template index in each.
  const { rows } = await sql<{ dso_party: string }>`
    with recursive live(migration_id) as (
      select max(migration_id) from contracts where archived_record_time = 'infinity'
      union all
      select (select max(c.migration_id) from contracts c where c.archived_record_time = 'infinity' and c.migration_id < live.migration_id)
      from live where live.migration_id is not null)
    select c.dso_party from live
    cross join lateral (
      select dso_party from contracts
      where migration_id = live.migration_id and package_name = ${SPLICE.dsoRules.packageName}
        and qualified_name = ${SPLICE.dsoRules.qualifiedName} and archived_record_time = 'infinity' and dso_party is not null
      limit 1) c
    limit 1`.execute(db);
  if (rows[0]) return rows[0].dso_party;
  const fact = await getNetworkFact(db, 'dso_party_id');
  return typeof fact === 'string' ? fact : undefined;
});

/** The highest migration id with ingested data, if any. */
export const findLastMigrationId = repositoryOperation('findLastMigrationId', async function findLastMigrationId(db: Db): Promise<
  number | undefined
> {
  const row = await db
    .selectFrom('migrations')
    .select((eb) => eb.fn.max('migration_id').as('max'))
    .executeTakeFirst();
  return row?.max === null || row?.max === undefined ? undefined : Number(row.max);
});

const getNetworkFact = repositoryOperation('getNetworkFact', async function getNetworkFact(db: Db, key: string): Promise<unknown> {
  const row = await db.selectFrom('network_facts').select('value').where('key', '=', key).executeTakeFirst();
  return row ? (JSON.parse(row.value) as unknown) : undefined;
});

export const setNetworkFact = repositoryOperation(
  'setNetworkFact',
  async function setNetworkFact(db: Db, key: string, value: unknown): Promise<void> {
    const json = JSON.stringify(value);
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('network_facts')
        .values({ key, value: json })
        .onConflict((oc) => oc.column('key').doUpdateSet({ value: json, updated_at: sql<string>`now()` }))
        .execute();
      // The DSO party id falls back to a fact: kept answers are made again after the commit.
      await markChangedFamilies(trx, ['networkFacts']);
    });
  },
);

/** network_facts keys of the LSU facts (no source records them yet); values are JSON objects of the fields below, times as timestamps. */
const LSU_FACT = 'lsu';
const ROLL_FORWARD_LSU_FACT = 'roll_forward_lsu';

/** The next logical synchronizer upgrade announced on the current synchronizer (Scan: from its participant). */
export interface LsuAnnouncement {
  topologyFreezeTime: Micros;
  upgradeTime: Micros;
  successorPhysicalSynchronizerId: string;
}

export interface RollForwardLsu {
  upgradeTime: Micros;
  currentPhysicalSynchronizerId: string;
  successorPhysicalSynchronizerId: string;
}

function readFact<T>(key: string, value: unknown, times: (keyof T)[], ids: (keyof T)[]): T {
  const bad = () => new Error(`network fact '${key}' has an unexpected shape: ${JSON.stringify(value)}`);
  if (typeof value !== 'object' || value === null) throw bad();
  const stored = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of times) {
    const v = stored[k as string];
    if (typeof v !== 'string') throw bad();
    out[k as string] = parseTimestamp(v);
  }
  for (const k of ids) {
    const v = stored[k as string];
    if (typeof v !== 'string') throw bad();
    out[k as string] = v;
  }
  return out as T;
}

/** The LSU announcement a source recorded, if any. */
export const findLsuAnnouncement = repositoryOperation('findLsuAnnouncement', async function findLsuAnnouncement(db: Db): Promise<
  LsuAnnouncement | undefined
> {
  const value = await getNetworkFact(db, LSU_FACT);
  if (value === undefined || value === null) return undefined;
  return readFact<LsuAnnouncement>(LSU_FACT, value, ['topologyFreezeTime', 'upgradeTime'], ['successorPhysicalSynchronizerId']);
});

/** The roll-forward LSU a source recorded, if any (configuration takes precedence; see network-routes). */
export const findRollForwardLsu = repositoryOperation('findRollForwardLsu', async function findRollForwardLsu(db: Db): Promise<
  RollForwardLsu | undefined
> {
  const value = await getNetworkFact(db, ROLL_FORWARD_LSU_FACT);
  if (value === undefined || value === null) return undefined;
  return readFact<RollForwardLsu>(
    ROLL_FORWARD_LSU_FACT,
    value,
    ['upgradeTime'],
    ['currentPhysicalSynchronizerId', 'successorPhysicalSynchronizerId'],
  );
});
