/**
 * The OpenAPI document of everything this service serves, served from the
 * running service (as Canton's JSON API does) at /docs/openapi.json. It is
 * built from the operations' declarations (../operation.ts), the same ones the
 * routers mount; a test checks that its paths and the Express routes are the same set.
 */
import { commonResponses, withCommonResponses } from './common-responses';
import { withFairAccessResponses } from './fair-access';
import { pathsOf, SchemaComponents } from './from-operations';
import { docsOperations } from '../docs-operation';
import { healthOperations } from '../health';
import { activityOperations } from '../indexer/activity-routes';
import { balanceOperations } from '../indexer/balance-routes';
import { seriesOperations } from '../indexer/series-routes';
import { streamOperations } from '../indexer/stream-routes';
import { indexerOperations } from '../indexer/router';
import { ledgerOperations } from '../ledger/router';
import { registryOperations } from '../registry/router';
import { acsOperations } from '../scan/acs-routes';
import { holdingsOperations } from '../scan/holdings-routes';
import { legacyHistoryOperations } from '../scan/legacy-history-routes';
import { migrationOperations } from '../scan/migration-routes';
import { networkOperations } from '../scan/network-routes';
import { rewardAccountingOperations } from '../scan/reward-accounting-routes';
import { stateOperations } from '../scan/state-routes';
import { surfaceOperations } from '../scan/surface-routes';
import { transactionsOperations } from '../scan/transactions-routes';
import { roundAggregatesOperations } from '../scan/round-aggregates-routes';
import { updateOperations } from '../scan/update-routes';
import { proxiedRegistryOperations, validatorOperations } from '../validator/router';
import { webUiOperations } from '../web-ui';

type Paths = Record<string, Record<string, unknown>>;

/** Paths of several sources as one, method by method; a method declared twice is a mistake. */
function merged(...sources: Paths[]): Paths {
  const out: Paths = {};
  for (const source of sources) {
    for (const [path, methods] of Object.entries(source)) {
      const into = (out[path] ??= {});
      for (const [method, op] of Object.entries(methods)) {
        if (into[method] !== undefined) throw new Error(`${method.toUpperCase()} ${path} is in the document twice.`);
        into[method] = op;
      }
    }
  }
  return out;
}

export function openApiDocument(version: string): Record<string, unknown> {
  const components = new SchemaComponents();
  // Each router's declared operations, under the prefix it is mounted at.
  const declared = merged(
    pathsOf('/api/scan', stateOperations, components),
    pathsOf('/api/scan', networkOperations, components),
    pathsOf('/api/scan', migrationOperations, components),
    pathsOf('/api/scan', holdingsOperations, components),
    pathsOf('/api/scan', acsOperations, components),
    pathsOf('/api/scan', updateOperations, components),
    pathsOf('/api/scan', legacyHistoryOperations, components),
    pathsOf('/api/scan', surfaceOperations, components),
    pathsOf('/api/scan', transactionsOperations, components),
    pathsOf('/api/scan', roundAggregatesOperations, components),
    pathsOf('/api/scan', rewardAccountingOperations, components),
    pathsOf('/api/validator', validatorOperations, components),
    pathsOf('/registry', registryOperations, components),
    // The validator proxy serves the registry behind its authentication.
    pathsOf('/api/validator/v0/scan-proxy/registry', proxiedRegistryOperations, components),
    pathsOf('/v2', ledgerOperations, components),
    pathsOf('/api/indexer', indexerOperations, components),
    pathsOf('/api/indexer', activityOperations, components),
    pathsOf('/api/indexer', seriesOperations, components),
    pathsOf('/api/indexer', balanceOperations, components),
    pathsOf('/api/indexer', streamOperations, components),
  );
  // Health, status, metrics, this document and the web UI: mounted at the root, never rate limited.
  const operational = merged(
    pathsOf('', healthOperations, components),
    pathsOf('', docsOperations, components),
    pathsOf('', webUiOperations, components),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'scan-indexer',
      version,
      description:
        "Splice Scan API (/api/scan), validator scan-proxy (/api/validator), two Canton JSON Ledger API v2 operations (/v2), the token-standard registry for Amulet (/registry: metadata, transfer instructions, allocations) and this indexer's own read-only operations (/api/indexer), answered from PostgreSQL. Any operation that reads the database may answer 503 with a Retry-After header (seconds) while the database is unavailable, when a query ran past the statement timeout, or when every database connection stayed in use for DATABASE_WAIT_MS (the Scan error body; the Ledger API's error on /v2).",
    },
    paths: withCommonResponses({
      ...operational,
      ...withFairAccessResponses(declared),
    }),
    components: {
      schemas: components.schemas,
      responses: commonResponses,
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    },
  };
}
