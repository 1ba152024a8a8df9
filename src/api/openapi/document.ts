/**
 * The OpenAPI document of everything this service serves, served from the
 * running service (as Canton's JSON API does) at /docs/openapi.json. A test
 * checks that its paths and the Express routes are the same set.
 */
import { array, int64, json, nullable, object, str } from './builders';
import { commonResponses, withCommonResponses } from './common-responses';
import { withFairAccessResponses } from './fair-access';
import { pathsOf, SchemaComponents } from './from-operations';
import { indexerOperations } from '../indexer/router';
import { streamOperations } from '../indexer/stream-routes';
import { ledgerPaths, ledgerSchemas } from './ledger';
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

const operational: Paths = {
  '/livez': { get: { summary: 'Liveness: 200 while the process runs.', responses: { '200': json(object({ status: str() })) } } },
  '/readyz': {
    get: {
      summary: 'Readiness: the database answers and its schema is current. Does not wait for ingestion.',
      responses: { '200': json(object({ status: str() })), '503': json(object({ status: str(), reason: str() }), 'Not ready.') },
    },
  },
  ...Object.fromEntries(
    ['/api/scan', '/api/validator'].flatMap((prefix) => [
      [
        `${prefix}/livez`,
        { get: { summary: 'Liveness as Splice apps serve it: 200, no body.', responses: { '200': { description: 'Live.' } } } },
      ],
      [
        `${prefix}/readyz`,
        {
          get: {
            summary: 'Readiness as Splice apps serve it: 200 or 503, no body (the same check as /readyz).',
            responses: { '200': { description: 'Ready.' }, '503': { description: 'Not ready.' } },
          },
        },
      ],
    ]),
  ),
  '/status': {
    get: {
      summary: "Ingestion progress per stream and per migration, with this process's writer role.",
      responses: {
        '200': json(
          object(
            {
              writer: { type: 'string', enum: ['active', 'standby', 'none'], description: 'none: this process runs no worker.' },
              sources: array(
                object({
                  source: str(),
                  upstream: str('Origin of the upstream URL.'),
                  last_outcome: { type: 'string', enum: ['ok', 'retried', 'failed'] },
                  last_at: str(),
                  last_ok_at: nullable(str()),
                }),
              ),
              streams: array(
                object({
                  stream: str(),
                  position: str(),
                  migration_id: nullable(int64()),
                  record_time: nullable(str()),
                  lag_seconds: nullable({ type: 'number', description: 'Seconds between now and record_time.' }),
                  items_applied: int64(),
                  updated_at: str(),
                }),
              ),
              migrations: array(
                object({
                  migration_id: int64(),
                  updates: int64(),
                  last_record_time: nullable(str()),
                  snapshots: int64(),
                  last_snapshot: nullable(str()),
                }),
              ),
              attestation: {
                ...object({
                  stalled: nullable(
                    object({
                      position: str('The position no quorum attests the next element after.'),
                      reason: { type: 'string', enum: ['conflict', 'no quorum', 'verdict pending'] },
                      since: str(),
                    }),
                  ),
                  upstreams: array(
                    object({
                      upstream: str(),
                      state: { type: 'string', enum: ['agreeing', 'divergent', 'unavailable', 'unknown'] },
                      agreed: int64(),
                      disagreed: int64(),
                      unavailable: int64(),
                      last_disagreement: nullable(object({ position: str(), hash: nullable(str()), expected: nullable(str()), at: str() })),
                    }),
                  ),
                }),
                description: 'Only with the attested scan source (SCAN_SOURCE_THRESHOLD above 1).',
              },
              read_replicas: {
                ...array(
                  object({
                    replica: str('replica-<position in DATABASE_READ_URLS>, as the metrics label it.'),
                    host: str('host:port/database, without credentials.'),
                    condition: {
                      type: 'string',
                      enum: ['starting', 'unavailable', 'not_a_standby', 'other_cluster', 'lagging', 'in_use'],
                      description: 'Only in_use serves requests; lagging: further behind than DATABASE_READ_MAX_LAG_MS.',
                    },
                    in_use: { type: 'boolean' },
                    replay_lag_bytes: nullable(int64()),
                    replay_lag_seconds: nullable({
                      type: 'number',
                      description: 'Since the primary first held WAL the replica has not replayed.',
                    }),
                    replay_paused: { type: 'boolean' },
                    last_checked_at: nullable(str()),
                    last_error: nullable(str()),
                    migrations: array(object({ migration_id: int64(), last_record_time: nullable(str()), last_snapshot: nullable(str()) })),
                  }),
                ),
                description: 'Only with DATABASE_READ_URLS: the streaming replicas this API reads from, and what each holds.',
              },
            },
            ['attestation', 'read_replicas'],
          ),
        ),
      },
    },
  },
  '/metrics': {
    get: {
      summary: 'Prometheus metrics.',
      responses: { '200': { description: 'Prometheus text format.', content: { 'text/plain': { schema: { type: 'string' } } } } },
    },
  },
  '/docs/openapi.json': { get: { summary: 'This document.', responses: { '200': json({ type: 'object' }) } } },
  '/': {
    get: {
      summary: 'The web UI (when WEB_UI_ENABLED): one HTML page whose script reads the public endpoints; its assets are under /ui/.',
      responses: {
        '200': { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } },
        '404': json(object({ error: str() }), 'The UI was not built (`npm run build` writes dist/web).'),
      },
    },
  },
};

export function openApiDocument(version: string): Record<string, unknown> {
  const components = new SchemaComponents();
  // Each router's declared operations, under the prefix it is mounted at.
  const declared = merged(pathsOf('/api/indexer', indexerOperations, components), pathsOf('/api/indexer', streamOperations, components));
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
          ledgerPaths,
          prefixed('/registry', registryPaths),
          prefixed('/api/validator/v0/scan-proxy/registry', securedRegistryPaths),
          declared,
        ),
      ),
    }),
    components: {
      schemas: { ...scanSchemas, ...ledgerSchemas, ...registrySchemas, ...components.schemas },
      responses: commonResponses,
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    },
  };
}
