/**
 * Numeric page tokens, for the older Scan operations whose page token is an
 * int64 (/v1/state/acs, /v1/holdings/state). A number cannot carry a keyset
 * position with its authentication the way a string token does, so the
 * position is stored (page_positions) and the token is its row id, bound to
 * the operation and request that issued it. Tokens expire after the
 * retention; an expired, unknown or foreign token is a 400, as an altered
 * string token is. Positions are written and read on the primary (give this the primary's Db): a
 * read replica may not have replayed a token issued a moment ago.
 */
import type { z } from 'zod';
import type { Json } from '../domain/json';
import { deleteExpiredPagePositions, insertPagePosition, readPagePosition } from '../store/page-position-repository';
import type { Db } from '../store/pool';
import { PageTokenError, requestDigest, type PositionTokens, type TokenScope } from './page-token';

/** How long a numeric token stays valid: long enough to page through any snapshot. */
const NUMBERED_TOKEN_RETENTION_SECONDS = 24 * 60 * 60;
/** How often a process deletes expired positions, at most. */
const PRUNE_INTERVAL_MS = 10 * 60 * 1000;

export class NumberedPageTokens implements PositionTokens<number> {
  private lastPrune = 0;

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  async encode(scope: TokenScope, position: Json): Promise<number> {
    if (this.now() - this.lastPrune >= PRUNE_INTERVAL_MS) {
      this.lastPrune = this.now();
      await deleteExpiredPagePositions(this.db, NUMBERED_TOKEN_RETENTION_SECONDS);
    }
    return insertPagePosition(this.db, {
      operation: scope.operation,
      requestDigest: requestDigest(scope.request),
      position: JSON.stringify(position),
    });
  }

  async verify<P>(scope: TokenScope, token: number, position: z.ZodType<P>, field = 'after'): Promise<P> {
    const stored =
      Number.isSafeInteger(token) && token > 0 ? await readPagePosition(this.db, token, NUMBERED_TOKEN_RETENTION_SECONDS) : undefined;
    if (!stored) {
      throw new PageTokenError(
        `Invalid page token in '${field}': it was not issued by this service or has expired (after ${NUMBERED_TOKEN_RETENTION_SECONDS / 3600} hours). Start again without '${field}'.`,
      );
    }
    if (stored.operation !== scope.operation || stored.requestDigest !== requestDigest(scope.request)) {
      throw new PageTokenError(
        `Invalid page token in '${field}': it was issued for a different request. Repeat the request that returned it, changing only '${field}'.`,
      );
    }
    const parsed = position.safeParse(JSON.parse(stored.position));
    if (!parsed.success)
      throw new PageTokenError(`Invalid page token in '${field}': it comes from an incompatible version of this service.`);
    return parsed.data;
  }
}
