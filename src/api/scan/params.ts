/** zod types shared by Scan request schemas. */
import { z } from 'zod';
import { parseStorableTimestamp } from '../../domain/time';
import { badRequest } from '../../internal/errors';

/** An int64 as a JSON number; values beyond 2^53 cannot be represented exactly and are refused. */
export const int64 = z
  .number({ error: 'expected an integer' })
  .refine(Number.isInteger, { error: 'expected an integer', abort: true })
  .refine(Number.isSafeInteger, { error: 'integer out of range' })
  .meta({ type: 'integer', format: 'int64' });

/** An int64 query parameter (a decimal string), as a bigint; `what` names it in the error. */
export const queryInteger = (what: string) =>
  z
    .string({ error: `expected ${what}` })
    .regex(/^-?\d{1,19}$/, { error: `expected ${what}` })
    .transform(BigInt)
    .refine((n) => n >= -(2n ** 63n) && n < 2n ** 63n, { error: 'integer out of range' })
    // Documented as what it carries, not as the string it is parsed from.
    .meta({ type: 'integer', format: 'int64', pattern: undefined });

/** A record time of a request, parsed like Instant.parse (digits beyond microseconds floored), or a 400. */
export function requestTimestamp(text: string): bigint {
  try {
    return parseStorableTimestamp(text);
  } catch (err) {
    throw badRequest(`Invalid timestamp: ${(err as Error).message}`);
  }
}
