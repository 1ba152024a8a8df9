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
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import { formatDecimal } from '../../domain/decimal';
import { summaryFigures } from '../../domain/holding-fees';
import { formatDateTime } from '../../domain/time';
import { badRequest } from '../../internal/errors';
import { earliestOpenRound, holdingsPage, holdingsTotals } from '../../store/holdings-repository';
import type { Db } from '../../store/pool';
import { primaryDbOf, type ApiContext } from '../context';
import { heavyRequest, type CostRule } from '../fair-access/heavy-requests';
import { sendJson } from '../json-response';
import { pageLimit } from '../page-limit';
import { NumberedPageTokens } from '../numbered-page-token';
import type { PageTokens, PositionTokens, TokenScope } from '../page-token';
import { parseInput } from '../validation';
import {
  HoldingsStateRequest,
  HoldingsStateRequestV1,
  partyList,
  quotedRecordTime,
  SummaryRequestV0,
  SummaryRequestV1,
} from './snapshot-input';
import { exactSnapshotOrFail, pagePosition, resolveSnapshot, sendPage, snapshotAtOrBeforeOrFail } from './snapshot-service';

export function holdingsRoutes(context: ApiContext, tokens: PageTokens): Router {
  const { db } = context;
  const router = Router();
  const heavySummary = heavyRequest(context, SUMMARY_COST);

  router.post('/v0/holdings/summary', heavySummary, holdingsSummaryV0(db));

  router.post('/v1/holdings/summary', heavySummary, holdingsSummaryV1(db));

  const holdingsState =
    <T extends string | number>(
      operation: string,
      schema: z.ZodType<Omit<z.output<typeof HoldingsStateRequest>, 'after'> & { after?: T | null | undefined }, unknown>,
      pageTokens: PositionTokens<T>,
    ) =>
    async (req: Request, res: Response) => {
      const body = parseInput(schema, req.body, 'body');
      const limit = pageLimit(body.page_size);
      const owners = partyList('owner_party_ids', body.owner_party_ids, true);
      const scope: TokenScope = {
        operation,
        request: { m: body.migration_id, t: body.record_time.toString(), x: body.record_time_match, o: owners },
      };
      const { snapshot, after } = await pagePosition(db, pageTokens, scope, body.migration_id, body, quotedRecordTime(req));
      const contracts = await holdingsPage(db, { migrationId: body.migration_id, at: snapshot, after, limit, owners });
      await sendPage(res, pageTokens, scope, { migrationId: body.migration_id, snapshot, recordTime: body.record_time }, contracts, limit);
    };
  const current = holdingsState('holdings-state', HoldingsStateRequest, tokens);
  const heavyPage = heavyRequest(context, { pageSize: 'page_size', parties: 'owner_party_ids' });
  router.post('/v2/holdings/state', heavyPage, current);
  // The older path of the same operation (older Splice scan.yaml), answered in the v2 shape.
  router.post('/v0/holdings/state', heavyPage, current);
  router.post(
    '/v1/holdings/state',
    heavyPage,
    holdingsState('holdings-state-v1', HoldingsStateRequestV1, new NumberedPageTokens(primaryDbOf(context))),
  );

  return router;
}

/** What makes a holdings summary expensive (also behind the validator's proxy). */
export const SUMMARY_COST: CostRule = { parties: 'owner_party_ids' };

/** S2, POST /v1/holdings/summary: totals per owner at a snapshot, without fees (also the validator proxy's v1 path). */
export function holdingsSummaryV1(db: Db): RequestHandler {
  return async (req, res) => {
    const body = parseInput(SummaryRequestV1, req.body, 'body');
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
    });
  };
}

/** S1, also forwarded unchanged by the validator's scan-proxy (/v0/scan-proxy/holdings/summary). */
export function holdingsSummaryV0(db: Db): RequestHandler {
  return async (req, res) => {
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
    // scan.yaml: record_time and migration_id are the request's (the Scan app reports the snapshot's time).
    sendJson(res, {
      record_time: formatDateTime(body.record_time),
      migration_id: body.migration_id,
      computed_as_of_round: Number(round),
      summaries: totals.map((t) => ({
        party_id: t.partyId,
        ...Object.fromEntries(Object.entries(summaryFigures(t)).map(([k, v]) => [k, formatDecimal(v)])),
      })),
    });
  };
}
