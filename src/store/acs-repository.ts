/**
 * Announced ACS snapshots and the temporal ACS at one of them. A contract is
 * active at (m, t) when migration_id = m and created_record_time <= t <
 * archived_record_time; pages are keyset ranges in creation order
 * (created_at, contract_id).
 *
 * `t` is always a snapshot time, a 3-hour boundary, so only contracts
 * archived after their created_slot can be active at it: the ACS indexes hold
 * only those (migration 20261123_002), and every query here states the same
 * condition so that PostgreSQL uses them. A page merges two parts:
 * - the contracts active now and created by t, from the indexes of the
 *   active contracts (bounded by the snapshot's highest created_at, so the
 *   last page stops there);
 * - the contracts archived after t: at a recent snapshot, read in full from
 *   the archive-time index (no more than were archived since the snapshot);
 *   at an old one, where that would be more than RECENT_ARCHIVES_LIMIT, by a
 *   walk of the history in creation order.
 * Filtered by party, pages come from contract_stakeholders, whose rows hold
 * both active and archived contracts.
 */
import { sql, type RawBuilder } from 'kysely';
import type { ActiveContract } from '../domain/active-contract';
import { formatRecordTime, fromPgTimestamp, type Micros } from '../domain/time';
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';

/** Keyset position: the creation key of the last contract of the previous page. */
export interface CreationKey {
  createdAt: Micros;
  contractId: string;
}

export interface TemplateRef {
  packageName: string;
  qualifiedName: string;
}

const ts = (t: Micros) => sql`${formatRecordTime(t)}::timestamptz`;

export const snapshotExists = repositoryOperation(
  'snapshotExists',
  async function snapshotExists(db: Db, migrationId: number, at: Micros): Promise<boolean> {
    const row = await sql<{ one: number }>`
    select 1 as one from acs_snapshots where migration_id = ${migrationId} and record_time = ${ts(at)}`.execute(db);
    return row.rows.length > 0;
  },
);

/** The newest snapshot of the migration at or before `at`. */
export const snapshotAtOrBefore = repositoryOperation(
  'snapshotAtOrBefore',
  async function snapshotAtOrBefore(db: Db, migrationId: number, at: Micros): Promise<Micros | undefined> {
    const row = await sql<{ record_time: string }>`
    select record_time from acs_snapshots
    where migration_id = ${migrationId} and record_time <= ${ts(at)}
    order by record_time desc limit 1`.execute(db);
    const r = row.rows[0];
    return r ? fromPgTimestamp(r.record_time) : undefined;
  },
);

/**
 * The earliest of: the first snapshot of the migration strictly after `after`,
 * and the first snapshot of any later migration regardless of time (Splice AcsSnapshotStore.lookupSnapshotAfter).
 */
export const firstSnapshotAfter = repositoryOperation(
  'firstSnapshotAfter',
  async function firstSnapshotAfter(db: Db, migrationId: number, after: Micros): Promise<Micros | undefined> {
    const row = await sql<{ record_time: string }>`
    select record_time from (
      (select record_time from acs_snapshots
       where migration_id = ${migrationId} and record_time > ${ts(after)}
       order by record_time limit 1)
      union all
      (select record_time from acs_snapshots
       where migration_id > ${migrationId}
       order by record_time limit 1)
    ) candidates
    order by record_time limit 1`.execute(db);
    const r = row.rows[0];
    return r ? fromPgTimestamp(r.record_time) : undefined;
  },
);

interface ContractRow {
  created_in_update_id: string | null;
  contract_id: string;
  template_id: string;
  package_name: string;
  create_arguments: string;
  created_at: string;
  signatories: string[];
  observers: string[];
}

function toActiveContract(r: ContractRow): ActiveContract {
  return {
    createdInUpdateId: r.created_in_update_id,
    contractId: r.contract_id,
    templateId: r.template_id,
    packageName: r.package_name,
    createArgumentsJson: r.create_arguments,
    createdAt: fromPgTimestamp(r.created_at),
    signatories: r.signatories,
    observers: r.observers,
  };
}

export const afterKey = (after: CreationKey | undefined): RawBuilder<unknown> =>
  after ? sql`and (created_at, contract_id) > (${ts(after.createdAt)}, ${after.contractId})` : sql``;

const activeAt = (at: Micros): RawBuilder<unknown> => sql`created_record_time <= ${ts(at)} and archived_record_time > ${ts(at)}`;

