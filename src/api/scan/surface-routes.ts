/**
 * The rest of the Scan surface (issue #31), one slice:
 *   GET  /v0/featured-apps/by-provider/{provider_party_id}, /v0/featured-apps/by-contract-id/{contract_id}
 *   GET  /v0/amulet-config-for-round?round=N    (deprecated: the round's fees in Amulet, from its OpenMiningRound)
 *   GET  /v0/active-synchronizer-serial         (the participant's connection: as below; 404 first without AmuletRules)
 *   POST /v0/admin/sv/voteresults/count         (what /v0/admin/sv/voteresults lists, counted)
 *   POST /v0/admin/sv/previous-sv-reward-weight (from the accepted SRARC_UpdateSvRewardWeight votes)
 *   GET  /status                                (Splice's common NodeStatus; our own /status stays at the root)
 *   GET  /v0/domains/{domain_id}/members/{member_id}/traffic-status,
 *        /v0/domains/{domain_id}/parties/{party_id}/participant-id and its /v1,
 *        /v0/sv-bft-sequencers                   (sequencer, topology or SV node state the indexer does not ingest)
 *   POST /v0/state/acs/force                    (always 501: snapshots are not taken on request)
 * Every answer comes from what the indexer ingests; where that cannot tell it, a mirror (SOURCE=scan) asks its
 * upstream Scans (./upstream-answers.ts, with attestation where configured), and any other indexer answers a 501
 * naming what it would need.
 */
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { contractJson } from '../../domain/contract-json';
import type { Json } from '../../domain/json';
import { roundAmuletConfig } from '../../domain/round-amulet-config';
import { SPLICE } from '../../domain/splice-contracts';
import { HttpError, notFound } from '../../internal/errors';
import {
  findLatestLiveContract,
  findLiveContractById,
  findNewestOpenRoundPayload,
  listFeaturedAppRightsOfProvider,
} from '../../store/contract-repository';
import { migrationStatus, type MigrationFile } from '../../store/migrator';
import type { Db } from '../../store/pool';
import { countVoteResults, previousSvRewardWeight } from '../../store/vote-result-repository';
import type pg from 'pg';
import type { ApiContext } from '../context';
import { sendJson } from '../json-response';
import { mountOperations, operation, type OperationOf, type ResponseDeclaration } from '../operation';
import { bool, ErrorResponse, int64 as int64Answer, str } from '../schema-kit';
import { requestParty } from './current-state';
import { scanErrors } from './error-answers';
import { queryInteger, requestTimestamp } from './params';
import { Contract } from './schemas';
import { upstreamAnswersOf, type UpstreamAnswers } from './upstream-answers';

interface SurfaceServices {
  db: Db;
  pool: pg.Pool;
  migrationFiles: MigrationFile[];
  /** A mirror's upstream Scans; undefined on any other indexer. */
  upstreams: UpstreamAnswers | undefined;
}

const ok = (body: z.ZodType) => ({ '200': { description: 'OK', body } });

/** A 501 of this module: the indexer does not ingest what the answer is made of. */
const notIngested = (what: string): Record<string, ResponseDeclaration> => ({
  '501': { description: `Not implemented here: the answer is ${what}, which the indexer does not ingest.`, body: ErrorResponse },
});
const notImplemented = (message: string) => new HttpError(501, message);

/** What a mirror answers instead of the 501: its upstreams' answer (./upstream-answers.ts). */
export const fromUpstreams: Record<string, ResponseDeclaration> = {
  '502': { description: 'A mirror whose attesting upstream Scans disagree: the message names each answer.', body: ErrorResponse },
  '503': {
    description: 'A mirror whose upstream Scans did not answer (enough of them): the message names each failure.',
    body: ErrorResponse,
  },
};

