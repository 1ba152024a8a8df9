/** The Scan API, mounted at /api/scan. */
import express, { Router } from 'express';
import { primaryDbOf, type ApiContext } from '../context';
import { rejectNulCharacters } from '../nul-guard';
import { pageTokensFor, pageTokensWithKey } from '../page-token';
import { acsRoutes } from './acs-routes';
import { stateRoutes } from './state-routes';
import { transactionsRoutes } from './transactions-routes';
import { surfaceRoutes } from './surface-routes';
import { holdingsRoutes } from './holdings-routes';
import { legacyHistoryRoutes } from './legacy-history-routes';
import { migrationRoutes } from './migration-routes';
import { networkRoutes } from './network-routes';
import { rewardAccountingRoutes } from './reward-accounting-routes';
import { roundAggregatesRoutes } from './round-aggregates-routes';
import { updateRoutes } from './update-routes';

export function scanRouter(context: ApiContext): Router {
  const router = Router();
  router.use(express.json({ limit: '1mb' }));
  router.use(rejectNulCharacters);
  // What every validator polls first: a request walks the routes in order, and no two routers share a path.
  router.use(stateRoutes(context));
  router.use(networkRoutes(context));
  router.use(migrationRoutes(context));
  // One page-token signer for every paged operation (its key is loaded once).
  const tokens = context.config.pageTokenSecret
    ? pageTokensWithKey(Buffer.from(context.config.pageTokenSecret, 'utf8'))
    : pageTokensFor(primaryDbOf(context));
  router.use(holdingsRoutes(context, tokens));
  router.use(acsRoutes(context, tokens));
  router.use(updateRoutes(context));
  router.use(legacyHistoryRoutes(context));
  router.use(surfaceRoutes(context));
  router.use(transactionsRoutes(context));
  router.use(roundAggregatesRoutes(context));
  router.use(rewardAccountingRoutes(context));
  return router;
}
