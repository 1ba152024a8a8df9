/** Tokens, requests and the fixed error bodies of the ledger interface tests. */
import { SignJWT, type JWTPayload } from 'jose';
import { request, type HttpResult } from '../../support/http/http';

export const SECRET = 'ledger-test-secret-of-enough-length-0123456789';
/** The default LEDGER_PARTICIPANT_ID. */
export const PARTICIPANT_ID = 'scan-indexer::12200000000000000000000000000000000000000000000000000000000000000000';
/**
 * The audience of test tokens: this participant's participant audience, so
 * that a default token is valid both where a test sets LEDGER_AUTH_AUDIENCE to
 * it and where no audience is configured (Canton's participant-audience rule).
 */
export const AUDIENCE = `https://daml.com/jwt/aud/participant/${PARTICIPANT_ID}`;
export const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const TRACEPARENT = `00-${TRACE_ID}-b7ad6b7169203331-01`;

/** An HS256 token; `expiresIn: null` leaves `exp` out. */
export async function hs256Token(
  sub: string | undefined,
  claims: JWTPayload = {},
  options: { secret?: string; expiresIn?: string | number | null } = {},
): Promise<string> {
  let jwt = new SignJWT({ aud: AUDIENCE, ...claims }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt();
  if (sub !== undefined) jwt = jwt.setSubject(sub);
  if (options.expiresIn !== null) jwt = jwt.setExpirationTime(options.expiresIn ?? '10m');
  return jwt.sign(new TextEncoder().encode(options.secret ?? SECRET));
}

/** POST/GET with a bearer token and a fixed traceparent, so error bodies are deterministic. */
export function ledgerRequest(
  url: string,
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  return request(url, method, path, body, {
    traceparent: TRACEPARENT,
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    ...headers,
  });
}

const base = { correlationId: null, traceId: TRACE_ID, retryInfo: null, definiteAnswer: null };
const context = (category: number, extra: Record<string, string> = {}) => ({
  ...extra,
  participant: "'scan-indexer'",
  category: String(category),
  definite_answer: 'false',
  tid: TRACE_ID,
});

/** The redacted 401/403 body (BaseError.RedactedMessage): only the gRPC code (and, for an unknown user, a context key) differ. */
function securitySensitive(grpcCodeValue: number, context: Record<string, string> = {}) {
  return {
    code: 'NA',
    cause: 'A security-sensitive error has been received',
    correlationId: TRACE_ID,
    traceId: TRACE_ID,
    context,
    resources: [],
    errorCategory: -1,
    grpcCodeValue,
    retryInfo: null,
    definiteAnswer: null,
  };
}

export const expectedErrors = {
  notFound: (updateId: string) => ({
    ...base,
    code: 'UPDATE_NOT_FOUND',
    cause: 'Update not found, or not visible.',
    context: context(11),
    resources: [['ErrorResource(UPDATE_ID)', updateId]],
    errorCategory: 11,
    grpcCodeValue: 5,
  }),
  missingField: (field: string) => ({
    ...base,
    code: 'MISSING_FIELD',
    cause: `The submitted command is missing a mandatory field: ${field}`,
    context: context(8, { field_name: field }),
    resources: [],
    errorCategory: 8,
    grpcCodeValue: 3,
  }),
  invalidField: (field: string, message: string) => ({
    ...base,
    code: 'INVALID_FIELD',
    cause: `The submitted command has a field with invalid value: Invalid field ${field}: ${message}`,
    context: context(8, { field_name: field }),
    resources: [],
    errorCategory: 8,
    grpcCodeValue: 3,
  }),
  invalidArgument: (message: string) => ({
    ...base,
    code: 'INVALID_ARGUMENT',
    cause: `The submitted request has invalid arguments: ${message}`,
    context: context(8),
    resources: [],
    errorCategory: 8,
    grpcCodeValue: 3,
  }),
  unauthenticated: securitySensitive(16),
  forbidden: securitySensitive(7),
  unknownUser: securitySensitive(7, { ledger_api_error: 'invalid token' }),
};
