/**
 * The OpenAPI document of everything this service serves, served from the
 * running service (as Canton's JSON API does) at /docs/openapi.json. A test
 * checks that its paths and the Express routes are the same set.
 */
import { commonResponses, withCommonResponses } from './common-responses';
import { withFairAccessResponses } from './fair-access';
import { pathsOf, SchemaComponents } from './from-operations';
import { docsOperations } from '../docs-operation';
import { healthOperations } from '../health';
import { indexerOperations } from '../indexer/router';
import { acsOperations } from '../scan/acs-routes';
import { migrationOperations } from '../scan/migration-routes';
import { stateOperations } from '../scan/state-routes';
import { networkOperations } from '../scan/network-routes';
import { updateOperations } from '../scan/update-routes';
import { legacyHistoryOperations } from '../scan/legacy-history-routes';
import { ledgerOperations } from '../ledger/router';
import { webUiOperations } from '../web-ui';
import { scanPaths, scanSchemas } from './scan';
import { registryPaths, registrySchemas } from './registry';
import { unauthorized, validatorPaths } from './validator';

/** The validator proxy serves the registry behind its authentication. */
const securedRegistryPaths = Object.fromEntries(
  Object.entries(registryPaths).map(([p, ops]) => [
    p,
    Object.fromEntries(
      Object.entries(ops).map(([method, op]) => {
        const operation = op as { responses?: Record<string, unknown> };
        return [method, { ...operation, security: [{ bearerAuth: [] }], responses: { ...operation.responses, '401': unauthorized } }];
      }),
    ),
  ]),
);

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

function prefixed(prefix: string, paths: Paths): Paths {
  return Object.fromEntries(Object.entries(paths).map(([p, v]) => [`${prefix}${p}`, v]));
}

export function openApiDocument(version: string): Record<string, unknown> {
  const components = new SchemaComponents();
  // Each router's declared operations, under the prefix it is mounted at.
  const declared = merged(
    pathsOf('/api/indexer', indexerOperations, components),
    pathsOf('/api/scan', migrationOperations, components),
    pathsOf('/api/scan', acsOperations, components),
    pathsOf('/api/scan', stateOperations, components),
    pathsOf('/api/scan', networkOperations, components),
    pathsOf('/api/scan', updateOperations, components),
    pathsOf('/api/scan', legacyHistoryOperations, components),
    pathsOf('/v2', ledgerOperations, components),
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
      ...withFairAccessResponses(
        merged(
          prefixed('/api/scan', scanPaths),
          prefixed('/api/validator', validatorPaths),
          prefixed('/registry', registryPaths),
          prefixed('/api/validator/v0/scan-proxy/registry', securedRegistryPaths),
          declared,
        ),
      ),
    }),
    components: {
      schemas: { ...scanSchemas, ...registrySchemas, ...components.schemas },
      responses: commonResponses,
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    },
  };
}
