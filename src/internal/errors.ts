/**
 * Error classes. Client mistakes carry an HTTP status and a message that is
 * safe to show; anything else is a system fault, logged in full and answered
 * with a generic message. Retryable faults are told apart by class, never by
 * message text.
 */

/** A request the client got wrong, or something it asked for that is not there. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const notFound = (message: string) => new HttpError(404, message);

/** A fault that may go away if the same work is tried again (connection lost, serialization failure). */
export class RetryableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RetryableError';
  }
}

const RETRYABLE_PG_CODES = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '57P01', // admin_shutdown
  '57P03', // cannot_connect_now
  '08000',
  '08003',
  '08006', // connection exceptions
]);

const LOST_CONNECTION_MESSAGE = /^(Connection terminated|Client has encountered a connection error|Client was closed)/;

/** True for errors worth retrying: lost connections and transient PostgreSQL conflicts. */
export function isRetryable(err: unknown): boolean {
  if (err instanceof RetryableError) return true;
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (RETRYABLE_PG_CODES.has(code) || ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT'].includes(code))) {
    return true;
  }
  // node-postgres reports a connection the server closed, and later use of that client, with no code.
  const message = (err as { message?: unknown }).message;
  return code === undefined && typeof message === 'string' && LOST_CONNECTION_MESSAGE.test(message);
}
