/**
 * The current ACS as the Scan app's DSO store holds it: live contracts
 * (archived_record_time = 'infinity') of the current migration, i.e. the
 * highest migration id with ingested data. Contracts of earlier migrations
 * stay "live" in the temporal ACS (nothing archives them after a hard
 * migration), so every query here is limited to the current migration, as
 * Scan's store is to its domainMigrationId.
 *
 * Indexes: contracts_by_template_created_at (the active contracts of a
 * template in a migration; the few of each listed template are sorted after
 * the range) for rounds, vote requests, rules and node states;
 * contracts_active_ans_by_migration_name for ANS entries by name.
 */
import { sql, type RawBuilder } from 'kysely';
import type { AnsEntryView, StoredContract } from '../domain/contract-json';
import type { Json } from '../domain/json';
import { SPLICE, type TemplateKey } from '../domain/splice-contracts';
import { formatRecordTime, fromPgTimestamp, type Micros } from '../domain/time';
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';

const CURRENT_MIGRATION = sql<number>`(select max(migration_id) from migrations)`;

/** The created-event blob of the contract `c` ('' when the source gave none): a primary-key lookup per contract served. */
const BLOB_OF_C = sql<string>`coalesce((select b.blob from contract_blobs b where b.contract_id = c.contract_id), '')`;

/** The Scan app's store answers at most this many contracts per list (its default limit). */
const LIVE_LIST_LIMIT = 1000;

function liveOf(db: Db, template: TemplateKey) {
  return db
    .selectFrom('contracts')
    .select(['template_id', 'contract_id', 'create_arguments', 'created_at', 'synchronizer_id'])
    .select(
      sql<string>`coalesce((select b.blob from contract_blobs b where b.contract_id = contracts.contract_id), '')`.as('created_event_blob'),
    )
    .where('package_name', '=', template.packageName)
    .where('qualified_name', '=', template.qualifiedName)
    .where('archived_record_time', '=', 'infinity')
    .where('migration_id', '=', CURRENT_MIGRATION);
}

type Row = {
  template_id: string;
  contract_id: string;
  create_arguments: string;
  created_event_blob: string;
  created_at: string;
  synchronizer_id: string | null;
};

function toStored(row: Row): StoredContract {
  return {
    templateId: row.template_id,
    contractId: row.contract_id,
    payload: row.create_arguments,
    createdEventBlob: row.created_event_blob,
    createdAt: fromPgTimestamp(row.created_at),
    synchronizerId: row.synchronizer_id,
  };
}

/** Live mining rounds of one template, by round number (then ingestion order). */
export const listLiveRounds = repositoryOperation(
  'listLiveRounds',
  async function listLiveRounds(db: Db, template: TemplateKey, limit: number = LIVE_LIST_LIMIT): Promise<StoredContract[]> {
    const rows = await liveOf(db, template).orderBy('round_number').orderBy('ingest_seq').limit(limit).execute();
    return rows.map(toStored);
  },
);

/**
 * Ingestion order (the Scan store's event number), made the same on every instance: contracts
 * without a creating update (imported over a hard migration, or assigned) arrive in whatever order
 * the source lists them, so those are ordered by contract id.
 */
function inIngestionOrder(query: ReturnType<typeof liveOf>) {
  return query
    .orderBy('created_record_time')
    .orderBy(sql`case when created_in_update_id is null then contract_id end`)
    .orderBy('ingest_seq');
}

/** Live contracts of one template in ingestion order. */
export const listLiveContracts = repositoryOperation(
  'listLiveContracts',
  async function listLiveContracts(db: Db, template: TemplateKey, limit: number = LIVE_LIST_LIMIT): Promise<StoredContract[]> {
    const rows = await inIngestionOrder(liveOf(db, template)).limit(limit).execute();
    return rows.map(toStored);
  },
);

/** Live contracts of a template that have no created-event blob yet, in ingestion order (a mirror asks its upstream for them). */
export const listLiveContractsWithoutBlob = repositoryOperation(
  'listLiveContractsWithoutBlob',
  async function listLiveContractsWithoutBlob(db: Db, template: TemplateKey, limit: number): Promise<StoredContract[]> {
    const rows = await inIngestionOrder(
      liveOf(db, template).where((eb) =>
        eb.not(
          eb.exists(eb.selectFrom('contract_blobs as b').select('b.contract_id').whereRef('b.contract_id', '=', 'contracts.contract_id')),
        ),
      ),
    )
      .limit(limit)
      .execute();
    return rows.map(toStored);
  },
);

