/** Update history: S4 by hash, S5 events by id, S7 bulk checksums, /v2/updates, /v0/events. */
import { Router } from 'express';
import type { ApiContext } from '../context';

export function updateRoutes(_context: ApiContext): Router {
  const router = Router();
  return router;
}