/** Answers as the mirror's upstreams do; false when this indexer is no mirror. */
export async function answeredByUpstreams(
  upstreams: UpstreamAnswers | undefined,
  path: string,
  body: z.ZodType,
  res: Response,
): Promise<boolean> {
  if (!upstreams) return false;
  const answer = await upstreams.ask(path, body);
  res.status(answer.status).type('application/json; charset=utf-8').send(answer.text);
  return true;
}

const segment = encodeURIComponent;

const optional = <T extends z.ZodType>(t: T) => t.nullish().transform((v) => v ?? undefined);
const optionalTimestamp = optional(z.string({ error: 'expected a timestamp string' }).meta({ format: 'date-time' }));

/** CountVoteResultsRequest: the filters of ListVoteResultsRequest, without the page. */
const CountVoteResultsRequest = z.object({
  actionName: optional(z.string({ error: 'expected a string' })),
  accepted: optional(z.boolean({ error: 'expected a boolean' })),
  requester: optional(z.string({ error: 'expected a string' })),
  effectiveFrom: optionalTimestamp,
  effectiveTo: optionalTimestamp,
});
const PreviousSvRewardWeightRequest = z.object({
  svParty: z.string({ error: 'expected a party id string' }),
  effectiveBefore: optionalTimestamp,
});

const FeaturedAppsResponse = z.object({ featured_apps: z.array(Contract) });
const FeaturedAppResponse = z.object({ featured_app_right: Contract.nullable() });
const RoundQuery = z.object({ round: queryInteger('an integer round') });
const AmuletConfigForRoundResponse = z.object({
  amulet_create_fee: str("The create fee in Amulet: the USD fee divided by the round's amulet price."),
  holding_fee: str('The holding fee per round in Amulet.'),
  lock_holder_fee: str('The fee per lock holder in Amulet.'),
  transfer_fee: z.object({
    initial: str('The rate up to the first step.'),
    steps: z.array(z.object({ amount: str('From this amount in Amulet...'), rate: str('...this rate.') })),
  }),
});
const SerialResponse = z.object({ serial: int64Answer() });
/** The shapes of the answers a mirror forwards (scan.yaml), checked before they are passed on. */
const TrafficStatusResponse = z.object({
  traffic_status: z.object({
    actual: z.object({ total_consumed: int64Answer(), total_limit: int64Answer() }),
    target: z.object({ total_purchased: int64Answer() }),
  }),
});
const ParticipantIdResponse = z.object({ participant_id: str() });
const ParticipantIdsResponse = z.object({ participant_ids: z.array(str()) });
const BftSequencersResponse = z.object({
  bftSequencers: z.array(
    z.object({
      serialId: int64Answer('The synchronizer serial of this sequencer.'),
      id: str('The id of the sequencer.'),
      p2pUrl: str('Its public P2P URL, for inter-sequencer communication.'),
    }),
  ),
});
const CountResponse = z.object({ count: int64Answer() });
const RewardWeightResponse = z.object({ rewardWeight: str().optional() });
/** Splice's common NodeStatus: one of success, not_initialized or failed. */
const NodeStatus = z.union([
  z.object({
    success: z.object({
      id: str('This service: it is no Canton node and has no node id of its own.'),
      uptime: str('How long the process has run, as an ISO-8601 duration (as Java prints a Duration).'),
      ports: z.record(z.string(), z.number().int().meta({ format: 'int32' })),
      active: bool(),
    }),
  }),
  z.object({ not_initialized: z.object({ active: bool() }) }),
  z.object({ failed: ErrorResponse }),
]);

const featuredAppsByProvider = operation({
  method: 'get',
  path: '/v0/featured-apps/by-provider/{provider_party_id}',
  summary: 'Every live FeaturedAppRight of a provider, in ingestion order (an empty list when it has none; at most 1000).',
  responses: { ...ok(FeaturedAppsResponse), ...scanErrors(400, 500) },
  handle: async ({ db }: SurfaceServices, { params }, _req, res) => {
    const rights = await listFeaturedAppRightsOfProvider(db, requestParty(params.provider_party_id!));
    sendJson(res, { featured_apps: rights.map(contractJson) });
  },
});

