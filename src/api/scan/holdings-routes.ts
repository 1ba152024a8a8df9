/**
 * Holdings and the ACS at announced snapshots (reference splice-scan.md §4.7, §5, §6):
 *   S1  POST /v0/holdings/summary                 (with holding fees; deprecated)
 *   S2  POST /v1/holdings/summary
 *   S3  POST /v2/holdings/state                   (also served at the older /v0/holdings/state)
 *       POST /v0/state/acs                        (v2 shape: ActiveContract items, string token)
 *       GET  /v0/state/acs/snapshot-timestamp
 *   S8  GET  /v0/state/acs/snapshot-timestamp-after
 *
 * A request names a snapshot by migration_id, record_time and record_time_match
 * (exact: an announced snapshot; at_or_before: the newest one at or before the
 * time). Answers come from the temporal ACS at that snapshot, in SQL.
 * Differences from the Scan app, on purpose: summaries have no 1000-contract
 * limit, and holdings pages hold only owned holdings (Scan filters a page after
 * reading it, so its pages can be short or empty before the end).
 */
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { activeContractJson, type ActiveContract } from '../../domain/active-contract';
import { formatDecimal } from '../../domain/decimal';
import { summaryFigures } from '../../domain/holding-fees';
import { formatDateTime, formatInstant, formatRequestTimeForMessage, parseStorableTimestamp, type Micros } from '../../domain/time';
import { badRequest, notFound } from '../../internal/errors';
import {
  acsPage,
  firstSnapshotAfter,
  snapshotAtOrBefore,
  snapshotExists,
  type CreationKey,
  type TemplateRef,
} from '../../store/acs-repository';
import { earliestOpenRound, holdingsPage, holdingsTotals } from '../../store/holdings-repository';
import type { Db } from '../../store/pool';
import type { ApiContext } from '../context';
import { pageTokensFor, pageTokensWithKey, type PageTokens, type TokenScope } from '../page-token';
import { parseInput } from '../validation';
import { int64 } from './params';

/** Limit.DefaultMaxPageSize, and the newest Scan's bound on request lists (§1.2). */
const MAX_PAGE_SIZE = 1000;
const MAX_LIST_ITEMS = 1000;

// ---------------------------------------------------------------------------------------------
// Request parsing

const DATE_TIME_MESSAGE = 'expected an ISO 8601 date-time such as 2025-03-10T14:22:05.123456Z';
/** A date-time between 0001-01-01 and 9999-12-31 (UTC), as microseconds. */
function parseDateTime(s: string): Micros | undefined {
  try {
    return parseStorableTimestamp(s);
  } catch {
    return undefined;
  }
}

const dateTime = z
  .string({ error: 'expected a date-time string' })
  .refine((s) => parseDateTime(s) !== undefined, { error: DATE_TIME_MESSAGE, abort: true })
  .transform((s) => parseDateTime(s)!);

const integer = z.number({ error: 'expected an integer' }).refine(Number.isInteger, { error: 'expected an integer' });
const strings = z.array(z.string({ error: 'expected a string' }), { error: 'expected an array of strings' });
const recordTimeMatch = z
  .enum(['exact', 'at_or_before'], { error: 'expected one of exact, at_or_before' })
  .nullish()
  .transform((m) => m ?? 'exact');

const SnapshotSelection = {
  migration_id: int64,
  record_time: dateTime,
  record_time_match: recordTimeMatch,
};

const SummaryRequestV1 = z.object({ ...SnapshotSelection, owner_party_ids: strings });
const SummaryRequestV0 = SummaryRequestV1.extend({ as_of_round: int64.nullish() });
const HoldingsStateRequest = z.object({
  ...SnapshotSelection,
  after: z.string({ error: 'expected a string' }).nullish(),
  page_size: integer,
  owner_party_ids: strings,
});
const AcsRequest = z.object({
  ...SnapshotSelection,
  after: z.string({ error: 'expected a string' }).nullish(),
  page_size: integer,
  party_ids: strings.nullish(),
  templates: strings.nullish(),
});

