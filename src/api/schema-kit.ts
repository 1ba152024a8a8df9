/**
 * Zod schemas of the shapes many answers share, as the OpenAPI document states them: int64 and
 * int32 integers, record times, decimals with ten fractional digits, and the Scan error body.
 * Answers are declared with these so that the document says the same everywhere.
 */
import { z } from 'zod';

const described = <T extends z.ZodType>(schema: T, description?: string): T => (description ? schema.describe(description) : schema);

export const int64 = (description?: string) => described(z.number().int().meta({ format: 'int64' }), description);
export const int32 = (description?: string) => described(z.number().int().meta({ format: 'int32' }), description);
export const str = (description?: string) => described(z.string(), description);
export const bool = (description?: string) => described(z.boolean(), description);
export const dateTime = (description?: string) => described(z.string().meta({ format: 'date-time' }), description);
/** A decimal rendered with exactly 10 fractional digits. */
export const decimal = (description?: string) => described(z.string().regex(/^-?[0-9]+\.[0-9]{10}$/), description);
/** Any JSON object, such as a contract payload passed on as stored. */
export const jsonObject = (description?: string) => described(z.looseObject({}), description);

/** The Scan API's error body, also answered by /registry, /api/validator and /api/indexer. */
export const ErrorResponse = z.object({ error: z.string() }).meta({ id: 'ErrorResponse' });
