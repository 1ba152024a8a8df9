/**
 * The token-standard registry's metadata API for Amulet (`/registry/metadata/v1`, reference: the
 * token-standard `token-metadata-v1.yaml` and Scan's HttpTokenStandardMetadataHandler): the registry
 * admin (the DSO party), and Amulet as the one instrument, with its total supply at the latest ACS
 * snapshot of the current migration (unlocked plus locked amulet, the sums the holdings operations
 * use). Served at the host root and, behind the proxy's authentication, by the validator proxy.
 */
import { z } from 'zod';
import { formatDecimal, parseDecimal } from '../../domain/decimal';
import { formatDateTime } from '../../domain/time';
import type { Config } from '../../internal/config';
import { notFound } from '../../internal/errors';
import { findDsoPartyId, findLastMigrationId } from '../../store/network-repository';
import type { Db } from '../../store/pool';
import { latestSnapshot } from '../../store/snapshot-repository';
import { sendJson } from '../json-response';
import { operation, type OperationOf } from '../operation';
import { ErrorResponse, str } from '../schema-kit';
import { Instrument, SupportedApis } from './schemas';

/** The APIs the registry serves registry-wide, and those Amulet supports (as the Scan app lists them). */
const REGISTRY_APIS = { 'splice-api-token-metadata-v1': 1 };
const AMULET_APIS = {
  'splice-api-token-metadata-v1': 1,
  'splice-api-token-holding-v1': 1,
  'splice-api-token-transfer-instruction-v1': 1,
  'splice-api-token-allocation-v1': 1,
  'splice-api-token-allocation-instruction-v1': 1,
  // Token standard V2, whose registry operations are all served (registry-v2-routes.ts).
  'splice-api-token-holding-v2': 1,
  'splice-api-token-allocation-v2': 1,
  'splice-api-token-allocation-instruction-v2': 1,
  'splice-api-token-transfer-instruction-v2': 1,
  'splice-api-token-transfer-events-v2': 1,
};
const AMULET_ID = 'Amulet';

export interface MetadataServices {
  db: Db;
  config: Config;
}

const amuletInstrument = async ({ db, config }: MetadataServices): Promise<z.input<typeof Instrument>> => {
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

const notFoundAnswer = { description: 'Not found.', body: ErrorResponse };

/** Accepted and not read: one instrument makes one page. */
const InstrumentsQuery = z.object({
  pageSize: z.unknown().optional().meta({ type: 'integer', format: 'int32' }),
  pageToken: z.unknown().optional().meta({ type: 'string' }),
});

/** Paths relative to /metadata/v1. */
export const metadataOperations: readonly OperationOf<MetadataServices>[] = [
  operation({
    method: 'get',
    path: '/info',
    summary: 'The registry admin (the DSO party) and the registry-wide APIs.',
    responses: {
      '200': { description: 'OK', body: z.object({ adminId: str(), supportedApis: SupportedApis }) },
      '404': notFoundAnswer,
    },
    handle: async ({ db }: MetadataServices, _input, _req, res) => {
      const adminId = await findDsoPartyId(db);
      if (adminId === undefined) throw notFound('No DSO party is known yet: no DsoRules contract has been ingested.');
      sendJson(res, { adminId, supportedApis: REGISTRY_APIS });
    },
  }),

  // One instrument: pageSize and pageToken change nothing, as in the Scan app.
  operation({
    method: 'get',
    path: '/instruments',
    summary: 'The instruments: Amulet alone (pageSize and pageToken change nothing).',
    request: { query: InstrumentsQuery },
    responses: { '200': { description: 'OK', body: z.object({ instruments: z.array(Instrument) }) } },
    handle: async (services: MetadataServices, _input, _req, res) => {
      sendJson(res, { instruments: [await amuletInstrument(services)] });
    },
  }),

  operation({
    method: 'get',
    path: '/instruments/{instrumentId}',
    summary: 'One instrument: Amulet, or 404.',
    request: { params: z.object({ instrumentId: z.string() }) },
    responses: { '200': { description: 'OK', body: Instrument }, '404': notFoundAnswer },
    handle: async (services: MetadataServices, { params }, _req, res) => {
      if (params.instrumentId !== AMULET_ID) throw notFound(`No instrument with id ${params.instrumentId} found`);
      sendJson(res, await amuletInstrument(services));
    },
  }),
];
