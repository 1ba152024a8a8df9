/**
 * Token buckets shared by the API replicas (rate_limit_buckets, RATE_LIMIT_STORE=postgres). A replica
 * reserves up to `want` tokens in one statement and serves requests from them; the database's clock
 * refills every bucket, so replicas whose clocks differ still agree.
 */
import { CompiledQuery, sql } from 'kysely';
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';

export interface Reservation {
  /** Tokens reserved for the caller: 0 to `want`. */
  granted: number;
  /** Tokens left in the bucket after the reservation (a fraction while it refills). */
  tokens: number;
}

/**
 * $1 bucket, $2 tokens per second, $3 burst, $4 tokens wanted (at most the burst). A bucket seen for
 * the first time is full; an existing one is refilled for the time since its last reservation. Written
 * out once rather than built per call: it runs on the request path, once per reservation.
 */
const RESERVE = `
  insert into rate_limit_buckets as b (bucket, tokens, granted, refilled_at, full_at)
  values ($1, $3::float8 - $4::int, $4::int, now(), now() + make_interval(secs => $4::int / $2::float8))
  on conflict (bucket) do update set (tokens, granted, refilled_at, full_at) = (
    select s.avail - g.n, g.n, now(), now() + make_interval(secs => ($3::float8 - (s.avail - g.n)) / $2::float8)
    from (select least($3::float8, b.tokens + greatest(0, extract(epoch from now() - b.refilled_at)::float8) * $2::float8) as avail) s
    cross join lateral (select least($4::int, floor(s.avail)::int) as n) g
  )
  returning tokens, granted`;

/** Refills the bucket and takes up to `want` whole tokens: one upsert on the primary key. */
export const reserveRateTokens = repositoryOperation(
  'reserveRateTokens',
  async function reserveRateTokens(
    db: Db,
    bucket: string,
    limit: { perSecond: number; burst: number },
    want: number,
  ): Promise<Reservation> {
    const { rows } = await db.executeQuery<Reservation>(CompiledQuery.raw(RESERVE, [bucket, limit.perSecond, limit.burst, want]));
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
