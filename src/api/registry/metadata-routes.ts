/**
 * The token-standard registry's metadata API for Amulet (`/registry/metadata/v1`, reference: the
 * token-standard `token-metadata-v1.yaml` and Scan's HttpTokenStandardMetadataHandler): the registry
 * admin (the DSO party), and Amulet as the one instrument, with its total supply at the latest ACS
 * snapshot of the current migration (unlocked plus locked amulet, the sums the holdings operations
 * use). Served at the host root and, behind the proxy's authentication, by the validator proxy.
 */
import { Router } from 'express';
import { formatDecimal, parseDecimal } from '../../domain/decimal';
import { formatDateTime } from '../../domain/time';
import { notFound } from '../../internal/errors';
import { findDsoPartyId, findLastMigrationId } from '../../store/network-repository';
import { latestSnapshot } from '../../store/snapshot-repository';
import type { ApiContext } from '../context';
import { sendJson } from '../json-response';

/** The APIs the registry serves registry-wide, and those Amulet supports (as the Scan app lists them). */
const REGISTRY_APIS = { 'splice-api-token-metadata-v1': 1 };
const AMULET_APIS = {
  'splice-api-token-metadata-v1': 1,
  'splice-api-token-holding-v1': 1,
  'splice-api-token-transfer-instruction-v1': 1,
  'splice-api-token-allocation-v1': 1,
  'splice-api-token-allocation-instruction-v1': 1,
};
const AMULET_ID = 'Amulet';

export function registryMetadataRoutes({ db, config }: ApiContext): Router {
  const router = Router();

  const amuletInstrument = async () => {
    const migrationId = await findLastMigrationId(db);
    const snapshot = migrationId === undefined ? undefined : await latestSnapshot(db, migrationId);
    return {
      id: AMULET_ID,
      name: config.scanApp.instanceNames.amuletName,
      symbol: config.scanApp.instanceNames.amuletNameAcronym,
      // Optional in the interface: left out until a snapshot has been taken.
      ...(snapshot && {
        totalSupply: formatDecimal(parseDecimal(snapshot.unlockedAmulet) + parseDecimal(snapshot.lockedAmulet)),
        totalSupplyAsOf: formatDateTime(snapshot.recordTime),
      }),
      decimals: 10,
      supportedApis: AMULET_APIS,
    };
  };

  router.get('/info', async (_req, res) => {
    const adminId = await findDsoPartyId(db);
    if (adminId === undefined) throw notFound('No DSO party is known yet: no DsoRules contract has been ingested.');
    sendJson(res, { adminId, supportedApis: REGISTRY_APIS });
  });

  // One instrument: pageSize and pageToken change nothing, as in the Scan app.
  router.get('/instruments', async (_req, res) => {
    sendJson(res, { instruments: [await amuletInstrument()] });
  });

  router.get('/instruments/:instrumentId', async (req, res) => {
    if (req.params.instrumentId !== AMULET_ID) throw notFound(`No instrument with id ${req.params.instrumentId} found`);
    sendJson(res, await amuletInstrument());
  });

  return router;
}