const queryInt64 = z
  .string({ error: 'expected an integer' })
  .regex(/^-?\d{1,19}$/, { error: 'expected an integer' })
  .transform(Number)
  .refine(Number.isSafeInteger, { error: 'integer out of range' });
const SnapshotBeforeQuery = z.object({ before: dateTime, migration_id: queryInt64 });
const SnapshotAfterQuery = z.object({ after: dateTime, migration_id: queryInt64 });

/** PageLimit.tryCreate (§1.2). */
function pageSize(n: number): number {
  if (n < 1) throw badRequest('Limit must be at least 1.');
  if (n > MAX_PAGE_SIZE) throw badRequest(`Exceeded limit maximum (${n} > ${MAX_PAGE_SIZE}).`);
  return n;
}

const PARTY_ID = /^\S{1,255}::\S{1,255}$/;

/** HttpRequestLimits.maxSizeOrFail, then nonEmptyOrFail when required (§1.2); party ids checked; duplicates dropped. */
function partyList(field: string, parties: string[], required: boolean): string[] {
  if (parties.length > MAX_LIST_ITEMS) {
    throw badRequest(`Expected '${field}' to contain at most ${MAX_LIST_ITEMS} items, but contained ${parties.length}.`);
  }
  if (required && parties.length === 0) throw badRequest(`Expected '${field}' to contain at least one item, but contained none.`);
  for (const p of parties) {
    if (!PARTY_ID.test(p)) throw badRequest(`Invalid party id ${JSON.stringify(p)} in '${field}': expected <name>::<fingerprint>.`);
  }
  return [...new Set(parties)].sort();
}

function templateList(templates: string[]): TemplateRef[] {
  if (templates.length > MAX_LIST_ITEMS) {
    throw badRequest(`Expected 'templates' to contain at most ${MAX_LIST_ITEMS} items, but contained ${templates.length}.`);
  }
  const refs = templates.map((t) => {
    const parts = t.split(':');
    if (parts.length !== 3 || parts.some((p) => p === '')) {
      throw badRequest("Malformed template_id, expected 'package_name:module_name:entity_name'");
    }
    const [packageName, moduleName, entityName] = parts as [string, string, string];
    return { packageName, qualifiedName: `${moduleName}:${entityName}` };
  });
  const unique = new Map(refs.map((r) => [`${r.packageName}:${r.qualifiedName}`, r]));
  return [...unique.keys()].sort().map((k) => unique.get(k)!);
}

// ---------------------------------------------------------------------------------------------
// Snapshots

type Match = 'exact' | 'at_or_before';

const exactMissing = (migrationId: number, t: Micros) =>
  notFound(`Failed to find ACS snapshot for migration id ${migrationId} at ${formatInstant(t)}`);

/** A requested time as the client wrote it (validated by the schemas below), for messages. */
type Quoted = string;

/** at_or_before: the newest snapshot at or before the time, or the 404 of §4.7 quoting the request's time. */
async function snapshotAtOrBeforeOrFail(db: Db, migrationId: number, recordTime: Micros, quoted: Quoted): Promise<Micros> {
  const snapshot = await snapshotAtOrBefore(db, migrationId, recordTime);
  if (snapshot === undefined) throw notFound(`No snapshots found before ${formatRequestTimeForMessage(quoted)}`);
  return snapshot;
}

/** exact: the time must be an announced snapshot, or the 404 of §4.7. */
async function exactSnapshotOrFail(db: Db, migrationId: number, recordTime: Micros): Promise<Micros> {
  if (!(await snapshotExists(db, migrationId, recordTime))) throw exactMissing(migrationId, recordTime);
  return recordTime;
}

