/** The Scan API, mounted at /api/scan. */
import express, { Router } from 'express';
import type { ApiContext } from '../context';
import { rejectNulCharacters } from '../nul-guard';
import { scanErrorHandler, scanNotFound } from '../scan-errors';
import { holdingsRoutes } from './holdings-routes';
import { migrationRoutes } from './migration-routes';
import { networkRoutes } from './network-routes';
import { updateRoutes } from './update-routes';

export function scanRouter(context: ApiContext): Router {
  const router = Router();
  router.use(express.json({ limit: '1mb' }));
  router.use(rejectNulCharacters);
  router.use(networkRoutes(context));
  router.use(migrationRoutes(context));
  router.use(holdingsRoutes(context));
  router.use(updateRoutes(context));
  router.use(scanNotFound);
  router.use(scanErrorHandler);
  return router;
}
