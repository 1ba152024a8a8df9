/**
 * The ACS at announced snapshots (docs/interfaces.md, "Scan: ACS snapshots"):
 *       POST /v0/state/acs, /v2/state/acs         (v2 shape: ActiveContract items, string token; the
 *                                                 newest Splice serves only the /v2 path)
 *       POST /v1/state/acs                        (the same with an int64 token, as older Splice had it)
 *       GET  /v0/state/acs/snapshot-timestamp
 *   S8  GET  /v0/state/acs/snapshot-timestamp-after
 */
import { Router, type RequestHandler } from 'express';
import type { z } from 'zod';
import { formatDateTime, formatRequestTimeForMessage } from '../../domain/time';
import { notFound } from '../../internal/errors';
import { acsPage, firstSnapshotAfter } from '../../store/acs-repository';
import { primaryDbOf, type ApiContext } from '../context';
import { heavyRequest } from '../fair-access/heavy-requests';
import { pageLimit } from '../page-limit';
import { NumberedPageTokens } from '../numbered-page-token';
import type { PageTokens, PositionTokens, TokenScope } from '../page-token';
import { parseInput } from '../validation';
import {
  AcsRequest,
  AcsRequestV1,
  partyList,
  quotedQuery,
  quotedRecordTime,
  SnapshotAfterQuery,
  SnapshotBeforeQuery,
  templateList,
} from './snapshot-input';
import { pagePosition, sendPage, snapshotAtOrBeforeOrFail } from './snapshot-service';
import { sendJson } from '../json-response';

export function acsRoutes(context: ApiContext, tokens: PageTokens): Router {
  const { db } = context;
  const router = Router();
  const heavy = heavyRequest(context, { pageSize: 'page_size', parties: 'party_ids' });

  const acsState =
    <T extends string | number>(
      operation: string,
      schema: z.ZodType<Omit<z.output<typeof AcsRequest>, 'after'> & { after?: T | null | undefined }, unknown>,
      pageTokens: PositionTokens<T>,
    ): RequestHandler =>
    async (req, res) => {
      const body = parseInput(schema, req.body, 'body');
      const limit = pageLimit(body.page_size);
      const parties = partyList('party_ids', body.party_ids ?? [], false);
      const templates = templateList(body.templates ?? []);
      const scope: TokenScope = {
        operation,
        request: {
          m: body.migration_id,
          t: body.record_time.toString(),
          x: body.record_time_match,
          p: parties,
          k: templates.map((t) => `${t.packageName}:${t.qualifiedName}`),
        },
      };
      const { snapshot, after } = await pagePosition(db, pageTokens, scope, body.migration_id, body, quotedRecordTime(req));
      const contracts = await acsPage(db, { migrationId: body.migration_id, at: snapshot, after, limit, parties, templates });
      await sendPage(res, pageTokens, scope, { migrationId: body.migration_id, snapshot, recordTime: snapshot }, contracts, limit);
    };
  const current = acsState('acs-state', AcsRequest, tokens);
  router.post('/v0/state/acs', heavy, current);
  router.post('/v2/state/acs', heavy, current);
  router.post('/v1/state/acs', heavy, acsState('acs-state-v1', AcsRequestV1, new NumberedPageTokens(primaryDbOf(context))));

  router.get('/v0/state/acs/snapshot-timestamp', async (req, res) => {
    const q = parseInput(SnapshotBeforeQuery, req.query, 'query');
    const snapshot = await snapshotAtOrBeforeOrFail(db, q.migration_id, q.before, quotedQuery(req, 'before'));
    sendJson(res, { record_time: formatDateTime(snapshot) });
  });

  router.get('/v0/state/acs/snapshot-timestamp-after', async (req, res) => {
    const q = parseInput(SnapshotAfterQuery, req.query, 'query');
    const snapshot = await firstSnapshotAfter(db, q.migration_id, q.after);
    if (snapshot === undefined) throw notFound(`No snapshots found after ${formatRequestTimeForMessage(quotedQuery(req, 'after'))}`);
    sendJson(res, { record_time: formatDateTime(snapshot) });
  });

  return router;
}
