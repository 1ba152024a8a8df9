/**
 * Announced ACS snapshots and the temporal ACS at one of them. A contract is
 * active at (m, t) when migration_id = m and created_record_time <= t <
 * archived_record_time (design.md); pages are keyset ranges in creation order
 * (created_at, contract_id), read from contracts_by_created_at or, filtered,
 * from contracts_by_template_created_at and contract_stakeholders.
 */
import { sql, type RawBuilder } from 'kysely';
import type { ActiveContract } from '../domain/active-contract';
import { formatRecordTime, fromPgTimestamp, type Micros } from '../domain/time';
import type { Db } from './pool';

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

export async function snapshotExists(db: Db, migrationId: number, at: Micros): Promise<boolean> {
  const row = await sql<{ one: number }>`
    select 1 as one from acs_snapshots where migration_id = ${migrationId} and record_time = ${ts(at)}`.execute(db);
  return row.rows.length > 0;
}

/** The newest snapshot of the migration at or before `at`. */
export async function snapshotAtOrBefore(db: Db, migrationId: number, at: Micros): Promise<Micros | undefined> {
  const row = await sql<{ record_time: string }>`
    select record_time from acs_snapshots
    where migration_id = ${migrationId} and record_time <= ${ts(at)}
    order by record_time desc limit 1`.execute(db);
  const r = row.rows[0];
  return r ? fromPgTimestamp(r.record_time) : undefined;
}

/**
 * The earliest of: the first snapshot of the migration strictly after `after`,
 * and the first snapshot of any later migration regardless of time (reference §5.2).
 */
export async function firstSnapshotAfter(db: Db, migrationId: number, after: Micros): Promise<Micros | undefined> {
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
}

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

export function toActiveContract(r: ContractRow): ActiveContract {
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

export const activeAt = (at: Micros): RawBuilder<unknown> =>
  sql`created_record_time <= ${ts(at)} and archived_record_time > ${ts(at)}`;

/**
 * Fetches the full rows of a page of contract ids chosen by `page` (a query
 * returning contract_id and created_at, already ordered and limited), in
 * creation order. Choosing the page first lets it run as an index-only scan.
 */
export async function fetchPage(db: Db, migrationId: number, page: RawBuilder<unknown>): Promise<ActiveContract[]> {
  const rows = await sql<ContractRow>`
    with page as materialized (${page})
    select c.created_in_update_id, c.contract_id, c.template_id, c.package_name, c.create_arguments,
           c.created_at, c.signatories, c.observers
    from page join contracts c on c.migration_id = ${migrationId} and c.contract_id = page.contract_id
    order by page.created_at, page.contract_id`.execute(db);
  return rows.rows.map(toActiveContract);
}

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
export async function acsPage(db: Db, q: AcsPageQuery): Promise<ActiveContract[]> {
  const parties = [...new Set(q.parties)];
  const templateKeys = new Map(q.templates.map((t) => [`${t.packageName}:${t.qualifiedName}`, t]));
  const templates = [...templateKeys.values()];
  const packageNames = templates.map((t) => t.packageName);
  const qualifiedNames = templates.map((t) => t.qualifiedName);
  const range = sql`${activeAt(q.at)} ${afterKey(q.after)}
          order by created_at, contract_id
          limit ${q.limit}`;
  let page: RawBuilder<unknown>;
  if (parties.length === 0 && templates.length === 0) {
    page = sql`select contract_id, created_at from contracts
        where migration_id = ${q.migrationId} and ${range}`;
  } else if (parties.length === 0) {
    // A contract has one template: the ranges are disjoint.
    page = sql`select p.contract_id, p.created_at
        from unnest(${packageNames}::text[], ${qualifiedNames}::text[]) as k(package_name, qualified_name)
        cross join lateral (
          select contract_id, created_at from contracts
          where migration_id = ${q.migrationId} and package_name = k.package_name and qualified_name = k.qualified_name
            and ${range}
        ) p
        order by p.created_at, p.contract_id
        limit ${q.limit}`;
  } else {
    // A contract is in the range of each of its requested stakeholders: distinct. The first
    // `limit` distinct contracts are each among the first `limit` entries of some range.
    let ranges: RawBuilder<unknown>;
    if (templates.length === 0) {
      ranges = sql`unnest(${parties}::text[]) as o(party)
        cross join lateral (
          select contract_id, created_at from contract_stakeholders
          where migration_id = ${q.migrationId} and party = o.party and ${range}
        ) p`;
    } else if (parties.length * templates.length <= MAX_PAIR_RANGES) {
      ranges = sql`unnest(${parties}::text[]) as o(party)
        cross join unnest(${packageNames}::text[], ${qualifiedNames}::text[]) as k(package_name, qualified_name)
        cross join lateral (
          select contract_id, created_at from contract_stakeholders
          where migration_id = ${q.migrationId} and party = o.party
            and package_name = k.package_name and qualified_name = k.qualified_name and ${range}
        ) p`;
    } else {
      ranges = sql`unnest(${parties}::text[]) as o(party)
        cross join lateral (
          select contract_id, created_at from contract_stakeholders
          where migration_id = ${q.migrationId} and party = o.party
            and (package_name, qualified_name) in (
              select * from unnest(${packageNames}::text[], ${qualifiedNames}::text[]))
            and ${range}
        ) p`;
    }
    page = sql`select distinct p.contract_id, p.created_at from ${ranges}
        order by p.created_at, p.contract_id
        limit ${q.limit}`;
  }
  return fetchPage(db, q.migrationId, page);
}
