/**
 * Holdings at announced snapshots (docs/interfaces.md, "Scan: holdings"):
 *   S1  POST /v0/holdings/summary                 (with holding fees; deprecated)
 *   S2  POST /v1/holdings/summary
 *   S3  POST /v2/holdings/state                   (also served at the older /v0/holdings/state)
 *       POST /v1/holdings/state                   (the same with an int64 token, as older Splice had it)
 *
 * Answers come from the temporal ACS at the snapshot, in SQL. Differences
 * from the Scan app, on purpose: summaries have no 1000-contract limit, and
 * holdings pages hold only owned holdings (Scan filters a page after reading
 * it, so its pages can be short or empty before the end).
 */
import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { formatDecimal } from '../../domain/decimal';
import { summaryFigures } from '../../domain/holding-fees';
import { formatDateTime } from '../../domain/time';
import { badRequest } from '../../internal/errors';
import { earliestOpenRound, holdingsPage, holdingsTotals } from '../../store/holdings-repository';
import type { Db } from '../../store/pool';
import { primaryDbOf, type ApiContext } from '../context';
import { heavyRequest, type CostRule } from '../fair-access/heavy-requests';
import { sendJson } from '../json-response';
import { mountOperations, operation, type OperationOf, type ResponseDeclaration } from '../operation';
import { pageLimit } from '../page-limit';
import { NumberedPageTokens } from '../numbered-page-token';
import type { PageTokens, PositionTokens, TokenScope } from '../page-token';
import { dateTime, ErrorResponse, int64 } from '../schema-kit';
import { AcsResponse, AcsResponseV1, HoldingsSummary, HoldingsSummaryV1 } from './schemas';
import {
  HoldingsStateRequest,
  HoldingsStateRequestV1,
  partyList,
  quotedRecordTime,
  SummaryRequestV0,
  SummaryRequestV1,
} from './snapshot-input';
import { exactSnapshotOrFail, pagePosition, resolveSnapshot, sendPage, snapshotAtOrBeforeOrFail } from './snapshot-service';

/** What makes a holdings summary expensive (also behind the validator's proxy). */
export const SUMMARY_COST: CostRule = { parties: 'owner_party_ids' };

/** What the summaries need at run time, here and behind the validator's proxy. */
export interface SummaryServices {
  db: Db;
  /** The bound on expensive requests, by SUMMARY_COST. */
  heavySummary: RequestHandler;
}

interface HoldingsServices extends SummaryServices {
  heavyPage: RequestHandler;
  tokens: PageTokens;
  numberedTokens: NumberedPageTokens;
}

// The requests as the document states them: the parsers are snapshot-input's, their JSON Schema
// given where zod cannot say it (integers, date-times, the named RecordTimeMatch, at least one owner).
const INT64 = { type: 'integer', format: 'int64' } as const;
const NULLABLE_INT64 = { ...INT64, anyOf: undefined } as const;
const snapshotSelection = {
  migration_id: SummaryRequestV1.shape.migration_id.meta(INT64),
  record_time: SummaryRequestV1.shape.record_time.meta({
    format: 'date-time',
    description: 'With record_time_match exact, a snapshot time; with at_or_before, any time.',
  }),
  record_time_match: SummaryRequestV1.shape.record_time_match.meta({
    anyOf: undefined,
    type: 'string',
    enum: ['exact', 'at_or_before'],
    default: 'exact',
  }),
  owner_party_ids: SummaryRequestV1.shape.owner_party_ids.meta({ minItems: 1 }),
};
const SummaryBodyV1 = SummaryRequestV1.extend(snapshotSelection);
const SummaryBodyV0 = SummaryRequestV0.extend({
  ...snapshotSelection,
  as_of_round: SummaryRequestV0.shape.as_of_round.meta(NULLABLE_INT64),
});
const HoldingsStateBody = HoldingsStateRequest.extend({
  ...snapshotSelection,
  after: HoldingsStateRequest.shape.after.meta({ anyOf: undefined, type: 'string', description: 'next_page_token of the previous page.' }),
  page_size: HoldingsStateRequest.shape.page_size.meta({ format: 'int32', type: 'integer' }),
});
const HoldingsStateBodyV1 = HoldingsStateRequestV1.extend({
  ...snapshotSelection,
  after: HoldingsStateRequestV1.shape.after.meta({
    ...NULLABLE_INT64,
    description: 'next_page_token of the previous page (valid for 24 hours).',
  }),
  page_size: HoldingsStateRequestV1.shape.page_size.meta({ format: 'int32', type: 'integer' }),
});

/** The answer of S1. */
const HoldingsSummaryResponse = z.object({
  record_time: dateTime(),
  migration_id: int64(),
  computed_as_of_round: int64(),
  summaries: z.array(HoldingsSummary),
});
/** The answer of S2. */
const HoldingsSummaryResponseV1 = z.object({
  record_time: dateTime(),
  migration_id: int64(),
  summaries: z.array(HoldingsSummaryV1),
});

const failure = (description: string): ResponseDeclaration => ({ description, body: ErrorResponse });
const snapshotFailures: Record<string, ResponseDeclaration> = {
  '400': failure('A client mistake: the message says what is wrong.'),
  '404': failure('Not found.'),
  '410': failure(
    'The history asked for was dropped by retention (HISTORY_RETENTION, off by default): the message says where the history starts.',
  ),
  '500': failure('An unexpected error occurred.'),
};

