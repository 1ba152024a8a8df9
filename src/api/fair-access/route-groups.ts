/**
 * The route groups limited apart (RATE_LIMIT_<GROUP>) and where each is mounted. Health, readiness,
 * metrics, /status, the OpenAPI document and the web UI's files belong to none: they are never limited.
 */
import type { RouteGroup } from '../../internal/config';

export const GROUP_PATHS: Readonly<Record<RouteGroup, string>> = {
  scan: '/api/scan',
  'scan-proxy': '/api/validator',
  registry: '/registry',
  indexer: '/api/indexer',
  // Inside /api/indexer: the indexer group's limiter hands these to the streaming group.
  streaming: '/api/indexer/v0/stream',
  ledger: '/v2',
};

/** Whether a path below /api/indexer is a stream's. */
export function isStreamPath(pathInIndexer: string): boolean {
  return pathInIndexer.startsWith('/v0/stream') && (pathInIndexer.length === 10 || pathInIndexer[10] === '/');
}

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/** The group of a request path (without its query), or undefined for the paths that are never limited. */
export function groupOfPath(path: string): RouteGroup | undefined {
  if (under(path, GROUP_PATHS.indexer)) return isStreamPath(path.slice(GROUP_PATHS.indexer.length)) ? 'streaming' : 'indexer';
  if (under(path, GROUP_PATHS.scan)) return 'scan';
  if (under(path, GROUP_PATHS['scan-proxy'])) return 'scan-proxy';
  if (under(path, GROUP_PATHS.registry)) return 'registry';
  if (under(path, GROUP_PATHS.ledger)) return 'ledger';
  return undefined;
}
