/**
 * A party's activities (the activity projection, docs/ingestion.md): mounted at /api/indexer.
 *   GET /v0/parties/{party}/activity   keyset-paged JSON, or with `Accept: text/csv` every row of the
 *                                      range as CSV, streamed page by page (bounded memory)
 * Errors are the Scan API's `{"error": "..."}`, from the application's error handler.
 */
import { once } from 'node:events';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { ACTIVITY_KINDS, type ActivityKind } from '../../domain/activities';
import { partyIdProblem } from '../../domain/party-id';
import { formatRecordTime, parseTimestamp, type Micros } from '../../domain/time';
import { badRequest } from '../../internal/errors';
import { listPartyActivities, type ActivityPosition, type PartyActivityQuery, type StoredActivity } from '../../store/activity-repository';
import type { Db } from '../../store/pool';
import { sendJson } from '../json-response';
import { operation, type OperationOf } from '../operation';
import { MAX_PAGE_SIZE } from '../page-limit';
import type { PageTokens, TokenScope } from '../page-token';
import { ErrorResponse } from '../schema-kit';
import { ActivityPage } from './schemas';

interface ActivityServices {
  db: Db;
  tokens: PageTokens;
}

const DEFAULT_PAGE_SIZE = 100;
/** Rows a CSV export reads per statement: its memory, whatever the range. */
const CSV_PAGE_ROWS = 1000;

const expectedPageSize = `expected an integer from 1 to ${MAX_PAGE_SIZE}`;
const timeParam = (what: string) =>
  z.string({ error: 'expected a single date-time' }).optional().describe(what).meta({ format: 'date-time' });

const Kind = z.enum(ACTIVITY_KINDS);
const ActivityQuery = z.object({
  kind: z
    .union([Kind, z.array(Kind)], { error: `expected one or more of ${ACTIVITY_KINDS.join(', ')}` })
    .optional()
    .describe('Only these kinds (repeat the parameter for several); every kind when absent.'),
  from: timeParam('Record time at or after this instant.'),
  to: timeParam('Record time before this instant.'),
  order: z
    .enum(['desc', 'asc'], { error: 'expected desc or asc' })
    .optional()
    .describe('desc (default): newest first; asc: oldest first. The network order: migration, record time, update, node, kind, leg.'),
  page_size: z
    .string({ error: expectedPageSize })
    .regex(/^\d{1,10}$/, { error: expectedPageSize })
    .transform(Number)
    .refine((n) => n >= 1 && n <= MAX_PAGE_SIZE, { error: expectedPageSize })
    .optional()
    .meta({ type: 'integer', format: 'int32', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, pattern: undefined })
    .describe('Rows per JSON page (a CSV export is never paged).'),
  page_token: z
    .string({ error: 'expected a single string' })
    .optional()
    .describe('next_page_token of the previous page, with the same parameters.'),
});
const PartyParams = z.object({ party: z.string().describe('A party id, <identifier>::<namespace>.') });

/** A page token's position: an activity row's key (record time in microseconds). */
const Position = z.object({
  m: z.number().int().nonnegative(),
  t: z.string().regex(/^-?\d{1,20}$/),
  u: z.string(),
  n: z.number().int().nonnegative(),
  k: z.string(),
  l: z.number().int().nonnegative(),
});

function instant(text: string | undefined, name: string): Micros | undefined {
  if (text === undefined) return undefined;
  try {
    return parseTimestamp(text);
  } catch {
    throw badRequest(`Invalid ${name}: expected an ISO 8601 date-time with a zone, got '${text}'.`);
  }
}

function rowJson(a: StoredActivity) {
  return {
    migration_id: a.migrationId,
    record_time: formatRecordTime(a.recordTime),
    update_id: a.updateId,
    event_id: `${a.updateId}:${a.node}`,
    kind: a.kind as ActivityKind,
    leg: a.leg,
    party: a.party,
    round: a.round,
    amount: a.amount,
    fees: a.fees,
    holding_fees: a.holdingFees,
    burned: a.burned,
    counterparties: a.counterparties,
    provider: a.provider,
    featured: a.featured,
    via: a.via,
    traffic: a.traffic,
    subject: a.subject,
    detail: a.detail,
    outcome: a.outcome,
    expires_at: a.expiresAt === null ? null : formatRecordTime(a.expiresAt),
  };
}

const CSV_COLUMNS = [
  'migration_id',
  'record_time',
  'update_id',
  'event_id',
  'kind',
  'leg',
  'party',
  'round',
  'amount',
  'fees',
  'holding_fees',
  'burned',
  'counterparties',
  'provider',
  'featured',
  'via',
  'traffic',
  'subject',
  'detail',
  'outcome',
  'expires_at',
] as const satisfies readonly (keyof ReturnType<typeof rowJson>)[];