/** S1, POST /v0/holdings/summary; also forwarded unchanged by the validator's scan-proxy (/v0/scan-proxy/holdings/summary). */
export const holdingsSummaryV0 = operation({
  method: 'post',
  path: '/v0/holdings/summary',
  summary: 'S1: holdings per owner at a snapshot, with holding fees (deprecated: use /v1/holdings/summary).',
  deprecated: true,
  request: { body: SummaryBodyV0 },
  responses: { '200': { description: 'OK', body: HoldingsSummaryResponse }, ...snapshotFailures },
  before: ({ heavySummary }: SummaryServices) => [heavySummary],
  handle: async ({ db }: SummaryServices, { body }, req, res) => {
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
    // scan.yaml: record_time and migration_id are the request's (the Scan app reports the snapshot's time).
    sendJson(res, {
      record_time: formatDateTime(body.record_time),
      migration_id: body.migration_id,
      computed_as_of_round: Number(round),
      summaries: totals.map((t) => ({
        party_id: t.partyId,
        ...(Object.fromEntries(Object.entries(summaryFigures(t)).map(([k, v]) => [k, formatDecimal(v)])) as Omit<
          z.input<typeof HoldingsSummary>,
          'party_id'
        >),
      })),
    } satisfies z.input<typeof HoldingsSummaryResponse>);
  },
});

/** S2, POST /v1/holdings/summary: totals per owner at a snapshot, without fees (also the validator proxy's v1 path). */
export const holdingsSummaryV1 = operation({
  method: 'post',
  path: '/v1/holdings/summary',
  summary: 'S2: holdings per owner at a snapshot. Any number of contracts.',
  request: { body: SummaryBodyV1 },
  responses: { '200': { description: 'OK', body: HoldingsSummaryResponseV1 }, ...snapshotFailures },
  before: ({ heavySummary }: SummaryServices) => [heavySummary],
  handle: async ({ db }: SummaryServices, { body }, req, res) => {
    const owners = partyList('owner_party_ids', body.owner_party_ids, true);
    const snapshot = await resolveSnapshot(db, body.migration_id, body.record_time, body.record_time_match, quotedRecordTime(req));
    // Fees are not part of v1 (Scan computes them as of round 0 and drops them).
    const totals = await holdingsTotals(db, body.migration_id, snapshot, owners);
    sendJson(res, {
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
    } satisfies z.input<typeof HoldingsSummaryResponseV1>);
  },
});

/** S3: a page of owned holdings at a snapshot, with a string (current) or int64 (older /v1) page token. */
const holdingsState =
  <T extends string | number>(
    operationName: string,
    pageTokens: (services: HoldingsServices) => PositionTokens<T>,
  ): OperationOf<HoldingsServices>['handle'] =>
  async (
    services,
    { body }: { body: Omit<z.output<typeof HoldingsStateRequest>, 'after'> & { after?: T | null | undefined } },
    req,
    res,
  ) => {
    const { db } = services;
    const tokens = pageTokens(services);
    const limit = pageLimit(body.page_size);
    const owners = partyList('owner_party_ids', body.owner_party_ids, true);
    const scope: TokenScope = {
      operation: operationName,
      request: { m: body.migration_id, t: body.record_time.toString(), x: body.record_time_match, o: owners },
    };
    const { snapshot, after } = await pagePosition(db, tokens, scope, body.migration_id, body, quotedRecordTime(req));
    const contracts = await holdingsPage(db, { migrationId: body.migration_id, at: snapshot, after, limit, owners });
    await sendPage(res, tokens, scope, { migrationId: body.migration_id, snapshot, recordTime: body.record_time }, contracts, limit);
  };

const holdingsStateV2 = (path: string, summary: string, deprecated: boolean) =>
  operation({
    method: 'post',
    path,
    summary,
    ...(deprecated ? { deprecated } : {}),
    request: { body: HoldingsStateBody },
    responses: { '200': { description: 'OK', body: AcsResponse }, ...snapshotFailures },
    before: ({ heavyPage }: HoldingsServices) => [heavyPage],
    handle: holdingsState('holdings-state', (s) => s.tokens),
  });

export const holdingsOperations: readonly OperationOf<HoldingsServices>[] = [
  holdingsSummaryV0,
  holdingsSummaryV1,
  holdingsStateV2(
    '/v2/holdings/state',
    'S3: the amulets and locked amulets owned by the parties at a snapshot, paged in creation order.',
    false,
  ),
  // The older path of the same operation (older Splice scan.yaml), answered in the v2 shape.
  holdingsStateV2(
    '/v0/holdings/state',
    'The older path of /v2/holdings/state, answered in the v2 shape (ActiveContract items, string page token).',
    true,
  ),
  operation({
    method: 'post',
    path: '/v1/holdings/state',
    summary: 'The older /v2/holdings/state with an int64 page token (removed from the newest Splice). Tokens are valid for 24 hours.',
    deprecated: true,
    request: { body: HoldingsStateBodyV1 },
    responses: { '200': { description: 'OK', body: AcsResponseV1 }, ...snapshotFailures },
    before: ({ heavyPage }: HoldingsServices) => [heavyPage],
    handle: holdingsState('holdings-state-v1', (s) => s.numberedTokens),
  }),
];

export function holdingsRoutes(context: ApiContext, tokens: PageTokens): Router {
  return mountOperations(Router(), holdingsOperations, {
    db: context.db,
    heavySummary: heavyRequest(context, SUMMARY_COST),
    heavyPage: heavyRequest(context, { pageSize: 'page_size', parties: 'owner_party_ids' }),
    tokens,
    numberedTokens: new NumberedPageTokens(primaryDbOf(context)),
  });
}
