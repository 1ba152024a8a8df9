/**
 * Token buckets shared by the API replicas (rate_limit_buckets, RATE_LIMIT_STORE=postgres). A replica
 * reserves up to `want` tokens in one statement and serves requests from them; the database's clock
 * refills every bucket, so replicas whose clocks differ still agree.
 */
import { sql } from 'kysely';
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';

export interface Reservation {
  /** Tokens reserved for the caller: 0 to `want`. */
  granted: number;
  /** Tokens left in the bucket after the reservation (a fraction while it refills). */
  tokens: number;
}

/**
 * Refills the bucket for the time since its last reservation and takes up to `want` whole tokens
 * (want ≤ burst). A bucket seen for the first time is full. One upsert on the primary key.
 */
export const reserveRateTokens = repositoryOperation(
  'reserveRateTokens',
  async function reserveRateTokens(
    db: Db,
    bucket: string,
    limit: { perSecond: number; burst: number },
    want: number,
  ): Promise<Reservation> {
    const rate = sql`${limit.perSecond}::float8`;
    const burst = sql`${limit.burst}::float8`;
    const { rows } = await sql<{ tokens: number; granted: number }>`
      insert into rate_limit_buckets as b (bucket, tokens, granted, refilled_at, full_at)
      values (${bucket}, ${burst} - ${want}::int, ${want}::int, now(), now() + make_interval(secs => ${want}::int / ${rate}))
      on conflict (bucket) do update set (tokens, granted, refilled_at, full_at) = (
        select s.avail - g.n, g.n, now(), now() + make_interval(secs => (${burst} - (s.avail - g.n)) / ${rate})
        from (select least(${burst}, b.tokens + greatest(0, extract(epoch from now() - b.refilled_at)::float8) * ${rate}) as avail) s
        cross join lateral (select least(${want}::int, floor(s.avail)::int) as n) g
      )
      returning tokens, granted`.execute(db);
    const row = rows[0]!;
    return { granted: row.granted, tokens: row.tokens };
  },
);

/** Deletes buckets that have filled up again: a missing bucket is a full one. */
export const deleteFullRateBuckets = repositoryOperation(
  'deleteFullRateBuckets',
  async function deleteFullRateBuckets(db: Db): Promise<number> {
    const result = await sql`delete from rate_limit_buckets where full_at <= now()`.execute(db);
    return Number(result.numAffectedRows ?? 0n);
  },
);