/** Contracts in some snapshot: the predicate of the partial ACS indexes. */
const IN_SOME_SNAPSHOT = sql`archived_record_time > created_slot`;

/** The archive time of an active contract, as a page column (the active partition's indexes do not hold it). */
export const ACTIVE = sql`'infinity'::timestamptz as archived_record_time`;

/** Active now and created by t (the partial indexes of the active contracts). */
export const activeNowCreatedBy = (at: Micros): RawBuilder<unknown> =>
  sql`archived_record_time = 'infinity' and created_record_time <= ${ts(at)}`;

/** Archived after t, created by t, in some snapshot (the partial indexes of the history). */
export const archivedAfter = (at: Micros): RawBuilder<unknown> =>
  sql`archived_record_time > ${ts(at)} and archived_record_time < 'infinity' and ${IN_SOME_SNAPSHOT} and created_record_time <= ${ts(at)}`;

/**
 * Above this many contracts archived since a snapshot, pages at it walk the
 * history in creation order rather than read every contract archived since.
 */
const RECENT_ARCHIVES_LIMIT = 20_000;

/** What bounds the pages at a snapshot (from its row and the writer's per-slot counts). */
export interface SnapshotBounds {
  /** Highest created_at of the snapshot's contracts: no page reads past it (undefined: unknown). */
  maxCreatedAt: Micros | undefined;
  /** Whether the contracts archived since the snapshot are few enough to read in full. */
  recent: boolean;
}

export const snapshotBounds = repositoryOperation(
  'snapshotBounds',
  async function snapshotBounds(db: Db, migrationId: number, at: Micros): Promise<SnapshotBounds> {
    const { rows } = await sql<{ max_created_at: string | null; archived_since: string }>`
    select (select max_created_at from acs_snapshots where migration_id = ${migrationId} and record_time = ${ts(at)}) as max_created_at,
           (select coalesce(sum(archived_count), 0) from acs_deltas where migration_id = ${migrationId} and slot > ${ts(at)})::text
             as archived_since`.execute(db);
    const r = rows[0]!;
    return {
      maxCreatedAt: r.max_created_at === null ? undefined : fromPgTimestamp(r.max_created_at),
      recent: BigInt(r.archived_since) <= BigInt(RECENT_ARCHIVES_LIMIT),
    };
  },
);

/** No entry past the snapshot's highest created_at. */
export const createdBy = (bounds: SnapshotBounds): RawBuilder<unknown> =>
  bounds.maxCreatedAt === undefined ? sql`` : sql`and created_at <= ${ts(bounds.maxCreatedAt)}`;

/**
 * Fetches the full rows of a page of contract ids chosen by `page` (a query
 * returning contract_id, created_at and archived_record_time, already ordered
 * and limited), in creation order. Choosing the page first lets it run as an
 * index-only scan; the archive time names the one partition each row is in.
 */
export const fetchPage = repositoryOperation(
  'fetchPage',
  async function fetchPage(db: Db, migrationId: number, page: RawBuilder<unknown>): Promise<ActiveContract[]> {
    const rows = await sql<ContractRow>`
    with page as materialized (${page})
    select c.created_in_update_id, c.contract_id, c.template_id, c.package_name, c.create_arguments,
           c.created_at, c.signatories, c.observers
    from page join contracts c on c.migration_id = ${migrationId} and c.contract_id = page.contract_id
      and c.archived_record_time = page.archived_record_time
    order by page.created_at, page.contract_id`.execute(db);
    return rows.rows.map(toActiveContract);
  },
);

export interface AcsPageQuery {
  migrationId: number;
  at: Micros;
  after: CreationKey | undefined;
  limit: number;
  /** Stakeholders (signatories or observers); empty: any. */
  parties: string[];
  /** Templates by package name and qualified name; empty: any. */
  templates: TemplateRef[];
}

/**
 * Above this many (party, template) pairs, a page filtered by both walks each
 * party's range and checks the template on the way instead of probing one
 * range per pair.
 */
export const MAX_PAIR_RANGES = 1000;

/**
 * One page of the ACS at (migrationId, at), in creation order. Unfiltered, it
 * is a keyset range of contracts_by_created_at. Filtered, it merges one range
 * per requested template (contracts_by_template_created_at), party
 * (contract_stakeholders) or (party, template) pair
 * (contract_stakeholders_by_template), each of at most `limit` entries, so a
 * page costs the same for a rare party or template, and deep into the ACS, as
 * an unfiltered page.
 */