function resolveSnapshot(db: Db, migrationId: number, recordTime: Micros, match: Match, quoted: Quoted): Promise<Micros> {
  return match === 'exact' ? exactSnapshotOrFail(db, migrationId, recordTime) : snapshotAtOrBeforeOrFail(db, migrationId, recordTime, quoted);
}

// ---------------------------------------------------------------------------------------------
// Paging: the token holds the snapshot of the first page (so every page reads the same
// snapshot, even if a newer one is announced meanwhile) and the creation key of the last
// contract served.

const Position = z.object({
  s: z.string().regex(/^-?\d+$/),
  c: z.string().regex(/^-?\d+$/),
  i: z.string(),
});

interface Paged {
  snapshot: Micros;
  after: CreationKey | undefined;
}

async function pagePosition(
  db: Db,
  tokens: PageTokens,
  scope: TokenScope,
  migrationId: number,
  request: { record_time: Micros; record_time_match: Match; after?: string | null },
  quoted: Quoted,
): Promise<Paged> {
  if (request.after === undefined || request.after === null) {
    return { snapshot: await resolveSnapshot(db, migrationId, request.record_time, request.record_time_match, quoted), after: undefined };
  }
  const p = await tokens.verify(scope, request.after, Position);
  const snapshot = BigInt(p.s);
  if (!(await snapshotExists(db, migrationId, snapshot))) throw exactMissing(migrationId, snapshot);
  return { snapshot, after: { createdAt: BigInt(p.c), contractId: p.i } };
}

/**
 * `{"record_time", "migration_id", "created_events", "next_page_token"}`; the token is set iff the
 * page is full (§4.7). `recordTime` is what the response reports: the request's time for S3 (the
 * spec: "echo"), the snapshot's for /v0/state/acs (the Scan app).
 */
async function sendPage(
  res: Response,
  tokens: PageTokens,
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
  res
    .type('application/json')
    .send(
      `{"record_time":${JSON.stringify(formatDateTime(recordTime))},"migration_id":${migrationId},` +
        `"created_events":[${contracts.map(activeContractJson).join(',')}],"next_page_token":${JSON.stringify(next)}}`,
    );
}

// ---------------------------------------------------------------------------------------------
// Routes

/** The body's record_time as sent (the schema has checked it is a date-time string). */
const quotedRecordTime = (req: Request): Quoted => String((req.body as { record_time: unknown }).record_time);

