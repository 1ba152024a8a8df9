/** The page size rule of the Scan app and its validator proxy: Limit.DefaultMaxPageSize and PageLimit.tryCreate (Splice Limit.scala). */
import { badRequest } from '../internal/errors';

export const MAX_PAGE_SIZE = 1000;

/** A requested page size, or the Scan app's 400 when it is out of 1..max. */
export function pageLimit(n: number, max = MAX_PAGE_SIZE): number {
  if (n < 1) throw badRequest('Limit must be at least 1.');
  if (n > max) throw badRequest(`Exceeded limit maximum (${n} > ${max}).`);
  return n;
}