// Always 200, as on Scan: an id that is not a live FeaturedAppRight (or no contract id at all) gets null.
const featuredAppByContractId = operation({
  method: 'get',
  path: '/v0/featured-apps/by-contract-id/{contract_id}',
  summary: 'The live FeaturedAppRight of this contract id, or null.',
  responses: { ...ok(FeaturedAppResponse), ...scanErrors(500) },
  handle: async ({ db }: SurfaceServices, { params }, _req, res) => {
    const right = await findLiveContractById(db, SPLICE.featuredAppRight, params.contract_id!);
    sendJson(res, { featured_app_right: right ? contractJson(right) : null });
  },
});

// Deprecated in Splice but still called; its 404 names the round, as HttpScanHandler's does.
const amuletConfigForRound = operation({
  method: 'get',
  path: '/v0/amulet-config-for-round',
  summary:
    "Deprecated: the fees of a round in Amulet, from the newest OpenMiningRound ingested for it (its transferConfigUsd at its amuletPrice, as the Scan app's tx log records it); 404 for a round never opened.",
  deprecated: true,
  request: { query: RoundQuery },
  responses: { ...ok(AmuletConfigForRoundResponse), ...scanErrors(400, 404, 500) },
  handle: async ({ db }: SurfaceServices, { query }, _req, res) => {
    const payload = await findNewestOpenRoundPayload(db, query.round);
    if (payload === undefined) throw notFound(`Round ${query.round} not found`);
    sendJson(res, roundAmuletConfig(JSON.parse(payload) as Json) satisfies z.input<typeof AmuletConfigForRoundResponse>);
  },
});

// Scan reads the physical synchronizer its participant is connected to for the AmuletRules' synchronizer;
// the updates name only the logical synchronizer, so only the Scan app's 404 is known here. A mirror asks
// its upstreams for the whole answer (their participants' connections decide their 404s too).
const activeSynchronizerSerial = operation({
  method: 'get',
  path: '/v0/active-synchronizer-serial',
  summary:
    "The serial of the physical synchronizer of the AmuletRules' synchronizer: on a mirror, as its upstream Scans answer; elsewhere 404 without AmuletRules (as on Scan), else 501 (the serial is the SV participant's connection state, not in the updates).",
  responses: {
    ...ok(SerialResponse),
    ...scanErrors(404, 500),
    ...notIngested("the SV participant's connection to a physical synchronizer"),
    ...fromUpstreams,
  },
  handle: async ({ db, upstreams }: SurfaceServices, _input, _req, res) => {
    if (await answeredByUpstreams(upstreams, '/v0/active-synchronizer-serial', SerialResponse, res)) return;
    const rules = await findLatestLiveContract(db, SPLICE.amuletRules);
    // In flight (unassigned) counts as none, as in the Scan app.
    if (!rules?.synchronizerId) throw notFound('No amulet rules');
    throw notImplemented(
      `The physical synchronizer serial of ${rules.synchronizerId} is what the SV participant is connected to; this indexer ingests updates, which name only the logical synchronizer.`,
    );
  },
});

const voteResultsCount = operation({
  method: 'post',
  path: '/v0/admin/sv/voteresults/count',
  summary:
    'How many closed votes /v0/admin/sv/voteresults would list with these filters and no limit (actionName and requester as substrings; effectiveFrom and effectiveTo as there). No authentication, as on Scan.',
  request: { body: CountVoteResultsRequest },
  responses: { ...ok(CountResponse), ...scanErrors(400, 500) },
  handle: async ({ db }: SurfaceServices, { body }, _req, res) => {
    const count = await countVoteResults(db, {
      actionName: body.actionName,
      accepted: body.accepted,
      requester: body.requester,
      effectiveFrom: body.effectiveFrom === undefined ? undefined : requestTimestamp(body.effectiveFrom),
      effectiveTo: body.effectiveTo === undefined ? undefined : requestTimestamp(body.effectiveTo),
    });
    sendJson(res, { count } satisfies z.input<typeof CountResponse>);
  },
});

