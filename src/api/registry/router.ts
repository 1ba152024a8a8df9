/**
 * The token-standard registry API for Amulet, mounted at /registry and, behind the proxy's
 * authentication, at the validator's /v0/scan-proxy/registry.
 */
import express, { Router } from 'express';
import type { ApiContext } from '../context';
import { rejectNulCharacters } from '../nul-guard';
import { allocationRoutes } from './allocation-routes';
import { registryMetadataRoutes } from './metadata-routes';
import { transferInstructionRoutes } from './transfer-instruction-routes';

export function registryRouter(context: ApiContext): Router {
  const router = Router();
  router.use(express.json({ limit: '1mb' }));
  router.use(rejectNulCharacters);
  router.use('/metadata/v1', registryMetadataRoutes(context));
  router.use('/transfer-instruction/v1', transferInstructionRoutes(context));
  router.use(allocationRoutes(context));
  return router;
}
