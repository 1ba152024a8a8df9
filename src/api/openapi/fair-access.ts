/**
 * The answers of fair access in the OpenAPI document (src/api/fair-access/): 429 on every operation of a
 * rate-limited route group, and 503 on the operations behind the bound on expensive requests. Added to
 * the assembled paths, so that no operation of a group can be left without them.
 */
import { groupOfPath } from '../fair-access/route-groups';
import { componentRef as ref } from './from-operations';

/** Operations behind heavyRequest(); a test compares this list with the routes that carry the bound. */
export const EXPENSIVE_OPERATIONS: readonly string[] = [
  'POST /api/scan/v2/updates',
  'POST /api/scan/v1/updates',
  'POST /api/scan/v0/events',
  'POST /api/scan/v0/transactions',
  'POST /api/scan/v0/backfilling/import-updates',
  'POST /api/scan/v0/backfilling/updates-before',
  'POST /api/scan/v0/state/acs',
  'POST /api/scan/v1/state/acs',
  'POST /api/scan/v2/state/acs',
  'POST /api/scan/v0/holdings/state',
  'POST /api/scan/v1/holdings/state',
  'POST /api/scan/v2/holdings/state',
  'POST /api/scan/v0/holdings/summary',
  'POST /api/scan/v1/holdings/summary',
  'POST /api/validator/v0/scan-proxy/holdings/summary',
  'POST /api/validator/v1/scan-proxy/holdings/summary',
];

const retryAfter = {
  'Retry-After': { description: 'Whole seconds to wait before trying again.', schema: { type: 'integer', minimum: 1 } },
};

const tooManyRequests = (error: Record<string, unknown>) => ({
  description:
    "Too many requests from this client (its address, or its API key) for the route group's rate limit (RATE_LIMIT_*); the message says the limit.",
  headers: retryAfter,
  content: { 'application/json': { schema: error } },
});

const BUSY =
  'Too many expensive requests (large pages, many parties) are being served at once (HEAVY_REQUEST_CONCURRENCY): try again after Retry-After, or ask for less.';

type Operation = { responses?: Record<string, unknown> };
type Paths = Record<string, Record<string, unknown>>;

export function withFairAccessResponses(paths: Paths): Paths {
  const out: Paths = {};
  for (const [path, operations] of Object.entries(paths)) {
    const group = groupOfPath(path);
    out[path] = Object.fromEntries(
      Object.entries(operations).map(([method, value]) => {
        const operation = value as Operation;
        if (group === undefined) return [method, operation];
        const responses: Record<string, unknown> = {
          ...operation.responses,
          '429': tooManyRequests(ref(group === 'ledger' ? 'JsCantonError' : 'ErrorResponse')),
        };
        if (EXPENSIVE_OPERATIONS.includes(`${method.toUpperCase()} ${path}`)) {
          const before = operation.responses?.['503'] as { description?: string } | undefined;
          responses['503'] = {
            description: before?.description ? `${before.description} Or: ${BUSY}` : BUSY,
            headers: retryAfter,
            content: { 'application/json': { schema: ref('ErrorResponse') } },
          };
        }
        return [method, { ...operation, responses }];
      }),
    );
  }
  return out;
}
