/**
 * The pure parts of reading on replicas: WAL positions, the lag timeline, which failures send a read to
 * the primary, how positions and scopes travel with a request, and the knobs. The routing itself is
 * shown on real replicas in test/integration/api/read-replicas.test.ts.
 */
import { ConfigError, loadConfig } from '../../../src/internal/config';
import {
  acceptedOrFromPrimary,
  currentReadRequest,
  currentReadScope,
  needPosition,
  onPrimary,
  runInReadRequest,
  withNeeds,
} from '../../../src/store/read-context';
import { describeUrl, parseLsn, WalTimeline } from '../../../src/store/replica-monitor';
import { replicaFault } from '../../../src/store/routing-pool';

describe('WAL positions and replay lag', () => {
  it('reads a pg_lsn as bytes', () => {
    expect(parseLsn('0/0')).toBe(0n);
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
    expect(parseLsn('FFFFFFFF/FFFFFFFF')).toBe(2n ** 64n - 1n);
    expect(() => parseLsn('16-B374D848')).toThrow('not a WAL position: 16-B374D848');
  });

  it('measures lag from when the primary first held WAL the replica lacks, so an idle primary shows none', () => {
    const t = new WalTimeline(60_000);
    expect(t.lagSeconds(100n, 0)).toBeNull();
    t.record(1_000, 100n);
    t.record(2_000, 100n); // idle: no new position
    expect(t.lagSeconds(100n, 90_000)).toBe(0);
    t.record(3_000, 150n);
    t.record(4_000, 200n);
    // At 100 the replica lacks what the primary had from 3 s on; at 150, from 4 s on; at 200 nothing.
    expect(t.lagSeconds(100n, 10_000)).toBe(7);
    expect(t.lagSeconds(150n, 10_000)).toBe(6);
    expect(t.lagSeconds(200n, 10_000)).toBe(0);
    expect(t.lagSeconds(250n, 10_000)).toBe(0);
    expect(t.latest).toBe(200n);
  });

  it('keeps a bounded history, the newest position always', () => {
    const t = new WalTimeline(1_000);
    for (let i = 0; i < 100; i++) t.record(i * 100, BigInt(i));
    // Older samples are gone: a replica behind all that is kept is at least as far behind as the oldest kept.
    expect(t.lagSeconds(0n, 10_000)).toBe((10_000 - 8_900) / 1000);
    t.record(1_000_000, 100n);
    expect(t.latest).toBe(100n);
    expect(t.lagSeconds(99n, 1_000_500)).toBe(0.5);
  });

  it('names a server by host, port and database, never its credentials', () => {
    expect(describeUrl('postgresql://scan:s3cret@replica-1.db:5433/scan_indexer?sslmode=require')).toBe('replica-1.db:5433/scan_indexer');
    expect(describeUrl('postgres://replica')).toBe('replica');
    expect(describeUrl('not a url')).toBe('unparsable URL');
  });
});

describe('failures that send a replica read to the primary', () => {
  const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });
  it.each([
    [pgError('25006', 'cannot execute INSERT in a read-only transaction'), 'read_only'],
    [pgError('40001', 'canceling statement due to conflict with recovery'), 'recovery_conflict'],
    [pgError('40P01'), 'recovery_conflict'],
    [pgError('57P04'), 'recovery_conflict'],
    [pgError('57P01', 'terminating connection due to administrator command'), 'replica_unavailable'],
    [pgError('57P03', 'the database system is starting up'), 'replica_unavailable'],
    [pgError('ECONNREFUSED'), 'replica_unavailable'],
    [pgError('08006'), 'replica_unavailable'],
    [new Error('Connection terminated unexpectedly'), 'replica_unavailable'],
    [new Error('Connection terminated due to connection timeout'), 'replica_unavailable'],
    [new Error('timeout exceeded when trying to connect'), 'replica_busy'],
  ])('%# → %s', (err, reason) => {
    expect(replicaFault(err)).toBe(reason);
  });

  it.each([
    [pgError('57014', 'canceling statement due to statement timeout')],
    [pgError('42P01', 'relation "x" does not exist')],
    [pgError('22P02')],
    [new Error('something else')],
    ['a string'],
  ])('%# is the answer, not a reason to move', (err) => {
    expect(replicaFault(err)).toBeUndefined();
  });
});

describe('the read context of a request', () => {
  it('is absent outside a request: reads there go to the primary', async () => {
    expect(currentReadScope()).toBeUndefined();
    needPosition({ kind: 'records', migrationId: 0, recordTime: 1n }); // a no-op
    expect(
      await acceptedOrFromPrimary(
        () => Promise.resolve(1),
        () => false,
        'not_found',
      ),
    ).toBe(1);
  });

  it('carries the positions registered, and scopes that add needs or pin the primary without changing the request', async () => {
    await runInReadRequest(async () => {
      needPosition({ kind: 'snapshot', migrationId: 1, recordTime: 10n });
      const outer = currentReadScope()!;
      expect(outer.needs).toEqual([{ kind: 'snapshot', migrationId: 1, recordTime: 10n }]);
      await withNeeds([{ kind: 'records', migrationId: 1, recordTime: 5n }], async () => {
        expect(currentReadScope()!.needs).toHaveLength(2);
        expect(currentReadScope()!.request).toBe(outer.request);
      });
      await onPrimary(async () => {
        expect(currentReadScope()!.chosen).toBe('primary');
      });
      expect(outer.needs).toHaveLength(1);
      expect(outer.chosen).toBeUndefined();
    });
  });

  it('reads again on the primary only what a replica served and was not acceptable, and counts why', async () => {
    await runInReadRequest(async () => {
      const where: string[] = [];
      // What the routing pool marks when a scope's query runs on a replica.
      const read = async () => {
        const scope = currentReadScope()!;
        if (scope.chosen !== 'primary') scope.replicaUsed = true;
        where.push(scope.chosen === 'primary' ? 'primary' : 'replica');
        return where.length === 1 ? [1] : [1, 2];
      };
      expect(await acceptedOrFromPrimary(read, (page) => page.length >= 2, 'short_page')).toEqual([1, 2]);
      expect(where).toEqual(['replica', 'primary']);
      expect(await acceptedOrFromPrimary(read, (page) => page.length >= 2, 'short_page')).toEqual([1, 2]);
      expect(where).toEqual(['replica', 'primary', 'replica']);
      expect(currentReadRequest()!.fallbacks).toEqual(['short_page']);
    });
  });
});

describe('the read replica knobs', () => {
  it('default to no replicas, and parse a list of URLs', () => {
    expect(loadConfig({}).readReplicas).toEqual({ urls: [], maxLagMs: 5000, pollMs: 250 });
    const config = loadConfig({ DATABASE_READ_URLS: 'postgres://a/x, postgresql://b:5433/x,', DATABASE_READ_MAX_LAG_MS: '1000' });
    expect(config.readReplicas).toEqual({ urls: ['postgres://a/x', 'postgresql://b:5433/x'], maxLagMs: 1000, pollMs: 250 });
  });

  it('refuse what is not a list of postgres URLs, without echoing it', () => {
    expect(() => loadConfig({ DATABASE_READ_URLS: 'postgres://a/x,mysql://u:pw@b/x' })).toThrow(
      new ConfigError(
        'Invalid configuration: DATABASE_READ_URLS=(hidden): expected a comma-separated list of postgres:// or postgresql:// URLs.',
      ),
    );
    expect(() => loadConfig({ DATABASE_READ_POLL_MS: '5' })).toThrow(/DATABASE_READ_POLL_MS="5": expected an integer of at least 10/);
  });
});
