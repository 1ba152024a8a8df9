/**
 * Choosing the ACS snapshot a request names, and paging over it: the snapshot
 * services shared by the holdings and ACS routes (Splice
 * AcsSnapshotStore; docs/interfaces.md, "Scan: ACS snapshots"). A request names a snapshot by migration_id, record_time and
 * record_time_match (exact: an announced snapshot; at_or_before: the newest
 * one at or before the time). A page token holds the snapshot of the first
 * page, so that every page reads the same snapshot even if a newer one is
 * announced meanwhile, and the creation key of the last contract served.
 *
 * With read replicas, each snapshot a request reads at is registered before the reads (a replica
 * serves them only once it has announced that snapshot, and with it all the data the snapshot covers);
 * answers at an announced snapshot do not change as ingestion goes on.
 */
import type { Response } from 'express';
import { z } from 'zod';
import { activeContractJson, type ActiveContract } from '../../domain/active-contract';
import { RawJson } from '../../domain/raw-json';
import { formatDateTime, formatInstant, formatRequestTimeForMessage, type Micros } from '../../domain/time';
import { notFound } from '../../internal/errors';
import { snapshotAtOrBefore, snapshotExists, type CreationKey } from '../../store/acs-repository';
import type { Db } from '../../store/pool';
import { refuseSnapshotBeforeStart } from '../history-start';
import { needPosition, withNeeds } from '../../store/read-context';
import { sendJson } from '../json-response';
import type { PositionTokens, TokenScope } from '../page-token';
import type { Quoted } from './snapshot-input';

export type Match = 'exact' | 'at_or_before';

const exactMissing = (migrationId: number, t: Micros) =>
  notFound(`Failed to find ACS snapshot for migration id ${migrationId} at ${formatInstant(t)}`);

/** at_or_before: the newest snapshot at or before the time, or Scan's 404 quoting the request's time. */
export async function snapshotAtOrBeforeOrFail(db: Db, migrationId: number, recordTime: Micros, quoted: Quoted): Promise<Micros> {
  // Snapshots are announced in order, so a replica holding one at or after the time chooses as the
  // primary would; otherwise the primary chooses (one key lookup), and the reads at the chosen
  // snapshot may still go to a replica that has it.
  const snapshot = await withNeeds([{ kind: 'snapshot', migrationId, recordTime }], () => snapshotAtOrBefore(db, migrationId, recordTime));
  if (snapshot === undefined) await refuseSnapshotBeforeStart(db, recordTime);
  if (snapshot === undefined) throw notFound(`No snapshots found before ${formatRequestTimeForMessage(quoted)}`);
  needPosition({ kind: 'snapshot', migrationId, recordTime: snapshot });
  return snapshot;
}

/** exact: the time must be an announced snapshot, or Scan's 404. */
export async function exactSnapshotOrFail(db: Db, migrationId: number, recordTime: Micros): Promise<Micros> {
  needPosition({ kind: 'snapshot', migrationId, recordTime });
  if (!(await snapshotExists(db, migrationId, recordTime))) {
    await refuseSnapshotBeforeStart(db, recordTime);
    throw exactMissing(migrationId, recordTime);
  }
  return recordTime;
}

export function resolveSnapshot(db: Db, migrationId: number, recordTime: Micros, match: Match, quoted: Quoted): Promise<Micros> {
  return match === 'exact'
    ? exactSnapshotOrFail(db, migrationId, recordTime)
    : snapshotAtOrBeforeOrFail(db, migrationId, recordTime, quoted);
}

const Position = z.object({
  s: z.string().regex(/^-?\d+$/),
  c: z.string().regex(/^-?\d+$/),
  i: z.string(),
});

export interface Paged {
  snapshot: Micros;
  after: CreationKey | undefined;
}

export async function pagePosition<T extends string | number>(
  db: Db,
  tokens: PositionTokens<T>,
  scope: TokenScope,
  migrationId: number,
  request: { record_time: Micros; record_time_match: Match; after?: T | null },
  quoted: Quoted,
): Promise<Paged> {
  if (request.after === undefined || request.after === null) {
    return { snapshot: await resolveSnapshot(db, migrationId, request.record_time, request.record_time_match, quoted), after: undefined };
  }
  const p = await tokens.verify(scope, request.after, Position);
  const snapshot = BigInt(p.s);
  needPosition({ kind: 'snapshot', migrationId, recordTime: snapshot });
  if (!(await snapshotExists(db, migrationId, snapshot))) {
    await refuseSnapshotBeforeStart(db, snapshot);
    throw exactMissing(migrationId, snapshot);
  }
  return { snapshot, after: { createdAt: BigInt(p.c), contractId: p.i } };
}

/**
 * `{"record_time", "migration_id", "created_events", "next_page_token"}`; the token is set iff the
 * page is full (as Scan sets it). `recordTime` is what the response reports: the request's time for S3 (the
 * description in scan.yaml), the snapshot's for /v0/state/acs (the Scan app).
 */
export async function sendPage<T extends string | number>(
  res: Response,
  tokens: PositionTokens<T>,
  scope: TokenScope,
  page: { migrationId: number; snapshot: Micros; recordTime: Micros },
  contracts: ActiveContract[],
  limit: number,
): Promise<void> {
  const { migrationId, snapshot, recordTime } = page;
  const last = contracts[contracts.length - 1];
  const next =
    contracts.length === limit && last
      ? await tokens.encode(scope, { s: snapshot.toString(), c: last.createdAt.toString(), i: last.contractId })
      : null;
  sendJson(res, {
    record_time: formatDateTime(recordTime),
    migration_id: migrationId,
    created_events: contracts.map((c) => new RawJson(activeContractJson(c))),
    next_page_token: next,
  });
}
