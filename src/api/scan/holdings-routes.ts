/** S1–S3 holdings, the snapshot-timestamp operations (S8) and the ACS snapshot (POST /v0/state/acs). */
import { Router } from 'express';
import type { ApiContext } from '../context';

export function holdingsRoutes(_context: ApiContext): Router {
  const router = Router();
  return router;
}
