/**
 * Network state from the DSO's live contracts and from network facts
 * (Splice ScanStore; docs/interfaces.md, "Scan: contract-backed state"): S9 closed rounds, S10 vote requests, S11 LSU,
 * S12 roll-forward LSU, S13 scans, S14 migration schedule, S15 last migration
 * id, S16 DSO party id; vote requests by tracking id, vote results (from the
 * history), amulet price votes; and /v0/dso-sequencers,
 * /v0/splice-instance-names, /v0/feature-support and /v0/backfilling/status.
 */
import { Router } from 'express';
import { z } from 'zod';
import { contractJson } from '../../domain/contract-json';
import { groupDsoScans, groupDsoSequencers, readDsoRules, readSvNodeState, type SequencerInfo } from '../../domain/dso-state';
import { SPLICE } from '../../domain/splice-contracts';
import { formatDateTime, parseTimestamp } from '../../domain/time';
import { readBuildInfo } from '../../internal/build-info';
import type { Config } from '../../internal/config';
import { notFound } from '../../internal/errors';
import { RawJson } from '../../domain/raw-json';
import { jsonArrayObject } from '../../domain/update-rendering';
import { listVoteResults } from '../../store/vote-result-repository';
import {
  findLatestLiveContract,
  listLiveContracts,
  listLiveRounds,
  listLiveVoteRequestsByTrackingCid,
  payloadOf,
} from '../../store/contract-repository';
import { acceptedOrFromPrimary } from '../../store/read-context';
import { historyIncomplete } from '../../store/update-repository';
import { findLastMigrationId, findLsuAnnouncement, findRollForwardLsu } from '../../store/network-repository';
import type { Db } from '../../store/pool';
import type { ApiContext } from '../context';
import { sendJsonBytes } from '../answer-cache';
import { sendJson } from '../json-response';
import { mountOperations, operation, type OperationOf } from '../operation';
import { hotAnswers, type HotAnswers } from './hot-answers';
import { pageLimit } from '../page-limit';
import { bool, dateTime, int64 as int64Answer, jsonObject, str } from '../schema-kit';
import { scanErrors } from './error-answers';
import { int64, requestTimestamp } from './params';
import { Contract, LastMigration, ScansResponse } from './schemas';

const optional = <T extends z.ZodType>(t: T) => t.nullish().transform((v) => v ?? undefined);
const VoteResultsRequest = z.object({
  actionName: optional(z.string({ error: 'expected a string' })),
  accepted: optional(z.boolean({ error: 'expected a boolean' })),
  requester: optional(z.string({ error: 'expected a string' })),
  effectiveFrom: optional(z.string({ error: 'expected a timestamp string' }).meta({ format: 'date-time' })),
  effectiveTo: optional(z.string({ error: 'expected a timestamp string' }).meta({ format: 'date-time' })),
  limit: int64.meta({ type: 'integer', format: 'int32' }),
});

const VoteRequestsRequest = z.object({
  vote_request_contract_ids: z.array(z.string({ error: 'expected a string' }), { error: 'expected an array' }),
});

const DsoPartyId = z.object({ dso_party_id: str() });
const ClosedRounds = z.object({ rounds: z.array(Contract) });
const VoteRequests = z.object({ dso_rules_vote_requests: z.array(Contract) });
const AmuletPriceVotes = z.object({ amulet_price_votes: z.array(Contract) });
const VoteResults = z.object({ dso_rules_vote_results: z.array(jsonObject()) });
const VoteRequestByTrackingId = z.object({ dso_rules_vote_request: Contract });
const VoteRequestsByTrackingIds = z.object({ vote_requests: z.array(Contract) });
const Lsu = z.object({
  lsu: z.object({ topologyFreezeTime: dateTime(), upgradeTime: dateTime(), successorPhysicalSynchronizerId: str() }).nullable().optional(),
});
const RollForwardLsu = z.object({
  rollForwardLsu: z
    .object({ upgradeTime: dateTime(), currentPhysicalSynchronizerId: str(), successorPhysicalSynchronizerId: str() })
    .nullable()
    .optional(),
});
/** A legacy sequencer is available since always: Java's OffsetDateTime.MIN, as the Scan app prints it. */
const SINCE_ALWAYS = '-999999999-01-01T00:00:00+18:00';
const DsoSequencers = z.object({
  domainSequencers: z.array(
    z.object({
      domainId: str(),
      sequencers: z.array(
        z.object({
          migrationId: int64Answer(),
          synchronizerSerial: int64Answer().nullable(),
          id: str(),
          url: str(),
          svName: str(),
          availableAfter: z
            // The constant is a string by its value: the document states only the value.
            .union([dateTime(), z.literal(SINCE_ALWAYS).meta({ type: undefined })])
            .describe("A date-time, or Java's OffsetDateTime.MIN as the Scan app prints it for a legacy sequencer available since always."),
        }),
      ),
    }),
  ),
});
const InstanceNames = z.object({
  network_name: str(),
  network_favicon_url: str(),
  amulet_name: str(),
  amulet_name_acronym: str(),
  name_service_name: str(),
  name_service_name_acronym: str(),
});
const Version = z.object({ version: str(), commit_ts: dateTime() });
const FeatureSupport = z.object({ dummy: bool().nullable().optional() });
const BackfillingStatus = z.object({ complete: bool() });
const MigrationSchedule = z.object({ time: dateTime(), migration_id: int64Answer() });