const previousRewardWeight = operation({
  method: 'post',
  path: '/v0/admin/sv/previous-sv-reward-weight',
  summary:
    "The SV's reward weight set by the newest accepted SRARC_UpdateSvRewardWeight vote effective strictly before effectiveBefore (any, without it); no rewardWeight when there is none. No authentication, as on Scan.",
  request: { body: PreviousSvRewardWeightRequest },
  responses: { ...ok(RewardWeightResponse), ...scanErrors(400, 500) },
  handle: async ({ db }: SurfaceServices, { body }, _req, res) => {
    const sv = requestParty(body.svParty);
    const before = body.effectiveBefore === undefined ? undefined : requestTimestamp(body.effectiveBefore);
    const weight = await previousSvRewardWeight(db, sv, before);
    sendJson(res, (weight === undefined ? {} : { rewardWeight: weight }) satisfies z.input<typeof RewardWeightResponse>);
  },
});

/** A Java Duration as it prints itself (PT1H2M3.5S; PT0S), to the millisecond. */
function isoDuration(seconds: number): string {
  const ms = Math.floor(seconds * 1000);
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  const parts = `${h > 0 ? `${h}H` : ''}${m > 0 ? `${m}M` : ''}${s > 0 ? `${s}S` : ''}`;
  return `PT${parts === '' ? '0S' : parts}`;
}

// The common status of every Splice app: active once the database answers with its schema current (as /readyz).
const nodeStatus = operation({
  method: 'get',
  path: '/status',
  summary:
    "Splice's common node status: success (active, with the process's uptime and the port it serves on) once the schema is current, not_initialized while migrations are pending, failed when the database does not answer. The indexer's own progress is at /status at the root.",
  responses: ok(NodeStatus),
  handle: async ({ pool, migrationFiles }: SurfaceServices, _input, req: Request, res) => {
    let body: z.input<typeof NodeStatus>;
    try {
      const status = await migrationStatus(pool, migrationFiles);
      body =
        status.pending.length > 0
          ? { not_initialized: { active: false } }
          : {
              success: {
                id: 'scan-indexer',
                uptime: isoDuration(process.uptime()),
                ports: { http: req.socket.localPort ?? 0 },
                active: true,
              },
            };
    } catch {
      body = { failed: { error: 'database unavailable or schema not current' } };
    }
    sendJson(res, body);
  },
});

const DomainMemberParams = z.object({ domain_id: z.string(), member_id: z.string() });
const DomainPartyParams = z.object({ domain_id: z.string(), party_id: z.string() });

const trafficStatus = operation({
  method: 'get',
  path: '/v0/domains/{domain_id}/members/{member_id}/traffic-status',
  summary:
    "A member's traffic status: on a mirror, as its upstream Scans answer; elsewhere 501, it is the sequencer's traffic state (consumed and limit), which the indexer does not ingest.",
  request: { params: DomainMemberParams },
  responses: {
    ...ok(TrafficStatusResponse),
    ...scanErrors(400, 404, 500),
    ...notIngested("the sequencer's traffic state of the member"),
    ...fromUpstreams,
  },
  handle: async ({ upstreams }: SurfaceServices, { params }, _req, res) => {
    const path = `/v0/domains/${segment(params.domain_id)}/members/${segment(params.member_id)}/traffic-status`;
    if (await answeredByUpstreams(upstreams, path, TrafficStatusResponse, res)) return;
    throw notImplemented(
      `The traffic status of ${params.member_id} on ${params.domain_id} is the sequencer's traffic state (extra traffic consumed and its limit), which this indexer does not ingest; ask a Scan of an SV.`,
    );
  },
});

