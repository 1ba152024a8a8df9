/** The JSON Ledger API v2 operations, mounted at /v2. */
import { Router } from 'express';
import type { ApiContext } from '../context';

export function ledgerRouter(_context: ApiContext): Router {
  const router = Router();
  return router;
}
