/**
 * Announced ACS snapshots and the temporal ACS at one of them. A contract is
 * active at (m, t) when migration_id = m and created_record_time <= t <
 * archived_record_time (design.md); pages are keyset ranges in creation order
 * (created_at, contract_id), read from contracts_by_created_at.
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

/** One page of the ACS at (migrationId, at), in creation order. */
export async function acsPage(db: Db, q: AcsPageQuery): Promise<ActiveContract[]> {
  const parties = q.parties.length > 0 ? sql`and (signatories && ${q.parties}::text[] or observers && ${q.parties}::text[])` : sql``;
  const templates =
    q.templates.length > 0
      ? sql`and (package_name, qualified_name) in (select * from unnest(${q.templates.map((t) => t.packageName)}::text[], ${q.templates.map((t) => t.qualifiedName)}::text[]))`
      : sql``;
  return fetchPage(
    db,
    q.migrationId,
    sql`select contract_id, created_at from contracts
        where migration_id = ${q.migrationId} and ${activeAt(q.at)} ${afterKey(q.after)} ${parties} ${templates}
        order by created_at, contract_id
        limit ${q.limit}`,
  );
}
