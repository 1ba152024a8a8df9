/** Network facts: the DSO party and the current migration id, from the ACS and network_facts. */
import { sql } from 'kysely';
import { SPLICE } from '../domain/splice-contracts';
import type { Db } from './pool';


export async function findDsoPartyId(db: Db): Promise<string | undefined> {
  const fromAcs = await db
    .selectFrom('contracts')
    .select('dso_party')
    .where('package_name', '=', SPLICE.dsoRules.packageName)
    .where('qualified_name', '=', SPLICE.dsoRules.qualifiedName)
    .where('archived_record_time', '=', 'infinity')
    .where('dso_party', 'is not', null)
    .orderBy('migration_id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (fromAcs?.dso_party) return fromAcs.dso_party;
  const fact = await getNetworkFact(db, 'dso_party_id');
  return typeof fact === 'string' ? fact : undefined;
}

/** The highest migration id with ingested data, if any. */
export async function findLastMigrationId(db: Db): Promise<number | undefined> {
  const row = await db.selectFrom('migrations').select((eb) => eb.fn.max('migration_id').as('max')).executeTakeFirst();
  return row?.max === null || row?.max === undefined ? undefined : Number(row.max);
}

export async function getNetworkFact(db: Db, key: string): Promise<unknown> {
  const row = await db.selectFrom('network_facts').select('value').where('key', '=', key).executeTakeFirst();
  return row ? (JSON.parse(row.value) as unknown) : undefined;
}

export async function setNetworkFact(db: Db, key: string, value: unknown): Promise<void> {
  const json = JSON.stringify(value);
  await db
    .insertInto('network_facts')
    .values({ key, value: json })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: json, updated_at: sql<string>`now()` }))
    .execute();
}