/**
 * Live vote requests by tracking id: a request's `trackingCid`, or its own contract id while
 * no vote has been cast on it (each cast re-creates the request under a new id), as the Scan
 * store's vote_request_tracking_cid column has it.
 */
export const listLiveVoteRequestsByTrackingCid = repositoryOperation(
  'listLiveVoteRequestsByTrackingCid',
  async function listLiveVoteRequestsByTrackingCid(
    db: Db,
    trackingCids: string[],
    limit: number = LIVE_LIST_LIMIT,
  ): Promise<StoredContract[]> {
    if (trackingCids.length === 0) return [];
    const tracked = liveOf(db, SPLICE.voteRequest).where(
      sql<boolean>`coalesce(create_arguments::jsonb ->> 'trackingCid', contract_id) = any(${trackingCids}::text[])`,
    );
    const rows = await inIngestionOrder(tracked).limit(limit).execute();
    return rows.map(toStored);
  },
);

/**
 * A page of the live contracts of a template in ingestion order, after the
 * ingestion number `after` (the Scan store's event number as page token),
 * with the number of the last one when the page is full.
 */
export const pageLiveContracts = repositoryOperation(
  'pageLiveContracts',
  async function pageLiveContracts(
    db: Db,
    template: TemplateKey,
    after: bigint | undefined,
    limit: number,
  ): Promise<{ contracts: StoredContract[]; next: bigint | undefined }> {
    let query = liveOf(db, template).select('ingest_seq');
    if (after !== undefined) query = query.where(sql<boolean>`ingest_seq > ${after.toString()}::bigint`);
    const rows = await query.orderBy('ingest_seq').limit(limit).execute();
    const last = rows.at(-1);
    return { contracts: rows.map(toStored), next: rows.length === limit && last ? BigInt(String(last.ingest_seq)) : undefined };
  },
);

/** The most recently ingested live contract of a template (DsoRules, which has one live contract). */
export const findLatestLiveContract = repositoryOperation(
  'findLatestLiveContract',
  async function findLatestLiveContract(db: Db, template: TemplateKey): Promise<StoredContract | undefined> {
    const row = await liveOf(db, template).orderBy('ingest_seq', 'desc').limit(1).executeTakeFirst();
    return row ? toStored(row) : undefined;
  },
);

/** Parses a stored compact_json payload. */
export function payloadOf(contract: StoredContract): Json {
  return JSON.parse(contract.payload) as Json;
}

/**
 * Live AnsEntry contracts whose name starts with `prefix` (case-sensitive, no
 * wildcards) and that expire at or after `now`, ordered by name in code-point
 * order (collation "C", whatever the database's default collation is).
 */
type AnsRow = { contract_id: string; create_arguments: string; ans_user: string; ans_name: string; ans_expires_at: string };

function ansEntryOf(r: AnsRow): AnsEntryView {
  const payload = JSON.parse(r.create_arguments) as { url?: unknown; description?: unknown };
  return {
    contractId: r.contract_id,
    user: r.ans_user,
    name: r.ans_name,
    url: typeof payload.url === 'string' ? payload.url : '',
    description: typeof payload.description === 'string' ? payload.description : '',
    expiresAt: fromPgTimestamp(r.ans_expires_at),
  };
}

/** Live, unexpired AnsEntry contracts of the current migration matching `condition`, by name (collation "C"). */
async function liveAnsEntries(db: Db, condition: RawBuilder<unknown>, now: Micros, limit: number): Promise<AnsEntryView[]> {
  const rows = await sql<AnsRow>`
    select contract_id, create_arguments, ans_user, ans_name, ans_expires_at
    from contracts
    where archived_record_time = 'infinity' and ans_name is not null
      and migration_id = ${CURRENT_MIGRATION}
      and ${condition}
      and ans_expires_at >= ${formatRecordTime(now)}::timestamptz
    order by ans_name collate "C"
    limit ${limit}`.execute(db);
  return rows.rows.map(ansEntryOf);
}

/**
 * Live AnsEntry contracts whose name starts with `prefix` (case-sensitive, no
 * wildcards) and that expire at or after `now`, ordered by name in code-point
 * order (collation "C", whatever the database's default collation is).
 */
export const listLiveAnsEntries = repositoryOperation(
  'listLiveAnsEntries',
  function listLiveAnsEntries(db: Db, prefix: string, now: Micros, limit: number): Promise<AnsEntryView[]> {
    return liveAnsEntries(db, sql`(ans_name collate "C") ^@ ${prefix}`, now, limit);
  },
);