interface NetworkServices {
  db: Db;
  config: Config;
  hot: HotAnswers;
}

const ok = (body: z.ZodType) => ({ '200': { description: 'OK', body } });

const lastMigration = operation({
  method: 'get',
  path: '/v0/migrations/last',
  summary: 'S15: the current migration id.',
  responses: ok(LastMigration),
  handle: async ({ db, config }: NetworkServices, _input, _req, res) => {
    const ingested = await findLastMigrationId(db);
    sendJson(res, { migration_id: Math.max(ingested ?? 0, config.migrationId) } satisfies z.input<typeof LastMigration>);
  },
});

const dsoPartyId = operation({
  method: 'get',
  path: '/v0/dso-party-id',
  summary: 'S16: the DSO party.',
  responses: { ...ok(DsoPartyId), ...scanErrors(404) },
  handle: async ({ hot }: NetworkServices, _input, _req, res) => {
    const answer = await hot.dsoPartyId();
    if (answer.value === null) throw notFound('No DSO party is known yet: no DsoRules contract has been ingested.');
    sendJsonBytes(
      res,
      answer.bytes('dso-party-id', (id) => ({ dso_party_id: id })),
    );
  },
});

// S9: ClosedMiningRound contracts are archived once the round's rewards are processed,
// so the live ones are exactly the closed rounds still in process.
const closedRounds = operation({
  method: 'get',
  path: '/v0/closed-rounds',
  summary: 'S9: closed mining rounds still in post-close processing, by round number.',
  responses: ok(ClosedRounds),
  handle: async ({ db }: NetworkServices, _input, _req, res) => {
    const rounds = await listLiveRounds(db, SPLICE.closedMiningRound);
    sendJson(res, { rounds: rounds.map(contractJson) });
  },
});

// S10: no authentication on Scan despite "admin" in the path.
const voteRequests = operation({
  method: 'get',
  path: '/v0/admin/sv/voterequests',
  summary: 'S10: all active vote requests.',
  responses: ok(VoteRequests),
  handle: async ({ db }: NetworkServices, _input, _req, res) => {
    const requests = await listLiveContracts(db, SPLICE.voteRequest);
    sendJson(res, { dso_rules_vote_requests: requests.map(contractJson) });
  },
});

// Each SV's current price vote (one live contract per SV), in ingestion order.
const amuletPriceVotes = operation({
  method: 'get',
  path: '/v0/amulet-price/votes',
  summary: "The SVs' current amulet price votes.",
  responses: ok(AmuletPriceVotes),
  handle: async ({ db }: NetworkServices, _input, _req, res) => {
    const votes = await listLiveContracts(db, SPLICE.amuletPriceVote);
    sendJson(res, { amulet_price_votes: votes.map(contractJson) });
  },
});

// From the DsoRules_CloseVoteRequest results in the history; no authentication, as on Scan.
const voteResults = operation({
  method: 'post',
  path: '/v0/admin/sv/voteresults',
  summary:
    'Results of closed votes (DsoRules_CloseVoteRequest), newest first by effective time (completion time when not accepted); actionName and requester match as substrings; effectiveFrom and effectiveTo bound the effective time (both: inclusive; one: exclusive). No authentication, as on Scan.',
  request: { body: VoteResultsRequest },
  responses: { ...ok(VoteResults), ...scanErrors(400, 500) },
  handle: async ({ db }: NetworkServices, { body }, _req, res) => {
    const results = await listVoteResults(
      db,
      {
        actionName: body.actionName,
        accepted: body.accepted,
        requester: body.requester,
        effectiveFrom: body.effectiveFrom === undefined ? undefined : requestTimestamp(body.effectiveFrom),
        effectiveTo: body.effectiveTo === undefined ? undefined : requestTimestamp(body.effectiveTo),
      },
      pageLimit(body.limit),
    );
    sendJson(res, new RawJson(jsonArrayObject('dso_rules_vote_results', results)));
  },
});

