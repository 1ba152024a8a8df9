/**
 * The answers any operation may give whatever it does, in the OpenAPI document: a URL and headers
 * over the HTTP server's limit (431, before any route), a request refused before its operation sees
 * it (400: NUL characters, a malformed percent-escape or JSON body; 413: a body over 1 MB; 415: a
 * Content-Encoding or charset not supported), an unexpected failure (500) and an unavailable or
 * overloaded database (503). Declared once in components.responses and referenced from every
 * operation they apply to, after the fair-access responses (./fair-access.ts), so that no operation
 * is left without them and none declared more precisely is overwritten.
 */
import { groupOfPath } from '../fair-access/route-groups';
import { componentRef as ref } from './from-operations';

export const commonResponses = {
  HeadersTooLarge: {
    description:
      'The request URL and headers are over 16 KB: answered by the HTTP server before any route, in the Scan error shape on every path.',
    content: { 'application/json': { schema: ref('ErrorResponse') } },
  },
  RefusedRequest: {
    description:
      'A client mistake found before the operation reads its input: NUL characters in the path, query or body, a malformed percent-escape in the path, or a body that is not JSON or does not decompress as its Content-Encoding says.',
    content: { 'application/json': { schema: ref('ErrorResponse') } },
  },
  BodyTooLarge: {
    description: 'The request body is over 1 MB (after decompression).',
    content: { 'application/json': { schema: ref('ErrorResponse') } },
  },
  UnsupportedEncoding: {
    description:
      'The request body has a Content-Encoding this server does not read (it reads gzip, deflate and br, and zstd where its Node.js has it), or a charset other than UTF-8, -16 or -32.',
    content: { 'application/json': { schema: ref('ErrorResponse') } },
  },
  UnexpectedError: {
    description: 'An unexpected error occurred (no detail is given; the server logs it).',
    content: { 'application/json': { schema: ref('ErrorResponse') } },
  },
  Unavailable: {
    description:
      'The database is unavailable, a query ran past the statement timeout (DATABASE_STATEMENT_TIMEOUT_MS), or every database connection stayed in use for DATABASE_WAIT_MS: try again after Retry-After.',
    headers: { 'Retry-After': { description: 'Whole seconds to wait before trying again.', schema: { type: 'integer', minimum: 1 } } },
    content: { 'application/json': { schema: ref('ErrorResponse') } },
  },
};

const shared = (name: keyof typeof commonResponses) => ({ $ref: `#/components/responses/${name}` });

/** Operations of the route groups that read no database: never a 503. */
const WITHOUT_DATABASE: readonly string[] = [
  'GET /api/scan/version',
  'GET /api/scan/v0/splice-instance-names',
  'GET /api/scan/v0/feature-support',
];

/** Operations outside the route groups that read the database and answer its errors as Scan does. */
const READS_DATABASE: readonly string[] = ['GET /status'];

/** Health checks under the Splice app prefixes: their own code, no body, no error handler in between. */
const HEALTH = /\/(livez|readyz)$/;

type Operation = { responses?: Record<string, unknown>; requestBody?: unknown };
type Paths = Record<string, Record<string, unknown>>;

export function withCommonResponses(paths: Paths): Paths {
  const out: Paths = {};
  for (const [path, operations] of Object.entries(paths)) {
    const served = groupOfPath(path) !== undefined && !HEALTH.test(path);
    out[path] = Object.fromEntries(
      Object.entries(operations).map(([method, value]) => {
        const operation = value as Operation;
        const name = `${method.toUpperCase()} ${path}`;
        const declared = operation.responses ?? {};
        const responses: Record<string, unknown> = { ...declared, '431': shared('HeadersTooLarge') };
        // Operations with a `default` (the Ledger API's) answer 500 and 503 in their own shape.
        if (served && declared.default === undefined) {
          responses['400'] ??= shared('RefusedRequest');
          // The body parser runs on every POST, with or without a declared body (POST /v0/state/acs/force has none).
          if (operation.requestBody !== undefined || method === 'post') {
            responses['413'] ??= shared('BodyTooLarge');
            responses['415'] ??= shared('UnsupportedEncoding');
          }
        }
        if ((served || READS_DATABASE.includes(name)) && declared.default === undefined) {
          responses['500'] ??= shared('UnexpectedError');
          if (!WITHOUT_DATABASE.includes(name)) responses['503'] ??= shared('Unavailable');
        }
        return [method, { ...operation, responses }];
      }),
    );
  }
  return out;
}