export function holdingsRoutes({ db, config }: ApiContext): Router {
  const router = Router();
  const tokens = config.pageTokenSecret ? pageTokensWithKey(Buffer.from(config.pageTokenSecret, 'utf8')) : pageTokensFor(db);

  router.post('/v0/holdings/summary', async (req, res) => {
    const body = parseInput(SummaryRequestV0, req.body, 'body');
    const owners = partyList('owner_party_ids', body.owner_party_ids, true);
    // Scan resolves an at_or_before time first and looks the default round up inside the
    // exact-time query; the order of the 404 and the 400 follows it.
    const atOrBefore =
      body.record_time_match === 'at_or_before'
        ? await snapshotAtOrBeforeOrFail(db, body.migration_id, body.record_time, quotedRecordTime(req))
        : undefined;
    let round: bigint;
    if (body.as_of_round !== undefined && body.as_of_round !== null) {
      round = BigInt(body.as_of_round);
    } else {
      const open = await earliestOpenRound(db);
      if (open === undefined) throw badRequest('No open mining rounds found.');
      round = open;
    }
    const snapshot = atOrBefore ?? (await exactSnapshotOrFail(db, body.migration_id, body.record_time));
    const totals = await holdingsTotals(db, body.migration_id, snapshot, owners, round);
    // The spec: record_time and migration_id are the request's (the Scan app reports the snapshot's time).
    res.json({
      record_time: formatDateTime(body.record_time),
      migration_id: body.migration_id,
      computed_as_of_round: Number(round),
      summaries: totals.map((t) => ({
        party_id: t.partyId,
        ...Object.fromEntries(Object.entries(summaryFigures(t)).map(([k, v]) => [k, formatDecimal(v)])),
      })),
    });
  });

  router.post('/v1/holdings/summary', async (req, res) => {
    const body = parseInput(SummaryRequestV1, req.body, 'body');
    const owners = partyList('owner_party_ids', body.owner_party_ids, true);
    const snapshot = await resolveSnapshot(db, body.migration_id, body.record_time, body.record_time_match, quotedRecordTime(req));
    // Fees are not part of v1 (Scan computes them as of round 0 and drops them).
    const totals = await holdingsTotals(db, body.migration_id, snapshot, owners, 0n);
    res.json({
      record_time: formatDateTime(body.record_time),
      migration_id: body.migration_id,
      summaries: totals.map((t) => {
        const f = summaryFigures(t);
        return {
          party_id: t.partyId,
          total_unlocked_coin: formatDecimal(f.total_unlocked_coin),
          total_locked_coin: formatDecimal(f.total_locked_coin),
          total_coin_holdings: formatDecimal(f.total_coin_holdings),
        };
      }),
    });
  });

  const holdingsState = (operation: string) => async (req: Request, res: Response) => {
    const body = parseInput(HoldingsStateRequest, req.body, 'body');
    const limit = pageSize(body.page_size);
    const owners = partyList('owner_party_ids', body.owner_party_ids, true);
    const scope: TokenScope = {
      operation,
      request: { m: body.migration_id, t: body.record_time.toString(), x: body.record_time_match, o: owners },
    };
    const { snapshot, after } = await pagePosition(db, tokens, scope, body.migration_id, body, quotedRecordTime(req));
    const contracts = await holdingsPage(db, { migrationId: body.migration_id, at: snapshot, after, limit, owners });
    await sendPage(res, tokens, scope, { migrationId: body.migration_id, snapshot, recordTime: body.record_time }, contracts, limit);
  };
  router.post('/v2/holdings/state', holdingsState('holdings-state'));
  // The older path of the same operation (reference §6.1), answered in the v2 shape.
  router.post('/v0/holdings/state', holdingsState('holdings-state'));

  router.post('/v0/state/acs', async (req, res) => {
    const body = parseInput(AcsRequest, req.body, 'body');
    const limit = pageSize(body.page_size);
    const parties = partyList('party_ids', body.party_ids ?? [], false);
    const templates = templateList(body.templates ?? []);
    const scope: TokenScope = {
      operation: 'acs-state',
      request: {
        m: body.migration_id,
        t: body.record_time.toString(),
        x: body.record_time_match,
        p: parties,
        k: templates.map((t) => `${t.packageName}:${t.qualifiedName}`),
      },
    };
    const { snapshot, after } = await pagePosition(db, tokens, scope, body.migration_id, body, quotedRecordTime(req));
    const contracts = await acsPage(db, { migrationId: body.migration_id, at: snapshot, after, limit, parties, templates });
    await sendPage(res, tokens, scope, { migrationId: body.migration_id, snapshot, recordTime: snapshot }, contracts, limit);
  });

  router.get('/v0/state/acs/snapshot-timestamp', async (req, res) => {
    const q = parseInput(SnapshotBeforeQuery, req.query, 'query');
    const snapshot = await snapshotAtOrBeforeOrFail(db, q.migration_id, q.before, String(req.query.before));
    res.json({ record_time: formatDateTime(snapshot) });
  });

  router.get('/v0/state/acs/snapshot-timestamp-after', async (req, res) => {
    const q = parseInput(SnapshotAfterQuery, req.query, 'query');
    const snapshot = await firstSnapshotAfter(db, q.migration_id, q.after);
    if (snapshot === undefined) throw notFound(`No snapshots found after ${formatRequestTimeForMessage(String(req.query.after))}`);
    res.json({ record_time: formatDateTime(snapshot) });
  });

  return router;
}
