/** S15 last migration id and S16 DSO party id. */
import { Router } from 'express';
import { notFound } from '../../internal/errors';
import { findDsoPartyId, findLastMigrationId } from '../../store/network-repository';
import type { ApiContext } from '../context';

export function networkRoutes({ db, config }: ApiContext): Router {
  const router = Router();

  router.get('/v0/migrations/last', async (_req, res) => {
    const ingested = await findLastMigrationId(db);
    res.json({ migration_id: Math.max(ingested ?? 0, config.migrationId) });
  });

  router.get('/v0/dso-party-id', async (_req, res) => {
    const dsoPartyId = await findDsoPartyId(db);
    if (dsoPartyId === undefined) throw notFound('No DSO party is known yet: no DsoRules contract has been ingested.');
    res.json({ dso_party_id: dsoPartyId });
  });

  return router;
}
