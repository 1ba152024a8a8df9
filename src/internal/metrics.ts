/**
 * Every metric of the service in one registry, with the project prefix, base
 * units and bounded labels (route templates, never raw paths or ids).
 */
import {
  AggregatorRegistry,
  Counter,
  Gauge,
  Histogram,
  Registry,
  collectDefaultMetrics,
  type MetricObjectWithValues,
  type MetricValue,
} from 'prom-client';

const METRIC_PREFIX = 'scan_indexer_';

/** What the pool gauges read at scrape time (pg.Pool has these counts). */
export interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** What the read-replica gauges read at scrape time (the replica monitor's states). */
export interface ReplicaReading {
  /** Position in DATABASE_READ_URLS: the label is replica-<index>. */
  index: number;
  /** in_use serves requests; anything else does not. */
  condition: string;
  lagBytes: number | null;
  lagSeconds: number | null;
}

/** The label of a read replica: its position in DATABASE_READ_URLS, never its URL. */
export const replicaLabel = (index: number): string => `replica-${index}`;

/** What /status reports of each upstream the ingestion source reads. */
export interface SourceHealth {
  source: string;
  upstream: string;
  lastOutcome: 'ok' | 'retried' | 'failed';
  /** Milliseconds since the epoch. */
  lastAt: number;
  lastOkAt: number | null;
}

/** The metrics of another registry (a worker thread's), as prom-client's JSON form. */
export type ScrapeSource = () => Promise<MetricObjectWithValues<MetricValue<string>>[]>;

/**
 * `processMetrics: false` leaves out Node's process metrics, for a second registry in the same process (the
 * worker thread of `start`), whose series are merged into the first at scrape time (`addScrapeSource`).
 */
export function createMetrics(options: { processMetrics?: boolean } = {}) {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  const scrapeSources: ScrapeSource[] = [];
  /** Newest ingested record time (ms) per synchronizer and migration, for the lag computed at scrape time. */
  const newestRecordTimes = new Map<string, { synchronizer_id: string; migration_id: string; ms: number }>();
  const pools: PoolCounts[] = [];
  const replicaReadings: (() => readonly ReplicaReading[])[] = [];
  const eachReplica = (f: (r: ReplicaReading) => void) => replicaReadings.forEach((read) => read().forEach(f));
  /** The latest outcome per source and upstream, for /status. */
  const sourceHealth = new Map<string, SourceHealth>();
  const sourceRequests = new Counter({
    name: `${METRIC_PREFIX}source_requests_total`,
    help: 'Requests of the ingestion source to its upstream, by source (scan, ledger), upstream origin and outcome: ok, retried (a transient failure tried again), failed (given up or refused).',
    labelNames: ['source', 'upstream', 'outcome'] as const,
    registers: [registry],
  });
  const attestations = new Counter({
    name: `${METRIC_PREFIX}source_attestations_total`,
    help: 'Elements of the mirrored history decided by a quorum of upstreams (SCAN_SOURCE_THRESHOLD > 1), by upstream and outcome: agreed (it served the attested element, or showed the absence of one), disagreed (it served another, or none where the quorum has one), unavailable (a round it could not be asked).',
    labelNames: ['upstream', 'outcome'] as const,
    registers: [registry],
  });
  const acsChecks = new Counter({
    name: `${METRIC_PREFIX}bulk_acs_checks_total`,
    help: "A mirror's bulk ACS snapshots checked against its upstreams' (docs/bulk-history.md), by upstream and outcome: matched (the same objects and digests), differed (a snapshot at the same time with other objects), absent (none at that time), failed (no usable answer).",
    labelNames: ['upstream', 'outcome'] as const,
    registers: [registry],
  });
  const quorumStalled = new Gauge({
    name: `${METRIC_PREFIX}source_quorum_stalled`,
    help: 'Whether ingestion waits at a position that no quorum of upstreams attests (1) or not (0).',
    registers: [registry],
  });
  /** Per upstream, for /status: its counts and last disagreement; and where ingestion waits without a quorum. */
  const attestation = {
    upstreams: new Map<string, UpstreamAttestation>(),
    stalled: null as { position: string; reason: string; since: number } | null,
  };
  const dbQueryDuration = new Histogram({
    name: `${METRIC_PREFIX}db_query_duration_seconds`,
    help: "Duration of database queries by repository operation (the storage function that made them, or other) and outcome (ok, error). The writer's batch statements are timed by the ingest batch histogram instead.",
    labelNames: ['operation', 'outcome'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const upstreamOf = (upstream: string): UpstreamAttestation => {
    let u = attestation.upstreams.get(upstream);
    if (!u)
      attestation.upstreams.set(upstream, (u = { agreed: 0, disagreed: 0, unavailable: 0, lastOutcome: null, lastDisagreement: null }));
    return u;
  };
  return {
    newestRecordTimes,
    sourceHealth,
    attestation,
    /** The attested source's observer (AttestationObserver). */
    attestationObserver: {
      counted(upstream: string, outcome: 'agreed' | 'disagreed' | 'unavailable', n: number): void {
        attestations.inc({ upstream, outcome }, n);
        const u = upstreamOf(upstream);
        u[outcome] += n;
        u.lastOutcome = outcome;
      },
      disagreed(upstream: string, position: string, hash: string | null, expected: string | null): void {
        upstreamOf(upstream).lastDisagreement = { position, hash, expected, at: Date.now() };
      },
      stalled(stall: { position: string; reason: string } | undefined): void {
        quorumStalled.set(stall ? 1 : 0);
        if (!stall) attestation.stalled = null;
        else if (attestation.stalled?.position !== stall.position) attestation.stalled = { ...stall, since: Date.now() };
      },
    },
    /** The mirror's ACS snapshot check's observer (AcsCheckObserver). */
    acsCheckObserver: {
      checked(upstream: string, outcome: 'matched' | 'differed' | 'absent' | 'failed'): void {
        acsChecks.inc({ upstream, outcome });
      },
    },
    /** This process's part in writing, for /status: none (no worker running), standby, or active. */
    writer: { role: 'none' as 'none' | 'standby' | 'active' },
    /** Counts a request of the ingestion source and remembers its outcome for /status. */
    sourceRequest(source: string, upstream: string, outcome: 'ok' | 'retried' | 'failed'): void {
      sourceRequests.inc({ source, upstream, outcome });
      const key = `${source} ${upstream}`;
      const health = sourceHealth.get(key) ?? { source, upstream, lastOutcome: outcome, lastAt: 0, lastOkAt: null };
      health.lastOutcome = outcome;
      health.lastAt = Date.now();
      if (outcome === 'ok') health.lastOkAt = health.lastAt;
      sourceHealth.set(key, health);
    },
    /** Times a query of a repository operation (the store's QueryObserver). */
    observeQuery: (operation: string, seconds: number, outcome: 'ok' | 'error'): void => {
      dbQueryDuration.observe({ operation, outcome }, seconds);
    },
    /** Registers the pool whose connections the pool gauges report. */
    observePool(pool: PoolCounts): void {
      pools.push(pool);
    },
    /** Registers the read replicas whose lag and use the replica gauges report. */
    observeReplicas(read: () => readonly ReplicaReading[]): void {
      replicaReadings.push(read);
    },
    dbReplicaLagBytes: new Gauge({
      name: `${METRIC_PREFIX}db_replica_replay_lag_bytes`,
      help: 'WAL bytes the primary has written that each read replica (DATABASE_READ_URLS, by position) has not replayed; absent while unknown.',
      labelNames: ['replica'] as const,
      registers: [registry],
      collect() {
        this.reset();
        eachReplica((r) => r.lagBytes !== null && this.set({ replica: replicaLabel(r.index) }, r.lagBytes));
      },
    }),
    dbReplicaLagSeconds: new Gauge({
      name: `${METRIC_PREFIX}db_replica_replay_lag_seconds`,
      help: 'Seconds since the primary first held WAL that each read replica has not replayed (0 when caught up); absent while unknown.',
      labelNames: ['replica'] as const,
      registers: [registry],
      collect() {
        this.reset();
        eachReplica((r) => r.lagSeconds !== null && this.set({ replica: replicaLabel(r.index) }, r.lagSeconds));
      },
    }),
    dbReplicaInUse: new Gauge({
      name: `${METRIC_PREFIX}db_replica_in_use`,
      help: 'Whether each read replica serves requests (1): it answers, is a standby of the primary, and is within DATABASE_READ_MAX_LAG_MS.',
      labelNames: ['replica'] as const,
      registers: [registry],
      collect() {
        eachReplica((r) => this.set({ replica: replicaLabel(r.index) }, r.condition === 'in_use' ? 1 : 0));
      },
    }),
    dbReadQueries: new Counter({
      name: `${METRIC_PREFIX}db_read_queries_total`,
      help: 'Queries of API requests by the server they ran on, with read replicas configured: primary, or replica-<position in DATABASE_READ_URLS>.',
      labelNames: ['server'] as const,
      registers: [registry],
    }),
    dbReadFallbacks: new Counter({
      name: `${METRIC_PREFIX}db_read_fallbacks_total`,
      help: 'Reads a replica served or could not serve that were read again on the primary, by reason: replica_unavailable, replica_busy, recovery_conflict, read_only, not_found, short_page, answer_refused.',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    ingestedUpdates: new Counter({
      name: `${METRIC_PREFIX}ingested_updates_total`,
      help: 'Updates written by the worker, by kind: transaction, reassignment, or import (the ACS carried over a hard migration).',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    ingestedEvents: new Counter({
      name: `${METRIC_PREFIX}ingested_events_total`,
      help: 'Events written: created and exercised events of transactions, one per reassignment.',
      registers: [registry],
    }),
    ingestedVerdicts: new Counter({
      name: `${METRIC_PREFIX}ingested_verdicts_total`,
      help: 'Mediator verdicts written.',
      registers: [registry],
    }),
    ingestBatchDuration: new Histogram({
      name: `${METRIC_PREFIX}ingest_batch_duration_seconds`,
      help: 'Time to commit one batch (its transaction with the checkpoint), retries excluded.',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    ingestBatchItems: new Histogram({
      name: `${METRIC_PREFIX}ingest_batch_items`,
      help: 'Items (updates and verdicts) per committed batch.',
      buckets: [1, 10, 50, 100, 500, 1000, 2000, 5000, 10000],
      registers: [registry],
    }),
    ingestLag: new Gauge({
      name: `${METRIC_PREFIX}ingest_lag_seconds`,
      help: 'Seconds between now and the newest ingested record time, per synchronizer and migration (computed at scrape time).',
      labelNames: ['synchronizer_id', 'migration_id'] as const,
      registers: [registry],
      collect() {
        const now = Date.now();
        for (const { synchronizer_id, migration_id, ms } of newestRecordTimes.values()) {
          this.set({ synchronizer_id, migration_id }, Math.max(0, (now - ms) / 1000));
        }
      },
    }),
    ingestRejectedItems: new Counter({
      name: `${METRIC_PREFIX}ingest_rejected_items_total`,
      help: 'Items refused as bad input (the worker stops on them, with nothing of their batch applied).',
      registers: [registry],
    }),
    activitiesSkipped: new Counter({
      name: `${METRIC_PREFIX}activities_skipped_total`,
      help: 'Activities the writer or the backfill could not derive (a recognised exercise lacking what its activity needs), by choice; their updates are stored all the same.',
      labelNames: ['choice'] as const,
      registers: [registry],
    }),
    writerActive: new Gauge({
      name: `${METRIC_PREFIX}writer_active`,
      help: 'Whether this process holds the writer lock: 1 active writer, 0 standby or not running.',
      registers: [registry],
    }),
    writerLockAcquisitions: new Counter({
      name: `${METRIC_PREFIX}writer_lock_acquisitions_total`,
      help: 'Times this process took the writer lock.',
      registers: [registry],
    }),
    writerLockLosses: new Counter({
      name: `${METRIC_PREFIX}writer_lock_losses_total`,
      help: 'Times the connection holding the writer lock failed, stopping the writer.',
      registers: [registry],
    }),
    snapshotLastRecordTime: new Gauge({
      name: `${METRIC_PREFIX}acs_snapshot_last_record_time_seconds`,
      help: 'Record time of the newest announced ACS snapshot per migration, in seconds since the epoch.',
      labelNames: ['migration_id'] as const,
      registers: [registry],
    }),
    snapshotsAnnounced: new Counter({
      name: `${METRIC_PREFIX}acs_snapshots_announced_total`,
      help: 'ACS snapshots announced by this process.',
      registers: [registry],
    }),
    snapshotJobDuration: new Histogram({
      name: `${METRIC_PREFIX}acs_snapshot_job_duration_seconds`,
      help: 'Duration of a snapshot catch-up run (announcing every snapshot that ingestion has passed).',
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    holdingTotalsDuration: new Histogram({
      name: `${METRIC_PREFIX}holding_totals_duration_seconds`,
      help: "Duration of deriving one ACS snapshot's per-owner holdings totals, after its announcement.",
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    roundAggregatesMissingRound: new Gauge({
      name: `${METRIC_PREFIX}round_aggregates_missing_round`,
      help: 'The round the round aggregates wait for while a later round is closed (a gap in the history: no ClosedMiningRound for it); 0 when there is no gap.',
      registers: [registry],
    }),
    dbPoolConnections: new Gauge({
      name: `${METRIC_PREFIX}db_pool_connections`,
      help: 'Database pool connections by state: total, idle, and waiting (requests queued for a connection).',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        const sum = (f: (p: PoolCounts) => number) => pools.reduce((n, p) => n + f(p), 0);
        this.set(
          { state: 'total' },
          sum((p) => p.totalCount),
        );
        this.set(
          { state: 'idle' },
          sum((p) => p.idleCount),
        );
        this.set(
          { state: 'waiting' },
          sum((p) => p.waitingCount),
        );
      },
    }),
    sourceRequests,
    pageTokenRejections: new Counter({
      name: `${METRIC_PREFIX}api_page_token_rejections_total`,
      help: 'Requests refused for a page token that was altered, of another request, or of an incompatible version.',
      registers: [registry],
    }),
    authRefusals: new Counter({
      name: `${METRIC_PREFIX}api_auth_refusals_total`,
      help: 'Requests refused by authentication, by reason: no_verifier, no_token, malformed_header, invalid_token, unknown_user.',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    requestsLimited: new Counter({
      name: `${METRIC_PREFIX}api_requests_limited_total`,
      help: 'Requests refused to share the service fairly, by route group (scan, scan-proxy, registry, indexer, streaming, ledger) and reason: rate (429, the client is over its rate limit) or concurrency (503, too many expensive requests at once in this process).',
      labelNames: ['group', 'reason'] as const,
      registers: [registry],
    }),
    heavyRequestsInFlight: new Gauge({
      name: `${METRIC_PREFIX}api_heavy_requests_in_flight`,
      help: 'Expensive requests (large pages, many parties) this process is serving now, bounded by HEAVY_REQUEST_CONCURRENCY.',
      registers: [registry],
    }),
    answerCacheRequests: new Counter({
      name: `${METRIC_PREFIX}api_answer_cache_requests_total`,
      help: 'Requests for an answer the API keeps (rules, rounds, DSO, transfer factory), by answer and outcome: hit (served as kept, after a reading of the versions showed its contracts unchanged) or miss (made anew).',
      labelNames: ['answer', 'outcome'] as const,
      registers: [registry],
    }),
    answerVersionReads: new Counter({
      name: `${METRIC_PREFIX}api_answer_version_reads_total`,
      help: 'Readings of the answer versions; one reading serves every request waiting at its start.',
      registers: [registry],
    }),
    hotPathRequests: new Counter({
      name: `${METRIC_PREFIX}api_hot_path_requests_total`,
      help: 'Requests for a hot answer taken by the short way past the routers (src/api/hot-path.ts), whatever their answer.',
      registers: [registry],
    }),
    streamSubscribers: new Gauge({
      name: `${METRIC_PREFIX}stream_subscribers`,
      help: 'Subscribers of the live streams (/api/indexer/v0/stream/...) connected to this process, by stream.',
      labelNames: ['stream'] as const,
      registers: [registry],
    }),
    streamItemsSent: new Counter({
      name: `${METRIC_PREFIX}stream_items_sent_total`,
      help: 'Items written to live-stream subscribers, by stream (heartbeats and final events not counted).',
      labelNames: ['stream'] as const,
      registers: [registry],
    }),
    streamDrops: new Counter({
      name: `${METRIC_PREFIX}stream_drops_total`,
      help: 'Live streams this process ended, by stream and reason: slow_consumer (its buffer stayed over STREAM_MAX_BUFFER_KB for STREAM_SLOW_CONSUMER_MS), history_gone (a cursor before the retained history), encoding_unavailable, shutdown, failed (a database error).',
      labelNames: ['stream', 'reason'] as const,
      registers: [registry],
    }),
    streamRefusals: new Counter({
      name: `${METRIC_PREFIX}stream_refusals_total`,
      help: 'Live streams refused with 503, by stream and reason: subscriber_limit (STREAM_MAX_SUBSCRIBERS) or shutdown.',
      labelNames: ['stream', 'reason'] as const,
      registers: [registry],
    }),
    streamDeliveryLatency: new Histogram({
      name: `${METRIC_PREFIX}stream_delivery_latency_seconds`,
      help: "Time from a batch's commit (its notice) to the writing of its items to a subscriber that was waiting at the tail, by stream.",
      labelNames: ['stream'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    streamListenerConnected: new Gauge({
      name: `${METRIC_PREFIX}stream_listener_connected`,
      help: 'Whether the connection listening for commits is up (1); while it is down (0), live streams poll the database every STREAM_POLL_MS.',
      registers: [registry],
    }),
    registry,
    /** Adds another registry's series to this one's scrapes (summed where both have a series). */
    addScrapeSource(source: ScrapeSource): void {
      scrapeSources.push(source);
    },
    /** The text exposition of /metrics: this registry, plus the series of each scrape source. */
    async scrape(): Promise<string> {
      if (scrapeSources.length === 0) return registry.metrics();
      const parts = await Promise.all([registry.getMetricsAsJSON(), ...scrapeSources.map((source) => source())]);
      return AggregatorRegistry.aggregate(parts).metrics();
    },
    httpRequestDuration: new Histogram({
      name: `${METRIC_PREFIX}http_request_duration_seconds`,
      help: 'HTTP request duration by method, route template and status code.',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    httpRequestsTotal: new Counter({
      name: `${METRIC_PREFIX}http_requests_total`,
      help: 'HTTP requests by method, route template and status code.',
      labelNames: ['method', 'route', 'status_code'] as const,
      registers: [registry],
    }),
    lastIngestedRecordTime: new Gauge({
      name: `${METRIC_PREFIX}store_last_ingested_record_time_ms`,
      help: 'Record time of the newest ingested update per synchronizer, in milliseconds since the epoch (as splice_store_last_ingested_record_time_ms).',
      labelNames: ['synchronizer_id', 'migration_id'] as const,
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** An upstream of the attested source, as /status shows it. */
export interface UpstreamAttestation {
  agreed: number;
  disagreed: number;
  unavailable: number;
  lastOutcome: 'agreed' | 'disagreed' | 'unavailable' | null;
  lastDisagreement: { position: string; hash: string | null; expected: string | null; at: number } | null;
}
