/**
 * The ACS at announced snapshots (docs/interfaces.md, "Scan: ACS snapshots"):
 *       POST /v0/state/acs, /v2/state/acs         (v2 shape: ActiveContract items, string token; the
 *                                                 newest Splice serves only the /v2 path)
 *       POST /v1/state/acs                        (the same with an int64 token, as older Splice had it)
 *       GET  /v0/state/acs/snapshot-timestamp
 *   S8  GET  /v0/state/acs/snapshot-timestamp-after
 */
import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { formatDateTime, formatRequestTimeForMessage } from '../../domain/time';
import { notFound } from '../../internal/errors';
import { acsPage, firstSnapshotAfter } from '../../store/acs-repository';
import type { Db } from '../../store/pool';
import { primaryDbOf, type ApiContext } from '../context';
import { heavyRequest } from '../fair-access/heavy-requests';
import { mountOperations, operation, type OperationOf } from '../operation';
import { pageLimit } from '../page-limit';
import { NumberedPageTokens } from '../numbered-page-token';
import type { PageTokens, PositionTokens, TokenScope } from '../page-token';
import { dateTime } from '../schema-kit';
import { scanErrors } from './error-answers';
import { AcsResponse, AcsResponseV1 } from './schemas';
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

interface AcsServices {
  db: Db;
  /** The string page tokens of /v0 and /v2. */
  tokens: PageTokens;
  /** The int64 page tokens of /v1. */
  numberedTokens: NumberedPageTokens;
  heavy: RequestHandler;
}

const SnapshotTime = z.object({ record_time: dateTime() });

type AcsBody<T> = Omit<z.output<typeof AcsRequest>, 'after'> & { after?: T | null | undefined };

/** One of the ACS operations: the same reading, with its path's request schema, page tokens and answer. */
const acsState = <T extends string | number>(declaration: {
  path: string;
  summary: string;
  deprecated?: boolean;
  /** The page tokens' scope. */
  operation: string;
  body: z.ZodType<AcsBody<T>>;
  answer: z.ZodType;
  pageTokens: (services: AcsServices) => PositionTokens<T>;
}) =>
  operation({
    method: 'post',
    path: declaration.path,
    summary: declaration.summary,
    ...(declaration.deprecated ? { deprecated: true } : {}),
    request: { body: declaration.body },
    responses: { '200': { description: 'OK', body: declaration.answer }, ...scanErrors(400, 404, 410, 500) },
    before: ({ heavy }: AcsServices) => [heavy],
    handle: async (services: AcsServices, { body }, req, res) => {
      const { db } = services;
      const pageTokens = declaration.pageTokens(services);
      const limit = pageLimit(body.page_size);
      const parties = partyList('party_ids', body.party_ids ?? [], false);
      const templates = templateList(body.templates ?? []);
      const scope: TokenScope = {
        operation: declaration.operation,
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
    },
  });

const SUMMARY = 'The ACS at a snapshot, filtered by stakeholder and template, paged in creation order.';

const acsV0 = acsState({
  path: '/v0/state/acs',
  summary: SUMMARY,
  operation: 'acs-state',
  body: AcsRequest,
  answer: AcsResponse,
  pageTokens: ({ tokens }) => tokens,
});

const acsV2 = acsState({
  path: '/v2/state/acs',
  summary: 'The newest path of /v0/state/acs, in creation order, filtered by stakeholder and template.',
  operation: 'acs-state',
  body: AcsRequest,
  answer: AcsResponse,
  pageTokens: ({ tokens }) => tokens,
});

const acsV1 = acsState({
  path: '/v1/state/acs',
  summary: 'The older /v2/state/acs with an int64 page token (removed from the newest Splice). Tokens are valid for 24 hours.',
  deprecated: true,
  operation: 'acs-state-v1',
  body: AcsRequestV1,
  answer: AcsResponseV1,
  pageTokens: ({ numberedTokens }) => numberedTokens,
});

const snapshotTimestamp = operation({
  method: 'get',
  path: '/v0/state/acs/snapshot-timestamp',
  summary: 'The newest snapshot of the migration at or before a time.',
  request: { query: SnapshotBeforeQuery },
  responses: { '200': { description: 'OK', body: SnapshotTime }, ...scanErrors(400, 404, 410, 500) },
  handle: async ({ db }: AcsServices, { query: q }, req, res) => {
    const snapshot = await snapshotAtOrBeforeOrFail(db, q.migration_id, q.before, quotedQuery(req, 'before'));
    sendJson(res, { record_time: formatDateTime(snapshot) } satisfies z.input<typeof SnapshotTime>);
  },
});

const snapshotTimestampAfter = operation({
  method: 'get',
  path: '/v0/state/acs/snapshot-timestamp-after',
  summary: 'S8: the first snapshot after a time, in this migration or a later one.',
  request: { query: SnapshotAfterQuery },
  responses: { '200': { description: 'OK', body: SnapshotTime }, ...scanErrors(400, 404, 500) },
  handle: async ({ db }: AcsServices, { query: q }, req, res) => {
    const snapshot = await firstSnapshotAfter(db, q.migration_id, q.after);
    if (snapshot === undefined) throw notFound(`No snapshots found after ${formatRequestTimeForMessage(quotedQuery(req, 'after'))}`);
    sendJson(res, { record_time: formatDateTime(snapshot) } satisfies z.input<typeof SnapshotTime>);
  },
});

export const acsOperations: readonly OperationOf<AcsServices>[] = [acsV0, acsV2, acsV1, snapshotTimestamp, snapshotTimestampAfter];

export function acsRoutes(context: ApiContext, tokens: PageTokens): Router {
  return mountOperations(Router(), acsOperations, {
    db: context.db,
    tokens,
    numberedTokens: new NumberedPageTokens(primaryDbOf(context)),
    heavy: heavyRequest(context, { pageSize: 'page_size', parties: 'party_ids' }),
  });
}
