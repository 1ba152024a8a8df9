/** The validator scan-proxy, mounted at /api/validator. */
import express, { Router } from 'express';
import type { ApiContext } from '../context';
import { scanErrorHandler, scanNotFound } from '../scan-errors';

export function validatorRouter(_context: ApiContext): Router {
  const router = Router();
  router.use(express.json({ limit: '1mb' }));
  router.use(scanNotFound);
  router.use(scanErrorHandler);
  return router;
}
