/**
 * The validator scan-proxy, mounted at /api/validator (reference
 * splice-scan.md §7.3, §7.4). A validator answers these from its BFT
 * connection to the SVs' scans; we answer them from our own ACS, in the
 * shapes the validator serves.
 *
 * Authentication: the validator requires a user token. The verifier is passed
 * in as `auth` and runs before every route; without it the routes are open.
 */
import express, { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { ansEntryJson, contractWithStateJson } from '../../domain/contract-json';
import { dsoAnsEntries, readDsoRules } from '../../domain/dso-state';
import { SPLICE } from '../../domain/splice-contracts';
import { nowMicros, type Micros } from '../../domain/time';
import { findLatestLiveContract, latestRecordTime, listLiveAnsEntries, listLiveRounds, payloadOf } from '../../store/contract-repository';
import type { ApiContext } from '../context';
import { sendJson } from '../json-response';
import { pageLimit } from '../page-limit';
import { rejectNulCharacters } from '../nul-guard';
import { parseInput } from '../validation';

export interface ValidatorRouterOptions {
  /** Verifies the caller (a validator user token); runs before every validator route. */
  auth?: RequestHandler;
}

/** Scan bounds the prefix as a String2066 (the longest template id). */
const MAX_NAME_PREFIX_LENGTH = 2066;

const AnsEntriesQuery = z.object({
  name_prefix: z
    .string({ error: 'expected a single string' })
    .max(MAX_NAME_PREFIX_LENGTH, { error: `at most ${MAX_NAME_PREFIX_LENGTH} characters are allowed` })
    .optional(),
  page_size: z
    .string({ error: 'expected a single integer' })
    .regex(/^[+-]?\d+$/, { error: 'expected an integer' })
    .transform(Number)
    .refine((n) => n >= -(2 ** 31) && n < 2 ** 31, { error: 'expected a 32-bit integer' }),
});

export function validatorRouter({ db, config }: ApiContext, options: ValidatorRouterOptions = {}): Router {
  const router = Router();
  router.use(express.json({ limit: '1mb' }));
  if (options.auth) router.use(options.auth);
  router.use(rejectNulCharacters);

  /** "Now" for expiry: the wall clock (as Scan), or the newest ingested record time (API_CLOCK=ledger). */
  const now = async (): Promise<Micros> => (config.scanApp.clock === 'ledger' ? ((await latestRecordTime(db)) ?? nowMicros()) : nowMicros());

  // V1: plain arrays sorted by round number (GetSortedOpenAndIssuingMiningRounds), no TTL, no cached entries.
  router.get('/v0/scan-proxy/open-and-issuing-mining-rounds', async (_req, res) => {
    const [open, issuing] = await Promise.all([
      listLiveRounds(db, SPLICE.openMiningRound),
      listLiveRounds(db, SPLICE.issuingMiningRound),
    ]);
    sendJson(res, {
      open_mining_rounds: open.map(contractWithStateJson),
      issuing_mining_rounds: issuing.map(contractWithStateJson),
    });
  });

  // V2: unexpired AnsEntry contracts by name, then (if the page is not full) the
  // entries the DSO provides for itself and the SVs, with the same prefix.
  router.get('/v0/scan-proxy/ans-entries', async (req, res) => {
    const query = parseInput(AnsEntriesQuery, req.query, 'query');
    const pageSize = pageLimit(query.page_size);
    const prefix = query.name_prefix ?? '';
    const entries = await listLiveAnsEntries(db, prefix, await now(), pageSize);
    const room = pageSize - entries.length;
    if (room > 0) {
      const dsoRules = await findLatestLiveContract(db, SPLICE.dsoRules);
      if (dsoRules) entries.push(...dsoAnsEntries(readDsoRules(payloadOf(dsoRules)), config.scanApp.ansAcronym, prefix).slice(0, room));
    }
    sendJson(res, { entries: entries.map(ansEntryJson) });
  });

  return router;
}
