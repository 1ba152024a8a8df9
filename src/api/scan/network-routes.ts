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
import type { ApiContext } from '../context';
import { sendJsonBytes } from '../answer-cache';
import { sendJson } from '../json-response';
import { hotAnswers } from './hot-answers';
import { pageLimit } from '../page-limit';
import { int64, requestTimestamp } from './params';
import { parseInput } from '../validation';

const optional = <T extends z.ZodType>(t: T) => t.nullish().transform((v) => v ?? undefined);
const VoteResultsRequest = z.object({
  actionName: optional(z.string({ error: 'expected a string' })),
  accepted: optional(z.boolean({ error: 'expected a boolean' })),
  requester: optional(z.string({ error: 'expected a string' })),
  effectiveFrom: optional(z.string({ error: 'expected a timestamp string' })),
  effectiveTo: optional(z.string({ error: 'expected a timestamp string' })),
  limit: int64,
});

const VoteRequestsRequest = z.object({
  vote_request_contract_ids: z.array(z.string({ error: 'expected a string' }), { error: 'expected an array' }),
});

export function networkRoutes(context: ApiContext): Router {
  const { db, config } = context;
  const hot = hotAnswers(context);
  const router = Router();

  router.get('/v0/migrations/last', async (_req, res) => {
    const ingested = await findLastMigrationId(db);
    sendJson(res, { migration_id: Math.max(ingested ?? 0, config.migrationId) });
  });

  router.get('/v0/dso-party-id', async (_req, res) => {
    const answer = await hot.dsoPartyId();
    if (answer.value === null) throw notFound('No DSO party is known yet: no DsoRules contract has been ingested.');
    sendJsonBytes(
      res,
      answer.bytes('dso-party-id', (id) => ({ dso_party_id: id })),
    );
  });

  // S9: ClosedMiningRound contracts are archived once the round's rewards are processed,
  // so the live ones are exactly the closed rounds still in process.
  router.get('/v0/closed-rounds', async (_req, res) => {
    const rounds = await listLiveRounds(db, SPLICE.closedMiningRound);
    sendJson(res, { rounds: rounds.map(contractJson) });
  });

  // S10: no authentication on Scan despite "admin" in the path.
  router.get('/v0/admin/sv/voterequests', async (_req, res) => {
    const requests = await listLiveContracts(db, SPLICE.voteRequest);
    sendJson(res, { dso_rules_vote_requests: requests.map(contractJson) });
  });

  // Each SV's current price vote (one live contract per SV), in ingestion order.
  router.get('/v0/amulet-price/votes', async (_req, res) => {
    const votes = await listLiveContracts(db, SPLICE.amuletPriceVote);
    sendJson(res, { amulet_price_votes: votes.map(contractJson) });
  });

  // From the DsoRules_CloseVoteRequest results in the history; no authentication, as on Scan.
  router.post('/v0/admin/sv/voteresults', async (req, res) => {
    const body = parseInput(VoteResultsRequest, req.body, 'body');
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
  });

  // Both match the tracking id (a request's first contract id), as the Scan store does.
  router.get('/v0/voterequests/:vote_request_contract_id', async (req, res) => {
    const id = req.params.vote_request_contract_id;
    const [found] = await listLiveVoteRequestsByTrackingCid(db, [id], 1);
    if (!found) throw notFound(`No VoteRequest found contract: ${id}`);
    sendJson(res, { dso_rules_vote_request: contractJson(found) });
  });

  router.post('/v0/voterequest', async (req, res) => {
    const body = parseInput(VoteRequestsRequest, req.body, 'body');
    const requests = await listLiveVoteRequestsByTrackingCid(db, body.vote_request_contract_ids);
    sendJson(res, { vote_requests: requests.map(contractJson) });
  });

  // S11: Scan asks its participant; we serve the configured announcement (LSU_*), else what
  // network_facts holds (no source records it yet), else null.
  router.get('/v0/lsu', async (_req, res) => {
    const configured = config.scanApp.lsu;
    const lsu = configured
      ? {
          topologyFreezeTime: parseTimestamp(configured.topologyFreezeTime),
          upgradeTime: parseTimestamp(configured.upgradeTime),
          successorPhysicalSynchronizerId: configured.successorSynchronizerId,
        }
      : await findLsuAnnouncement(db);
    sendJson(res, {
      lsu: lsu
        ? {
            topologyFreezeTime: formatDateTime(lsu.topologyFreezeTime),
            upgradeTime: formatDateTime(lsu.upgradeTime),
            successorPhysicalSynchronizerId: lsu.successorPhysicalSynchronizerId,
          }
        : null,
    });
  });

  // S12: configuration first (as in the Scan app), then network_facts (no source records it yet).
  router.get('/v0/roll-forward-lsu', async (_req, res) => {
    const configured = config.scanApp.rollForwardLsu;
    const lsu = configured
      ? {
          upgradeTime: parseTimestamp(configured.upgradeTime),
          currentPhysicalSynchronizerId: configured.currentSynchronizerId,
          successorPhysicalSynchronizerId: configured.successorSynchronizerId,
        }
      : await findRollForwardLsu(db);
    sendJson(res, {
      rollForwardLsu: lsu
        ? {
            upgradeTime: formatDateTime(lsu.upgradeTime),
            currentPhysicalSynchronizerId: lsu.currentPhysicalSynchronizerId,
            successorPhysicalSynchronizerId: lsu.successorPhysicalSynchronizerId,
          }
        : null,
    });
  });

  // S13: the scans the SVs publish in their SvNodeState contracts; an empty list when there are none.
  router.get('/v0/scans', async (_req, res) => {
    const nodeStates = await listLiveContracts(db, SPLICE.svNodeState);
    const groups = groupDsoScans(nodeStates.map((c) => readSvNodeState(payloadOf(c))));
    sendJson(res, {
      scans: groups.map((g) => ({ domainId: g.synchronizerId, scans: g.scans.map((s) => ({ publicUrl: s.publicUrl, svName: s.svName })) })),
    });
  });

  router.get('/v0/dso-sequencers', async (_req, res) => {
    const nodeStates = await listLiveContracts(db, SPLICE.svNodeState);
    const groups = groupDsoSequencers(nodeStates.map(payloadOf));
    sendJson(res, {
      domainSequencers: groups.map((g) => ({ domainId: g.synchronizerId, sequencers: g.sequencers.map(sequencerJson) })),
    });
  });

  router.get('/v0/splice-instance-names', (_req, res) => {
    const names = config.scanApp.instanceNames;
    sendJson(res, {
      network_name: names.networkName,
      network_favicon_url: names.networkFaviconUrl,
      amulet_name: names.amuletName,
      amulet_name_acronym: names.amuletNameAcronym,
      name_service_name: names.nameServiceName,
      name_service_name_acronym: config.scanApp.ansAcronym,
    });
  });

  // The Scan app's Version: the release, and the time of the commit it was built from (src/internal/build-info.ts).
  router.get('/version', (_req, res) => {
    const build = readBuildInfo();
    sendJson(res, { version: build.version, commit_ts: formatDateTime(parseTimestamp(build.commitTime)) });
  });

  // The Scan app currently announces no optional feature; its response keeps the empty field as null.
  router.get('/v0/feature-support', (_req, res) => {
    sendJson(res, { dummy: null });
  });

  // True once every migration's history is held in full (the gate of /v2/updates).
  router.get('/v0/backfilling/status', async (_req, res) => {
    sendJson(res, { complete: !(await historyIncomplete(db)) });
  });

  // S14: the DsoRules' next scheduled synchronizer upgrade; 404 with an empty body when
  // there is none (the Scan app's response type has no content).
  router.get('/v0/migrations/schedule', async (_req, res) => {
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
    sendJson(res, { time: formatDateTime(schedule.time), migration_id: schedule.migrationId });
  });

  return router;
}

/** A legacy sequencer is available since always: Java's OffsetDateTime.MIN, as the Scan app prints it. */
const SINCE_ALWAYS = '-999999999-01-01T00:00:00+18:00';

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