// Both match the tracking id (a request's first contract id), as the Scan store does.
const voteRequestByTrackingId = operation({
  method: 'get',
  path: '/v0/voterequests/{vote_request_contract_id}',
  summary: "An active vote request by tracking id: the request's first contract id (votes re-create it under new ids).",
  request: { params: z.object({ vote_request_contract_id: z.string() }) },
  responses: { ...ok(VoteRequestByTrackingId), ...scanErrors(404) },
  handle: async ({ db }: NetworkServices, { params }, _req, res) => {
    const id = params.vote_request_contract_id;
    const [found] = await listLiveVoteRequestsByTrackingCid(db, [id], 1);
    if (!found) throw notFound(`No VoteRequest found contract: ${id}`);
    sendJson(res, { dso_rules_vote_request: contractJson(found) });
  },
});

const voteRequestsByTrackingIds = operation({
  method: 'post',
  path: '/v0/voterequest',
  summary: 'The active vote requests whose tracking ids are listed (at most 1,000).',
  request: { body: VoteRequestsRequest },
  responses: { ...ok(VoteRequestsByTrackingIds), ...scanErrors(400) },
  handle: async ({ db }: NetworkServices, { body }, _req, res) => {
    const requests = await listLiveVoteRequestsByTrackingCid(db, body.vote_request_contract_ids);
    sendJson(res, { vote_requests: requests.map(contractJson) });
  },
});

// S11: Scan asks its participant; we serve the configured announcement (LSU_*), else what
// network_facts holds (no source records it yet), else null.
const lsu = operation({
  method: 'get',
  path: '/v0/lsu',
  summary: 'S11: the next logical synchronizer upgrade, or null.',
  responses: ok(Lsu),
  handle: async ({ db, config }: NetworkServices, _input, _req, res) => {
    const configured = config.scanApp.lsu;
    const found = configured
      ? {
          topologyFreezeTime: parseTimestamp(configured.topologyFreezeTime),
          upgradeTime: parseTimestamp(configured.upgradeTime),
          successorPhysicalSynchronizerId: configured.successorSynchronizerId,
        }
      : await findLsuAnnouncement(db);
    sendJson(res, {
      lsu: found
        ? {
            topologyFreezeTime: formatDateTime(found.topologyFreezeTime),
            upgradeTime: formatDateTime(found.upgradeTime),
            successorPhysicalSynchronizerId: found.successorPhysicalSynchronizerId,
          }
        : null,
    } satisfies z.input<typeof Lsu>);
  },
});

// S12: configuration first (as in the Scan app), then network_facts (no source records it yet).
const rollForwardLsu = operation({
  method: 'get',
  path: '/v0/roll-forward-lsu',
  summary: 'S12: the roll-forward LSU, or null.',
  responses: ok(RollForwardLsu),
  handle: async ({ db, config }: NetworkServices, _input, _req, res) => {
    const configured = config.scanApp.rollForwardLsu;
    const found = configured
      ? {
          upgradeTime: parseTimestamp(configured.upgradeTime),
          currentPhysicalSynchronizerId: configured.currentSynchronizerId,
          successorPhysicalSynchronizerId: configured.successorSynchronizerId,
        }
      : await findRollForwardLsu(db);
    sendJson(res, {
      rollForwardLsu: found
        ? {
            upgradeTime: formatDateTime(found.upgradeTime),
            currentPhysicalSynchronizerId: found.currentPhysicalSynchronizerId,
            successorPhysicalSynchronizerId: found.successorPhysicalSynchronizerId,
          }
        : null,
    } satisfies z.input<typeof RollForwardLsu>);
  },
});

// S13: the scans the SVs publish in their SvNodeState contracts; an empty list when there are none.
const scans = operation({
  method: 'get',
  path: '/v0/scans',
  summary: 'S13: the scans the SVs publish, grouped by synchronizer.',
  responses: ok(ScansResponse),
  handle: async ({ db }: NetworkServices, _input, _req, res) => {
    const nodeStates = await listLiveContracts(db, SPLICE.svNodeState);
    const groups = groupDsoScans(nodeStates.map((c) => readSvNodeState(payloadOf(c))));
    sendJson(res, {
      scans: groups.map((g) => ({ domainId: g.synchronizerId, scans: g.scans.map((s) => ({ publicUrl: s.publicUrl, svName: s.svName })) })),
    } satisfies z.input<typeof ScansResponse>);
  },
});