/** The unexpired AnsEntry of this name, if any. */
export const findAnsEntryByName = repositoryOperation(
  'findAnsEntryByName',
  async function findAnsEntryByName(db: Db, name: string, now: Micros): Promise<AnsEntryView | undefined> {
    return (await liveAnsEntries(db, sql`(ans_name collate "C") = ${name}`, now, 1))[0];
  },
);

/** The first (by name) unexpired AnsEntry of this user, if any (contracts_active_ans_by_user). */
export const findAnsEntryByUser = repositoryOperation(
  'findAnsEntryByUser',
  async function findAnsEntryByUser(db: Db, user: string, now: Micros): Promise<AnsEntryView | undefined> {
    return (await liveAnsEntries(db, sql`ans_user = ${user}`, now, 1))[0];
  },
);

/** A live FeaturedAppRight of this provider in the current migration, if any (the Scan app takes any one). */
export const findFeaturedAppRight = repositoryOperation(
  'findFeaturedAppRight',
  async function findFeaturedAppRight(db: Db, provider: string): Promise<StoredContract | undefined> {
    // Featured apps are few: the template's range of live contracts, filtered by the payload's provider.
    const row = await liveOf(db, SPLICE.featuredAppRight)
      .where(sql<boolean>`(create_arguments::jsonb ->> 'provider') = ${provider}`)
      .orderBy('ingest_seq')
      .limit(1)
      .executeTakeFirst();
    return row ? toStored(row) : undefined;
  },
);

/** Every live FeaturedAppRight of this provider in the current migration, in ingestion order. */
export const listFeaturedAppRightsOfProvider = repositoryOperation(
  'listFeaturedAppRightsOfProvider',
  async function listFeaturedAppRightsOfProvider(db: Db, provider: string): Promise<StoredContract[]> {
    const rows = await inIngestionOrder(
      liveOf(db, SPLICE.featuredAppRight).where(sql<boolean>`(create_arguments::jsonb ->> 'provider') = ${provider}`),
    )
      .limit(LIVE_LIST_LIMIT)
      .execute();
    return rows.map(toStored);
  },
);

/**
 * The newest live contract of a template in the current migration whose
 * payload field `field` is `party`, who must be one of its stakeholders: a
 * range of contract_stakeholders_by_template (the party's contracts of that
 * template, live ones told by the INCLUDEd archive time), so that the cost is
 * the party's own contracts of the template, not the template's.
 */
/**
 * The live contracts of a template whose payload `field` names one of `parties`, in ingestion
 * order, through the stakeholder index (the party must be a stakeholder, as the named
 * validator, receiver or sender of these templates is).
 */
export const listLiveContractsOfParties = repositoryOperation(
  'listLiveContractsOfParties',
  async function listLiveContractsOfParties(
    db: Db,
    template: TemplateKey,
    field: string,
    parties: string[],
    limit: number = LIVE_LIST_LIMIT,
  ): Promise<StoredContract[]> {
    if (parties.length === 0) return [];
    const { rows } = await sql<Row>`
    select c.template_id, c.contract_id, c.create_arguments, ${BLOB_OF_C} as created_event_blob, c.created_at, c.synchronizer_id
    from contract_stakeholders s
    join contracts c on c.migration_id = s.migration_id and c.contract_id = s.contract_id
      and c.archived_record_time = s.archived_record_time
    where s.migration_id = ${CURRENT_MIGRATION} and s.party = any(${parties}::text[])
      and s.package_name = ${template.packageName} and s.qualified_name = ${template.qualifiedName}
      and s.archived_record_time = 'infinity'
      and (c.create_arguments::jsonb ->> ${field}) = s.party
    order by c.ingest_seq
    limit ${limit}`.execute(db);
    return rows.map(toStored);
  },
);

/** The latest event of a TransferCommand, with the command's contract (live or not). */
export interface TransferCommandLatest {
  contract: StoredContract;
  state: string;
  reason: string | null;
}

/**
 * The commands of a sender and nonce (normally one; more when a nonce was reused), each with its
 * latest event, at most `limit`, in the order of those events; a command whose contract is not
 * stored is left out, as the Scan app leaves out what its update history does not hold yet.
 */