const NEEDS_QUOTES = /[",\r\n]/;
function csvField(value: string | number | boolean | string[] | null): string {
  if (value === null || value === undefined) return '';
  const text = Array.isArray(value) ? value.join(' ') : String(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
const csvLine = (a: StoredActivity) => {
  const row = rowJson(a);
  return `${CSV_COLUMNS.map((c) => csvField(row[c])).join(',')}\r\n`;
};

const positionOf = (a: StoredActivity): ActivityPosition => ({
  migrationId: a.migrationId,
  recordTime: a.recordTime,
  updateId: a.updateId,
  node: a.node,
  kind: a.kind,
  leg: a.leg,
});

/** Every row of the range, a keyset page at a time, each written before the next is read; stops when the client goes. */
async function streamCsv(db: Db, q: Omit<PartyActivityQuery, 'limit' | 'after'>, req: Request, res: Response): Promise<void> {
  res.status(200).type('text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', 'attachment; filename="activity.csv"');
  res.write(`${CSV_COLUMNS.join(',')}\r\n`);
  let after: ActivityPosition | undefined;
  for (;;) {
    const rows = await listPartyActivities(db, { ...q, after, limit: CSV_PAGE_ROWS });
    if (req.destroyed || res.destroyed) return;
    let chunk = '';
    for (const row of rows) chunk += csvLine(row);
    if (chunk && !res.write(chunk)) {
      await Promise.race([once(res, 'drain'), once(res, 'close')]);
      if (res.destroyed) return;
    }
    const last = rows[rows.length - 1];
    if (rows.length < CSV_PAGE_ROWS || !last) break;
    after = positionOf(last);
  }
  res.end();
}

const partyActivity = operation({
  method: 'get',
  path: '/v0/parties/{party}/activity',
  summary:
    "A party's activities (transfers sent and received, mints and taps, reward claims, locks and unlocks, traffic purchases, ANS entries, transfer commands, transfer instructions and allocations, votes cast and vote results), one row per activity, newest first by default; with Accept: text/csv, every row of the range as CSV with a header, unpaged.",
  request: { params: PartyParams, query: ActivityQuery },
  responses: {
    '200': {
      description: 'A page of activities; or, when text/csv is accepted before JSON, every activity of the range.',
      body: ActivityPage,
      content: {
        'text/csv': {
          schema: {
            type: 'string',
            description: `A header row (${CSV_COLUMNS.join(',')}), then one row per activity; counterparties separated by spaces.`,
          },
        },
      },
    },
    '400': {
      description:
        'A client mistake (a malformed party id or time, an unknown kind, a page size out of range, an altered or foreign page token).',
      body: ErrorResponse,
    },
  },
  handle: async ({ db, tokens }: ActivityServices, { params, query }, req, res) => {
    const problem = partyIdProblem(params.party);
    if (problem) throw badRequest(problem);
    const kinds = query.kind === undefined ? undefined : [...new Set(Array.isArray(query.kind) ? query.kind : [query.kind])].sort();
    const from = instant(query.from, 'from');
    const to = instant(query.to, 'to');
    const order = query.order ?? 'desc';
    const filter = { party: params.party, kinds, from, to, order } as const;
    if (req.accepts(['application/json', 'text/csv']) === 'text/csv') {
      if (query.page_token !== undefined || query.page_size !== undefined) {
        throw badRequest('A CSV export is not paged: leave out page_size and page_token.');
      }
      await streamCsv(db, filter, req, res);
      return;
    }
    const limit = query.page_size ?? DEFAULT_PAGE_SIZE;
    const scope: TokenScope = {
      operation: 'indexer-party-activity',
      request: {
        party: params.party,
        kinds: kinds ?? null,
        from: from === undefined ? null : formatRecordTime(from),
        to: to === undefined ? null : formatRecordTime(to),
        order,
        n: limit,
      },
    };
    let after: ActivityPosition | undefined;
    if (query.page_token !== undefined) {
      const p = await tokens.verify(scope, query.page_token, Position, 'page_token');
      after = { migrationId: p.m, recordTime: BigInt(p.t), updateId: p.u, node: p.n, kind: p.k, leg: p.l };
    }
    const rows = await listPartyActivities(db, { ...filter, after, limit });
    const last = rows[rows.length - 1];
    const next =
      rows.length === limit && last
        ? await tokens.encode(scope, {
            m: last.migrationId,
            t: last.recordTime.toString(),
            u: last.updateId,
            n: last.node,
            k: last.kind,
            l: last.leg,
          })
        : null;
    sendJson(res, { activities: rows.map(rowJson), next_page_token: next } satisfies z.input<typeof ActivityPage>);
  },
});

export const activityOperations: readonly OperationOf<ActivityServices>[] = [partyActivity];