const dsoSequencers = operation({
  method: 'get',
  path: '/v0/dso-sequencers',
  summary: 'The sequencers the SVs publish in their SvNodeState contracts, grouped by synchronizer.',
  responses: { ...ok(DsoSequencers), ...scanErrors(500) },
  handle: async ({ db }: NetworkServices, _input, _req, res) => {
    const nodeStates = await listLiveContracts(db, SPLICE.svNodeState);
    const groups = groupDsoSequencers(nodeStates.map(payloadOf));
    sendJson(res, {
      domainSequencers: groups.map((g) => ({ domainId: g.synchronizerId, sequencers: g.sequencers.map(sequencerJson) })),
    } satisfies z.input<typeof DsoSequencers>);
  },
});

const instanceNames = operation({
  method: 'get',
  path: '/v0/splice-instance-names',
  summary: 'What this network calls itself, its amulet and its name service (from configuration).',
  responses: ok(InstanceNames),
  handle: ({ config }: NetworkServices, _input, _req, res) => {
    const names = config.scanApp.instanceNames;
    sendJson(res, {
      network_name: names.networkName,
      network_favicon_url: names.networkFaviconUrl,
      amulet_name: names.amuletName,
      amulet_name_acronym: names.amuletNameAcronym,
      name_service_name: names.nameServiceName,
      name_service_name_acronym: config.scanApp.ansAcronym,
    } satisfies z.input<typeof InstanceNames>);
  },
});

// The Scan app's Version: the release, and the time of the commit it was built from (src/internal/build-info.ts).
const version = operation({
  method: 'get',
  path: '/version',
  summary: 'The release of this service and the time of the commit it was built from (the build time when unknown).',
  responses: ok(Version),
  handle: (_services: NetworkServices, _input, _req, res) => {
    const build = readBuildInfo();
    sendJson(res, { version: build.version, commit_ts: formatDateTime(parseTimestamp(build.commitTime)) } satisfies z.input<
      typeof Version
    >);
  },
});

// The Scan app currently announces no optional feature; its response keeps the empty field as null.
const featureSupport = operation({
  method: 'get',
  path: '/v0/feature-support',
  summary: 'Optional features this Scan supports: none at present, as in the Scan app.',
  responses: ok(FeatureSupport),
  handle: (_services: NetworkServices, _input, _req, res) => {
    sendJson(res, { dummy: null } satisfies z.input<typeof FeatureSupport>);
  },
});

// True once every migration's history is held in full (the gate of /v2/updates).
const backfillingStatus = operation({
  method: 'get',
  path: '/v0/backfilling/status',
  summary: 'Whether every migration this instance serves is held in full.',
  responses: { ...ok(BackfillingStatus), ...scanErrors(500) },
  handle: async ({ db }: NetworkServices, _input, _req, res) => {
    sendJson(res, { complete: !(await historyIncomplete(db)) } satisfies z.input<typeof BackfillingStatus>);
  },
});

// S14: the DsoRules' next scheduled synchronizer upgrade; 404 with an empty body when
// there is none (the Scan app's response type has no content).
const migrationSchedule = operation({
  method: 'get',
  path: '/v0/migrations/schedule',
  summary: 'S14: the scheduled synchronizer upgrade.',
  responses: { ...ok(MigrationSchedule), '404': { description: 'No migration is scheduled (empty body).' } },
  handle: async ({ db }: NetworkServices, _input, _req, res) => {
    // The 404 is sent here, not thrown: a replica that may only lag is not trusted with it.
    const schedule = await acceptedOrFromPrimary(
      async () => {
        const dsoRules = await findLatestLiveContract(db, SPLICE.dsoRules);
        return dsoRules ? readDsoRules(payloadOf(dsoRules)).nextScheduledUpgrade : null;
      },
      (found) => found !== null && found !== undefined,
      'not_found',
    );
    if (!schedule) {
      res.status(404).end();
      return;
    }
    sendJson(res, { time: formatDateTime(schedule.time), migration_id: schedule.migrationId } satisfies z.input<typeof MigrationSchedule>);
  },
});

/** In the order a request walks them. */
export const networkOperations: readonly OperationOf<NetworkServices>[] = [
  lastMigration,
  dsoPartyId,
  closedRounds,
  voteRequests,
  amuletPriceVotes,
  voteResults,
  voteRequestByTrackingId,
  voteRequestsByTrackingIds,
  lsu,
  rollForwardLsu,
  scans,
  dsoSequencers,
  instanceNames,
  version,
  featureSupport,
  backfillingStatus,
  migrationSchedule,
];

export function networkRoutes(context: ApiContext): Router {
  const { db, config } = context;
  return mountOperations(Router(), networkOperations, { db, config, hot: hotAnswers(context) });
}

function sequencerJson(s: SequencerInfo) {
  return {
    migrationId: s.migrationId,
    synchronizerSerial: null,
    id: s.id,
    url: s.url,
    svName: s.svName,
    availableAfter: s.availableAfter === null ? SINCE_ALWAYS : formatDateTime(s.availableAfter),
  };
}