export const latestTransferCommands = repositoryOperation(
  'latestTransferCommands',
  async function latestTransferCommands(db: Db, sender: string, nonce: bigint, limit: number): Promise<TransferCommandLatest[]> {
    const { rows } = await sql<Row & { state: string; reason: string | null }>`
    with latest as (
      select distinct on (e.contract_id) e.contract_id, e.state, e.reason, e.ingest_seq
      from transfer_command_events e
      where e.sender = ${sender} and e.nonce = ${nonce.toString()}::bigint
      order by e.contract_id, e.ingest_seq desc
    )
    select l.state, l.reason, c.template_id, c.contract_id, c.create_arguments, c.created_event_blob, c.created_at, c.synchronizer_id
    from (select * from latest order by ingest_seq limit ${limit}) l
    cross join lateral (
      select c.template_id, c.contract_id, c.create_arguments, ${BLOB_OF_C} as created_event_blob, c.created_at, c.synchronizer_id
      from migrations m join contracts c on c.migration_id = m.migration_id and c.contract_id = l.contract_id
      order by m.migration_id desc
      limit 1
    ) c
    order by l.ingest_seq`.execute(db);
    return rows.map((r) => ({ contract: toStored(r), state: r.state, reason: r.reason }));
  },
);

export const findLiveContractOfParty = repositoryOperation(
  'findLiveContractOfParty',
  async function findLiveContractOfParty(db: Db, template: TemplateKey, field: string, party: string): Promise<StoredContract | undefined> {
    const { rows } = await sql<Row>`
    select c.template_id, c.contract_id, c.create_arguments, ${BLOB_OF_C} as created_event_blob, c.created_at, c.synchronizer_id
    from contract_stakeholders s
    join contracts c on c.migration_id = s.migration_id and c.contract_id = s.contract_id
      and c.archived_record_time = s.archived_record_time
    where s.migration_id = ${CURRENT_MIGRATION} and s.party = ${party}
      and s.package_name = ${template.packageName} and s.qualified_name = ${template.qualifiedName}
      and s.archived_record_time = 'infinity'
      and (c.create_arguments::jsonb ->> ${field}) = ${party}
    order by s.created_at desc, s.contract_id desc
    limit 1`.execute(db);
    return rows[0] ? toStored(rows[0]) : undefined;
  },
);

/** The newest record time of any ingested non-import update, if any (the "ledger" clock). */
export const latestRecordTime = repositoryOperation('latestRecordTime', async function latestRecordTime(db: Db): Promise<
  Micros | undefined
> {
  const row = await db
    .selectFrom('migration_synchronizers')
    .select((eb) => eb.fn.max('max_record_time').as('latest'))
    .executeTakeFirst();
  return row?.latest ? fromPgTimestamp(row.latest) : undefined;
});

/** The live contract of this id in the current migration, if it is of the template (Scan's typed lookupContractById). */
export const findLiveContractById = repositoryOperation(
  'findLiveContractById',
  async function findLiveContractById(db: Db, template: TemplateKey, contractId: string): Promise<StoredContract | undefined> {
    const row = await liveOf(db, template).where('contract_id', '=', contractId).executeTakeFirst();
    return row ? toStored(row) : undefined;
  },
);

/** The live contracts of a template among `contractIds`, in the order of the ids (each once; unknown, archived and other templates' ids left out). */
export const findLiveContractsByIds = repositoryOperation(
  'findLiveContractsByIds',
  async function findLiveContractsByIds(db: Db, template: TemplateKey, contractIds: readonly string[]): Promise<StoredContract[]> {
    const ids = [...new Set(contractIds)];
    if (ids.length === 0) return [];
    const rows = await liveOf(db, template).where('contract_id', 'in', ids).execute();
    const byId = new Map(rows.map((row) => [row.contract_id, toStored(row)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  },
);

/**
 * The create_arguments of the newest OpenMiningRound ingested for a round number, archived or not, in any
 * migration (the Scan app keeps one tx-log entry per OpenMiningRound create and reads the newest of the round).
 */
export const findNewestOpenRoundPayload = repositoryOperation(
  'findNewestOpenRoundPayload',
  async function findNewestOpenRoundPayload(db: Db, round: bigint): Promise<string | undefined> {
    const row = await db
      .selectFrom('contracts')
      .select('create_arguments')
      .where('package_name', '=', SPLICE.openMiningRound.packageName)
      .where('qualified_name', '=', SPLICE.openMiningRound.qualifiedName)
      .where('round_number', '=', sql<number>`${round.toString()}::bigint`)
      .orderBy('ingest_seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.create_arguments;
  },
);