const participantIdOperation = (version: 'v0' | 'v1') =>
  operation({
    method: 'get',
    path: `/${version}/domains/{domain_id}/parties/{party_id}/participant-id`,
    summary: `The participant${version === 'v1' ? 's' : ''} hosting a party: on a mirror, as its upstream Scans answer; elsewhere 501, it is the synchronizer's topology state (party-to-participant mappings), which the indexer does not ingest.`,
    request: { params: DomainPartyParams },
    responses: {
      ...ok(version === 'v1' ? ParticipantIdsResponse : ParticipantIdResponse),
      ...scanErrors(400, 404, 500),
      ...notIngested("the synchronizer's party-to-participant topology mapping"),
      ...fromUpstreams,
    },
    handle: async ({ upstreams }: SurfaceServices, { params }, _req, res) => {
      const party = requestParty(params.party_id);
      const path = `/${version}/domains/${segment(params.domain_id)}/parties/${segment(party)}/participant-id`;
      if (await answeredByUpstreams(upstreams, path, version === 'v1' ? ParticipantIdsResponse : ParticipantIdResponse, res)) return;
      throw notImplemented(
        `The participants hosting ${party} on ${params.domain_id} are the synchronizer's party-to-participant topology mapping, which this indexer does not ingest; ask a Scan of an SV.`,
      );
    },
  });

// "For this SV": the Scan app's own BFT sequencer configuration, asked of its sequencer's admin API.
const svBftSequencers = operation({
  method: 'get',
  path: '/v0/sv-bft-sequencers',
  summary:
    "This SV's BFT sequencers: on a mirror, as its upstream Scans answer; elsewhere 501, they are an SV node's own sequencer configuration, which the indexer does not have.",
  responses: {
    ...ok(BftSequencersResponse),
    ...scanErrors(500),
    ...notIngested("an SV node's own BFT sequencer configuration and sequencer ids"),
    ...fromUpstreams,
  },
  handle: async ({ upstreams }: SurfaceServices, _input, _req, res) => {
    if (await answeredByUpstreams(upstreams, '/v0/sv-bft-sequencers', BftSequencersResponse, res)) return;
    throw notImplemented(
      "The BFT sequencers of this SV are an SV node's own configuration (its sequencers' ids and P2P URLs); this indexer is no SV node and has none.",
    );
  },
});

// Scan takes a snapshot of its own ACS store now; an indexer's snapshots follow the ingested history, and Splice
// disables this in production anyway. Never forwarded: it would alter an upstream Scan's snapshots.
const forceAcsSnapshot = operation({
  method: 'post',
  path: '/v0/state/acs/force',
  summary: "Splice's forced ACS snapshot: always 501 here; the indexer's snapshots are not taken on request.",
  responses: {
    '501': { description: 'Not implemented here: snapshots are not taken on request.', body: ErrorResponse },
  },
  handle: () => {
    throw notImplemented(
      'Forcing an ACS snapshot is not supported: this indexer does not take snapshots on request (Splice disables it in production too).',
    );
  },
});

/**
 * In the order a request walks them. The scan router mounts these after the other Scan routers: none of
 * their paths is a prefix of another's here, and /v0/featured-apps/{provider_party_id} takes one segment only.
 */
export const surfaceOperations: readonly OperationOf<SurfaceServices>[] = [
  featuredAppsByProvider,
  featuredAppByContractId,
  amuletConfigForRound,
  activeSynchronizerSerial,
  voteResultsCount,
  previousRewardWeight,
  nodeStatus,
  trafficStatus,
  participantIdOperation('v0'),
  participantIdOperation('v1'),
  svBftSequencers,
  forceAcsSnapshot,
];

export function surfaceRoutes(context: ApiContext): Router {
  const { db, pool, migrationFiles } = context;
  return mountOperations(Router(), surfaceOperations, { db, pool, migrationFiles, upstreams: upstreamAnswersOf(context.config) });
}
