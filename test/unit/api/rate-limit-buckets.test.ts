/**
 * The token bucket and the in-memory store, on a clock moved by hand: refill at the configured rate up
 * to the burst, Retry-After in whole seconds, and forgetting clients without changing an answer.
 */
import { MemoryBuckets } from '../../../src/api/fair-access/bucket-store';
import { addressKey, apiKeyOf } from '../../../src/api/fair-access/client-identity';
import { groupOfPath } from '../../../src/api/fair-access/route-groups';
import { reservationSize } from '../../../src/api/fair-access/shared-buckets';
import { isFull, takeToken, type Bucket } from '../../../src/api/fair-access/token-bucket';
import type { ApiKeyLimit } from '../../../src/internal/config';
import type { IncomingMessage } from 'node:http';

describe('token bucket', () => {
  const limit = { perSecond: 2, burst: 3 };

  it('lets a burst through, then refills at the rate, never beyond the burst', () => {
    const bucket: Bucket = { tokens: 3, at: 0 };
    expect([takeToken(bucket, limit, 0), takeToken(bucket, limit, 0), takeToken(bucket, limit, 0)]).toEqual([0, 0, 0]);
    // Empty: one token comes in 500 ms, so the answer is the whole second it rounds up to.
    expect(takeToken(bucket, limit, 0)).toBe(1);
    expect(takeToken(bucket, limit, 499)).toBe(1);
    expect(takeToken(bucket, limit, 500)).toBe(0);
    expect(takeToken(bucket, limit, 500)).toBe(1);
    // A long pause fills it to the burst and no further.
    expect(isFull(bucket, limit, 60_000)).toBe(true);
    const taken = [0, 0, 0, 0].map(() => takeToken(bucket, limit, 60_000));
    expect(taken).toEqual([0, 0, 0, 1]);
  });

  it('says how many whole seconds a slow bucket needs', () => {
    const slow = { perSecond: 0.1, burst: 1 };
    const bucket: Bucket = { tokens: 1, at: 0 };
    expect(takeToken(bucket, slow, 0)).toBe(0);
    expect(takeToken(bucket, slow, 0)).toBe(10);
    expect(takeToken(bucket, slow, 2_500)).toBe(8);
    expect(takeToken(bucket, slow, 9_999)).toBe(1);
    expect(takeToken(bucket, slow, 10_000)).toBe(0);
  });

  it('does not refill when the clock seems to go back', () => {
    const bucket: Bucket = { tokens: 0, at: 1_000 };
    expect(takeToken(bucket, limit, 500)).toBe(1);
    expect(bucket).toEqual({ tokens: 0, at: 1_000 });
  });
});

describe('in-memory buckets', () => {
  it('keeps one bucket per client, each starting full', () => {
    let now = 0;
    const store = new MemoryBuckets(() => now);
    const limit = { perSecond: 1, burst: 2 };
    expect([store.take('a', limit), store.take('a', limit), store.take('a', limit)]).toEqual([0, 0, 1]);
    expect([store.take('b', limit), store.take('b', limit), store.take('b', limit)]).toEqual([0, 0, 1]);
    now = 1_000;
    expect([store.take('a', limit), store.take('a', limit)]).toEqual([0, 1]);
  });

  it('forgets full buckets first, then the oldest clients, when it holds too many', () => {
    let now = 0;
    const store = new MemoryBuckets(() => now, 10);
    const limit = { perSecond: 1, burst: 1 };
    for (let i = 0; i < 10; i++) store.take(`c${i}`, limit);
    expect(store.size).toBe(10);
    // All ten are empty: an eleventh client makes room by dropping the oldest tenth (c0).
    store.take('c10', limit);
    expect(store.size).toBe(10);
    expect(store.take('c1', limit)).toBe(1);
    expect(store.take('c0', limit)).toBe(0);
    // A second later every bucket is full again: forgetting them all changes no answer.
    now = 1_000;
    store.take('c11', limit);
    expect(store.size).toBe(1);
  });
});

describe('client identity', () => {
  it('counts IPv4 as is, IPv4 in IPv6 as IPv4, and IPv6 by its /64 network', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('2001:db8:0:1::7')).toBe('2001:db8:0:1::/64');
    expect(addressKey('2001:0db8:0000:0001:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:0:1::/64');
    expect(addressKey('2001:DB8:0:1:ffff::1')).toBe('2001:db8:0:1::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey(undefined)).toBe('unknown');
  });

  const keys = new Map<string, ApiKeyLimit>([
    ['k-0123456789abcdef', { name: 'partner-a', perSecond: 5, burst: 10 }],
    ['k-fedcba9876543210', { name: 'partner-b', perSecond: 1, burst: 1 }],
  ]);
  const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

  it('finds a configured key in X-API-Key or a bearer token, and nothing else', () => {
    expect(apiKeyOf(req({ 'x-api-key': 'k-0123456789abcdef' }), keys)?.name).toBe('partner-a');
    expect(apiKeyOf(req({ authorization: 'Bearer k-fedcba9876543210' }), keys)?.name).toBe('partner-b');
    expect(apiKeyOf(req({ authorization: 'bearer  k-fedcba9876543210 ' }), keys)?.name).toBe('partner-b');
    // An unknown X-API-Key does not hide a configured bearer key.
    expect(apiKeyOf(req({ 'x-api-key': 'nope', authorization: 'Bearer k-fedcba9876543210' }), keys)?.name).toBe('partner-b');
    // A JWT or another scheme is not a key: authentication sees it as before.
    expect(apiKeyOf(req({ authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig' }), keys)).toBeUndefined();
    expect(apiKeyOf(req({ authorization: 'Basic k-0123456789abcdef' }), keys)).toBeUndefined();
    expect(apiKeyOf(req({}), keys)).toBeUndefined();
  });

  it('finds a key of the longest allowed length as a bearer token, and looks no further into longer ones', () => {
    const longest = 'k'.repeat(256);
    const withLongest = new Map([[longest, { name: 'long', perSecond: 1, burst: 1 }]]);
    expect(apiKeyOf(req({ authorization: `Bearer ${longest}` }), withLongest)?.name).toBe('long');
    expect(apiKeyOf(req({ authorization: `Bearer ${longest}${'k'.repeat(100)}` }), withLongest)).toBeUndefined();
  });
});

describe('route groups', () => {
  it('places each path in its group, streams apart, and health, metrics and the UI in none', () => {
    expect(groupOfPath('/api/scan/v0/dso')).toBe('scan');
    expect(groupOfPath('/api/validator/v0/scan-proxy/registry/metadata/v1/info')).toBe('scan-proxy');
    expect(groupOfPath('/registry/metadata/v1/info')).toBe('registry');
    expect(groupOfPath('/api/indexer/v0/acs-snapshots')).toBe('indexer');
    expect(groupOfPath('/api/indexer/v0/stream/updates')).toBe('streaming');
    expect(groupOfPath('/api/indexer/v0/streams')).toBe('indexer');
    expect(groupOfPath('/v2/updates/transaction-by-id')).toBe('ledger');
    expect(groupOfPath('/v2')).toBe('ledger');
    expect(['/livez', '/readyz', '/metrics', '/status', '/', '/ui/app.js', '/docs/openapi.json', '/v20'].map(groupOfPath)).toEqual(
      Array(8).fill(undefined),
    );
  });

  it('reserves a tenth of a burst at a time in the shared store, at least one token', () => {
    expect([1, 9, 10, 100, 1000].map((burst) => reservationSize({ perSecond: 1, burst }))).toEqual([1, 1, 1, 10, 100]);
  });
});
