/** zod types shared by Scan request schemas. */
import { z } from 'zod';

/** An int64 as a JSON number; values beyond 2^53 cannot be represented exactly and are refused. */
export const int64 = z
  .number({ error: 'expected an integer' })
  .refine(Number.isInteger, { error: 'expected an integer', abort: true })
  .refine(Number.isSafeInteger, { error: 'integer out of range' });