export const acsPage = repositoryOperation('acsPage', async function acsPage(db: Db, q: AcsPageQuery): Promise<ActiveContract[]> {
  const parties = [...new Set(q.parties)];
  const templateKeys = new Map(q.templates.map((t) => [`${t.packageName}:${t.qualifiedName}`, t]));
  const templates = [...templateKeys.values()];
  const packageNames = templates.map((t) => t.packageName);
  const qualifiedNames = templates.map((t) => t.qualifiedName);
  const order = sql`order by created_at, contract_id limit ${q.limit}`;
  let page: RawBuilder<unknown>;
  if (parties.length === 0) {
    const bounds = await snapshotBounds(db, q.migrationId, q.at);
    const bound = sql`${afterKey(q.after)} ${createdBy(bounds)}`;
    // A contract has one template: per-template ranges are disjoint.
    const byTemplate = templates.length > 0;
    const templateKey = sql`unnest(${packageNames}::text[], ${qualifiedNames}::text[]) as k(package_name, qualified_name)`;
    const active = byTemplate
      ? sql`select p.contract_id, p.created_at, ${ACTIVE} from ${templateKey} cross join lateral (
            select contract_id, created_at from contracts
            where migration_id = ${q.migrationId} and package_name = k.package_name and qualified_name = k.qualified_name
              and ${activeNowCreatedBy(q.at)} ${bound} ${order}) p`
      : sql`select contract_id, created_at, ${ACTIVE} from contracts
            where migration_id = ${q.migrationId} and ${activeNowCreatedBy(q.at)} ${bound} ${order}`;
    let history: RawBuilder<unknown>;
    if (bounds.recent) {
      // Materialized without an order: read as one range of the archive-time index.
      history = sql`select contract_id, created_at, archived_record_time from (
          select contract_id, created_at, archived_record_time, package_name, qualified_name from contracts
          where migration_id = ${q.migrationId} and ${archivedAfter(q.at)} ${bound} offset 0) h
        ${byTemplate ? sql`where (h.package_name, h.qualified_name) in (select * from ${templateKey})` : sql``}`;
    } else {
      history = byTemplate
        ? sql`select p.contract_id, p.created_at, p.archived_record_time from ${templateKey} cross join lateral (
              select contract_id, created_at, archived_record_time from contracts
              where migration_id = ${q.migrationId} and package_name = k.package_name and qualified_name = k.qualified_name
                and ${archivedAfter(q.at)} ${bound} ${order}) p`
        : sql`select contract_id, created_at, archived_record_time from contracts
              where migration_id = ${q.migrationId} and ${archivedAfter(q.at)} ${bound} ${order}`;
    }
    page = sql`select contract_id, created_at, archived_record_time from ((${active}) union all (${history})) x ${order}`;
  } else {
    const range = sql`${activeAt(q.at)} ${afterKey(q.after)}
          order by created_at, contract_id
          limit ${q.limit}`;
    // A contract is in the range of each of its requested stakeholders: distinct. The first
    // `limit` distinct contracts are each among the first `limit` entries of some range.
    let ranges: RawBuilder<unknown>;
    if (templates.length === 0) {
      ranges = sql`unnest(${parties}::text[]) as o(party)
        cross join lateral (
          select contract_id, created_at, archived_record_time from contract_stakeholders
          where migration_id = ${q.migrationId} and party = o.party and ${range}
        ) p`;
    } else if (parties.length * templates.length <= MAX_PAIR_RANGES) {
      ranges = sql`unnest(${parties}::text[]) as o(party)
        cross join unnest(${packageNames}::text[], ${qualifiedNames}::text[]) as k(package_name, qualified_name)
        cross join lateral (
          select contract_id, created_at, archived_record_time from contract_stakeholders
          where migration_id = ${q.migrationId} and party = o.party
            and package_name = k.package_name and qualified_name = k.qualified_name and ${range}
        ) p`;
    } else {
      ranges = sql`unnest(${parties}::text[]) as o(party)
        cross join lateral (
          select contract_id, created_at, archived_record_time from contract_stakeholders
          where migration_id = ${q.migrationId} and party = o.party
            and (package_name, qualified_name) in (
              select * from unnest(${packageNames}::text[], ${qualifiedNames}::text[]))
            and ${range}
        ) p`;
    }
    page = sql`select distinct p.contract_id, p.created_at, p.archived_record_time from ${ranges}
        order by p.created_at, p.contract_id
        limit ${q.limit}`;
  }
  return fetchPage(db, q.migrationId, page);
});
