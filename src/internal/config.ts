/**
 * The one configuration schema. Every knob has a description and a default;
 * it is parsed once at start-up and frozen, and this is the only module that
 * reads process.env. `.env.example` and the README table are generated from
 * `knobs` (see config-docs.ts), and a test keeps them in sync.
 */
import { isIP } from 'node:net';
import { z } from 'zod';

interface Knob {
  /** What the variable does, in one sentence for operators. */
  description: string;
  /** The default as it would be written in the environment ('' = unset). */
  default: string;
  /** What a valid value looks like, quoted in start-up errors. */
  expects: string;
  schema: z.ZodType;
  /** Kept out of logs and printed configuration. */
  secret?: boolean;
}

const optionalString = z.string().transform((s) => (s === '' ? undefined : s));
const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().min(1);
const nonNegativeInt = z.coerce.number().int().min(0);
/** A nice value that needs no privilege: 0 (unchanged) up to 19 (yields the most). */
const nice = z.coerce.number().int().min(0).max(19);
const bool = z.enum(['true', 'false']).transform((s) => s === 'true');
const csv = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== ''),
);

/**
 * HOLDING_TOTALS_REFRESH_OWNERS's default, for the callers that take snapshots without a configuration
 * (the `snapshot` command's tests, the benchmarks). A refresh reads an owner's row and the holdings
 * clamped since its round, a few index probes, so 1,000 add well under a second to a snapshot's totals, and at
 * 8 snapshots a day 8,000 owners catch up daily.
 */
export const HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT = 1000;

/** A proxy-addr trust entry: an IP address, a CIDR, or one of its named ranges. */
function isProxyAddress(entry: string): boolean {
  if (entry === 'loopback' || entry === 'linklocal' || entry === 'uniquelocal') return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** A token bucket: tokens added per second and the most it holds. */
export interface RateLimit {
  readonly perSecond: number;
  readonly burst: number;
}

/** `<per second>,<burst>`, or off (undefined: no limit). */
const rateLimit = z.string().transform((s, ctx): RateLimit | undefined => {
  if (s.trim() === 'off') return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*,\s*(\d+)\s*$/.exec(s);
  const perSecond = Number(match?.[1]);
  const burst = Number(match?.[2]);
  if (!match || !(perSecond > 0) || !Number.isSafeInteger(burst) || burst < 1) {
    ctx.addIssue({ code: 'custom', message: 'not <per second>,<burst>' });
    return z.NEVER;
  }
  return Object.freeze({ perSecond, burst });
});

/** A configured API key's own limit; the name stands for the key in logs, metrics and bucket keys. */
export interface ApiKeyLimit extends RateLimit {
  readonly name: string;
}

/** The longest API key (RATE_LIMIT_API_KEYS); the limiter looks no further into a longer bearer token. */
export const MAX_API_KEY_LENGTH = 256;

const apiKeys = z
  .string()
  .transform((s, ctx) => {
    try {
      return JSON.parse(s === '' ? '{}' : s) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not JSON' });
      return z.NEVER;
    }
  })
  .pipe(
    z.record(
      z.string().regex(new RegExp(`^[\\x21-\\x7e]{16,${MAX_API_KEY_LENGTH}}$`)),
      z.strictObject({
        name: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/),
        per_second: z.number().positive(),
        burst: z.number().int().min(1),
      }),
    ),
  )
  .transform((record, ctx): ReadonlyMap<string, ApiKeyLimit> => {
    const keys = new Map<string, ApiKeyLimit>();
    const names = new Set<string>();
    for (const [key, { name, per_second, burst }] of Object.entries(record)) {
      if (names.has(name)) {
        ctx.addIssue({ code: 'custom', message: `two keys are named ${name}` });
        return z.NEVER;
      }
      names.add(name);
      keys.set(key, Object.freeze({ name, perSecond: per_second, burst }));
    }
    return keys;
  });

export const knobs = {
  DATABASE_URL: {
    description: 'PostgreSQL connection URL. When unset, an embedded PostgreSQL is started with its data in EMBEDDED_PG_DATA_DIR.',
    default: '',
    expects: 'a postgres:// or postgresql:// URL, or unset',
    schema: optionalString.pipe(
      z
        .string()
        .regex(/^postgres(ql)?:\/\//)
        .optional(),
    ),
    secret: true,
  },
  DATABASE_POOL_SIZE: {
    description:
      'Maximum number of connections in one PostgreSQL pool: one pool per process, two in `start` (the API, and the worker thread; the worker holds one connection for its lock).',
    default: '10',
    expects: 'an integer of at least 2',
    schema: z.coerce.number().int().min(2),
  },
  DATABASE_STATEMENT_TIMEOUT_MS: {
    description: 'Statement timeout in milliseconds for API queries (ingestion batches and migrations are exempt; 0 disables it).',
    default: '30000',
    expects: 'an integer of at least 0',
    schema: nonNegativeInt,
  },
  DATABASE_READ_URLS: {
    description:
      'Comma-separated URLs of PostgreSQL streaming replicas (hot standbys) of DATABASE_URL that the API of serve and start reads from; writes, and reads a replica has not yet replayed, go to DATABASE_URL. Unset: every read goes to DATABASE_URL.',
    default: '',
    expects: 'a comma-separated list of postgres:// or postgresql:// URLs',
    schema: csv.pipe(z.array(z.string().regex(/^postgres(ql)?:\/\//))),
    secret: true,
  },
  DATABASE_READ_MAX_LAG_MS: {
    description:
      'A replica whose replay is further behind the primary than this (in milliseconds) serves no request until it catches up; requests that name a position (a page token, a cursor, a snapshot) also need a replica that has replayed it.',
    default: '5000',
    expects: 'an integer of at least 1',
    schema: positiveInt,
  },
  DATABASE_READ_POLL_MS: {
    description:
      'How often each API process checks every replica of DATABASE_READ_URLS: whether it answers, how far its replay is behind, and which data it holds.',
    default: '250',
    expects: 'an integer of at least 10',
    schema: z.coerce.number().int().min(10),
  },
  DATABASE_WAIT_MS: {
    description:
      'How long an API request waits for a database connection while every connection of the pool is in use. Past it the request is answered 503 with Retry-After rather than queued for as long as the load lasts (0: no limit). Ingestion always waits.',
    default: '10000',
    expects: 'an integer of at least 0',
    schema: nonNegativeInt,
  },
  PAGE_TOKEN_SECRET: {
    description:
      'Key (at least 32 characters) that signs the page tokens of the Scan API; all API replicas must share it. When unset, a random key is created on first use in the api_secrets table, which needs a writable database.',
    default: '',
    expects: 'a string of at least 32 characters, or unset',
    schema: optionalString.pipe(z.string().min(32).optional()),
    secret: true,
  },
  EMBEDDED_PG_DATA_DIR: {
    description: 'Where the embedded PostgreSQL keeps its data when DATABASE_URL is unset.',
    default: '.data/postgres',
    expects: 'a directory path',
    schema: z.string().min(1),
  },
  EMBEDDED_PG_PORT: {
    description: 'Port of the embedded PostgreSQL on 127.0.0.1; 0 picks a free port at each start.',
    default: '0',
    expects: 'an integer from 0 to 65535',
    schema: port,
  },
  HOST: {
    description: 'Address the HTTP server listens on (0.0.0.0 in containers).',
    default: '127.0.0.1',
    expects: 'an IP address or host name',
    schema: z.string().min(1),
  },
  PORT: {
    description: 'Port the HTTP server listens on; 0 picks a free port.',
    default: '8080',
    expects: 'an integer from 0 to 65535',
    schema: port,
  },
  LOG_LEVEL: {
    description: 'Log level of the JSON logs on standard output.',
    default: 'info',
    expects: 'one of fatal, error, warn, info, debug, trace, silent',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
  },
  SHUTDOWN_TIMEOUT_MS: {
    description: 'How long a graceful shutdown waits for in-flight requests and batches before closing connections.',
    default: '10000',
    expects: 'an integer of at least 1',
    schema: positiveInt,
  },
  MIGRATION_ID: {
    description:
      'Migration id of the current synchronizer generation, served by /v0/migrations/last until ingested data names a later one.',
    default: '0',
    expects: 'an integer of at least 0',
    schema: nonNegativeInt,
  },
  WEB_UI_ENABLED: {
    description:
      'Serve the web UI at / (built by npm run build into dist/web; it reads only the public endpoints). false leaves / unanswered, for API-only deployments.',
    default: 'true',
    expects: 'true or false',
    schema: bool,
  },
  ANSWER_CACHE_ENABLED: {
    description:
      'Keep the answers every validator polls (amulet, ANS and external-party rules, mining rounds, /v0/dso, the DSO party id, the transfer factory, on Scan, the scan-proxy and the registry) in memory, and serve them again after one shared reading of their versions shows their contracts unchanged. false makes every answer anew.',
    default: 'true',
    expects: 'true or false',
    schema: bool,
  },
  ANSWER_CACHE_MAX_MB: {
    description:
      'Most megabytes of kept answers per API process; the least recently used go first (transfer-factory answers are kept per receiver).',
    default: '64',
    expects: 'an integer of at least 1',
    schema: positiveInt,
  },
  API_CLOCK: {
    description:
      'What "now" is for answers that depend on it (expiry of ANS entries): wall = the server clock, as the Scan app does; ledger = the newest ingested record time, for serving a replay of past data.',
    default: 'wall',
    expects: 'wall or ledger',
    schema: z.enum(['wall', 'ledger']),
  },
  ANS_NAME_ACRONYM: {
    description:
      "Acronym of the name service (the Scan app's spliceInstanceNames.nameServiceNameAcronym), lowercased in the names of the ANS entries the DSO provides: dso.cns and, per SV, e.g. digital-asset-1.sv.cns for CNS.",
    default: 'CNS',
    expects: 'a non-empty name such as CNS',
    schema: z.string().regex(/^[A-Za-z0-9_-]+$/),
  },
  SPLICE_NETWORK_NAME: {
    description: 'What this Splice network is called, served by /v0/splice-instance-names (network_name).',
    default: 'Canton Network',
    expects: 'a non-empty name',
    schema: z.string().min(1),
  },
  SPLICE_NETWORK_FAVICON_URL: {
    description: "URL of the network's favicon, served by /v0/splice-instance-names (network_favicon_url).",
    default: 'https://www.canton.network/hubfs/cn-favicon-05%201-1.png',
    expects: 'a URL',
    schema: z.string().min(1),
  },
  SPLICE_AMULET_NAME: {
    description: 'What this network calls Amulet, served by /v0/splice-instance-names (amulet_name).',
    default: 'Canton Coin',
    expects: 'a non-empty name',
    schema: z.string().min(1),
  },
  SPLICE_AMULET_NAME_ACRONYM: {
    description: 'The acronym of the amulet name, served by /v0/splice-instance-names (amulet_name_acronym).',
    default: 'CC',
    expects: 'a non-empty acronym',
    schema: z.string().min(1),
  },
  SPLICE_NAME_SERVICE_NAME: {
    description:
      'What this network calls the Amulet Name Service, served by /v0/splice-instance-names (name_service_name; its acronym is ANS_NAME_ACRONYM).',
    default: 'Canton Name Service',
    expects: 'a non-empty name',
    schema: z.string().min(1),
  },
  SCAN_SV_USER: {
    description: "The SV user this Scan serves as, reported by /v0/dso (sv_user; the Scan app's svUser).",
    default: 'scan-indexer',
    expects: 'a non-empty user name',
    schema: z.string().min(1),
  },
  SCAN_SV_PARTY_ID: {
    description:
      "The SV party this Scan serves as, reported by /v0/dso (sv_party_id). Unset: the first SV of the live DsoRules (the Scan app reports its own SV user's party).",
    default: '',
    expects: 'a party id <name>::<fingerprint>, or unset',
    schema: optionalString.pipe(
      z
        .string()
        .regex(/^.+::.+$/)
        .optional(),
    ),
  },
  SCAN_INITIAL_ROUND: {
    description:
      "The round the network bootstrapped from, reported by /v0/dso (initial_round; the Scan app reads it from its SV user's metadata).",
    default: '0',
    expects: 'a non-negative integer',
    schema: z.string().regex(/^\d+$/),
  },
  REGISTRY_SETTLEMENT_MAX_LEGS: {
    description:
      "The most transfer legs a V2 allocation (allocation-instruction/v2/allocation-factory) or settlement (allocation/v2/settlement-factory) may have for the registry to serve its factory; more answer 400 (the Scan app's tokenStandardSettlement.maxLegs).",
    default: '100',
    expects: 'an integer of at least 1',
    schema: positiveInt,
  },
  REGISTRY_SETTLEMENT_MAX_PARTIES: {
    description:
      "The most distinct account owners a V2 allocation's other sides or a settlement's senders and receivers may name for the registry to serve its factory; more answer 400 (the Scan app's tokenStandardSettlement.maxParties).",
    default: '100',
    expects: 'an integer of at least 1',
    schema: positiveInt,
  },
  LSU_TOPOLOGY_FREEZE_TIME: {
    description:
      'Next logical synchronizer upgrade served by /v0/lsu (the Scan app asks its participant for the announcement): when the topology freeze starts. Set all three LSU_* variables or none; none: {"lsu": null}.',
    default: '',
    expects: 'an ISO 8601 date-time such as 2026-03-01T10:00:00Z, or unset',
    schema: optionalString.pipe(z.iso.datetime({ offset: true }).optional()),
  },
  LSU_UPGRADE_TIME: {
    description: 'Next logical synchronizer upgrade (/v0/lsu): the upgrade time.',
    default: '',
    expects: 'an ISO 8601 date-time such as 2026-03-01T12:00:00Z, or unset',
    schema: optionalString.pipe(z.iso.datetime({ offset: true }).optional()),
  },
  LSU_SUCCESSOR_SYNCHRONIZER_ID: {
    description: 'Next logical synchronizer upgrade (/v0/lsu): the successor physical synchronizer id.',
    default: '',
    expects: 'a physical synchronizer id, or unset',
    schema: optionalString,
  },
  ROLL_FORWARD_LSU_UPGRADE_TIME: {
    description:
      "Roll-forward LSU served by /v0/roll-forward-lsu (the Scan app's rollForwardLsu configuration): the upgrade time. Set all three ROLL_FORWARD_LSU_* variables or none.",
    default: '',
    expects: 'an ISO 8601 date-time such as 2026-03-01T12:00:00Z, or unset',
    schema: optionalString.pipe(z.iso.datetime({ offset: true }).optional()),
  },
  ROLL_FORWARD_LSU_CURRENT_SYNCHRONIZER_ID: {
    description: 'Roll-forward LSU: the physical synchronizer id the network rolls forward from (the legacy one).',
    default: '',
    expects: 'a physical synchronizer id, or unset',
    schema: optionalString,
  },
  ROLL_FORWARD_LSU_SUCCESSOR_SYNCHRONIZER_ID: {
    description: 'Roll-forward LSU: the physical synchronizer id the network rolls forward to (the current one).',
    default: '',
    expects: 'a physical synchronizer id, or unset',
    schema: optionalString,
  },
  SOURCE: {
    description:
      'Where the ingestion worker reads from: the built-in simulated network, upstream Scan instances (scan: their /v0/events; bulk: their bulk storage objects, then /v0/events), or a Canton participant.',
    default: 'simulator',
    expects: 'one of simulator, scan, bulk, ledger',
    schema: z.enum(['simulator', 'scan', 'bulk', 'ledger']),
  },
  SIMULATOR_SEED: {
    description: 'Seed of the simulated network; the same seed gives the same network.',
    default: '1',
    expects: 'an integer of at least 0',
    schema: nonNegativeInt,
  },
  SIMULATOR_MODE: {
    description:
      'live releases simulated updates as the wall clock reaches their record time; backfill produces them as fast as they are written.',
    default: 'live',
    expects: 'live or backfill',
    schema: z.enum(['live', 'backfill']),
  },
  SIMULATOR_RATE: {
    description:
      'Mean simulated updates per second of ledger time. In backfill mode a low rate spreads few updates over many hours (ACS snapshots are taken every 3 hours of ledger time).',
    default: '2',
    expects: 'a positive number',
    schema: z.coerce.number().positive(),
  },
  SIMULATOR_UPDATES: {
    description: 'Number of simulated updates to produce (unset: endless).',
    default: '',
    expects: 'an integer of at least 1, or unset',
    schema: optionalString.pipe(z.union([z.undefined(), z.string().regex(/^\d+$/).transform(Number).pipe(z.number().int().min(1))])),
  },
  SIMULATOR_MIGRATIONS: {
    description: 'Number of migrations the simulated updates are spread over, with a hard migration between each.',
    default: '1',
    expects: 'an integer of at least 1',
    schema: positiveInt,
  },
  SCAN_SOURCE_URLS: {
    description:
      'Comma-separated base URLs of upstream Scan instances of one network (SOURCE=scan or bulk): tried in turn, or read side by side with attestation (SCAN_SOURCE_THRESHOLD). SOURCE=bulk reads the bulk objects of the first only at threshold 1; above it, it takes an object only when at least the threshold of them list it with the same checksum.',
    default: '',
    expects: 'a comma-separated list of http(s) URLs',
    schema: csv.pipe(z.array(z.url({ protocol: /^https?$/ }))),
  },
  SCAN_SOURCE_THRESHOLD: {
    description:
      'How many of the SCAN_SOURCE_URLS must serve an identical element (SOURCE=bulk: list a bulk object with the same checksum) before it is stored. Empty: f+1, where f = floor((N-1)/3) of N URLs. 1: no attestation, the URLs are tried in turn (failover; SOURCE=bulk reads the objects of the first).',
    default: '',
    expects: 'empty, or an integer from 1 to the number of SCAN_SOURCE_URLS',
    schema: z.union([z.literal('').transform(() => undefined), positiveInt]),
  },
  SCAN_SOURCE_POLL_MS: {
    description:
      'How long the scan source waits after reaching the upstream end before asking again; the bulk source waits as long while the upstream has no checksums for its objects yet.',
    default: '5000',
    expects: 'an integer of at least 1',
    schema: positiveInt,
  },
  SCAN_SOURCE_BLOB_INTERVAL_MS: {
    description:
      "How often a mirror (SOURCE=scan or bulk) copies created-event blobs from the upstream's contract endpoints (the update streams carry none).",
    default: '30000',
    expects: 'an integer of at least 1',
    schema: positiveInt,
  },
  SCAN_SOURCE_ANSWER_TIMEOUT_MS: {
    description:
      'How long a mirror (SOURCE=scan or bulk) waits for its upstreams when it forwards an operation the indexer cannot answer itself (traffic status, participant ids, BFT sequencers, the active synchronizer serial).',
    default: '10000',
    expects: 'an integer of at least 1',
    schema: positiveInt,
  },
  SCAN_SOURCE_ACS_CHECK: {
    description:
      "A mirror (SOURCE=scan or bulk) that writes bulk storage: true: each ACS snapshot it writes is held against the upstreams' objects of the same snapshot (keys and digests), and a difference logged as an error; false: not checked (for upstreams that are Splice Scans, whose objects always differ in bytes from this indexer's).",
    default: 'true',
    expects: 'true or false',
    schema: bool,
  },
  BULK_SOURCE_PAGE_SIZE: {
    description:
      'SOURCE=bulk: object refs asked for per page of POST /v0/history/bulk/updates (whole segments only, so at least the objects of the largest segment).',
    default: '1000',
    expects: 'an integer from 1 to 1000',
    schema: positiveInt.max(1000),
  },
  BULK_SOURCE_DOWNLOAD_TIMEOUT_MS: {
    description: 'SOURCE=bulk: how long the download of one bulk object (up to 128 MiB in Splice) may take before it is tried again.',
    default: '600000',
    expects: 'an integer of at least 1',
    schema: positiveInt,
  },
  BULK_SOURCE_FILL_FROM_EVENTS: {
    description:
      "SOURCE=bulk: true: the bulk range's /v0/events is read beside the objects, each update checked against its line and taken from there with what lines lack (verdicts and rejections, traffic summaries, app activity records, protobuf_json, Daml field order), so the mirror ends as a SOURCE=scan one; false: the lines alone, without those, and /v0/events only after them.",
    default: 'true',
    expects: 'true or false',
    schema: bool,
  },
  LEDGER_SOURCE_URL: {
    description: 'Base URL of the Canton JSON Ledger API (without /v2) read when SOURCE=ledger.',
    default: '',
    expects: 'an http(s) URL, or unset',
    schema: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
  },
  LEDGER_SOURCE_PARTY: {
    description: 'Party whose updates the ledger source reads (the DSO party for a Scan backend).',
    default: '',
    expects: 'a party id, or unset',
    schema: optionalString,
  },
  LEDGER_SOURCE_TOKEN: {
    description: 'Bearer token the ledger source sends (unset: no Authorization header).',
    default: '',
    expects: 'a JWT, or unset',
    schema: optionalString,
    secret: true,
  },
  INGEST_STOP_AT_END: {
    description: 'Stop the scan, bulk or ledger source at the upstream end instead of polling for more (one-off backfills).',
    default: 'false',
    expects: 'true or false',
    schema: bool,
  },
  INGEST_BATCH_SIZE: {
    description:
      'Most items the worker writes in one transaction. Large batches pay: contracts created and archived within one batch are written once, already archived.',
    default: '5000',
    expects: 'an integer of at least 1',
    schema: positiveInt,
  },
  INGEST_BATCH_MAX_WAIT_MS: {
    description: 'Longest time the first item of a batch waits, while no batch is being written, before the worker writes what it has.',
    default: '500',
    expects: 'an integer of at least 1',
    schema: positiveInt,
  },
  HISTORY_RETENTION: {
    description:
      "How much history to keep before the newest record time, such as 90d or 26w; the worker detaches and drops each month's partitions once the month ends before that window, and requests for the dropped range are answered 410 with where the history starts. Empty: keep everything (an SV's Scan never prunes).",
    default: '',
    expects: 'empty, or a number of days or weeks such as 90d or 26w',
    schema: z
      .string()
      .regex(/^(\d+[dw])?$/)
      .transform((s) => (s === '' ? undefined : Number(s.slice(0, -1)) * (s.endsWith('w') ? 7 : 1)))
      .pipe(z.number().int().min(1).optional()),
  },
  HOLDING_TOTALS_REFRESH_OWNERS: {
    description:
      "Most owners whose per-owner holdings totals each ACS snapshot rewrites although their holdings did not change, those whose totals' round lags the snapshot's the most first, so that a holdings summary with fees as of a round reads few of their holdings one by one however long ago they last changed; every lagging owner catches up within (lagging owners / this) snapshots. 0: none (such an owner's summary reads more holdings as time passes).",
    default: String(HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT),
    expects: 'an integer of at least 0',
    schema: nonNegativeInt,
  },
  BULK_STORAGE_DIR: {
    description:
      "Directory where the worker writes completed update-history segments as Splice's bulk storage objects (zstd-compressed NDJSON, docs/bulk-history.md), and from which the API serves the five /v0/history/bulk operations. Empty: bulk storage is off, and those operations answer 501 as the Scan app does.",
    default: '',
    expects: 'empty, or a directory path',
    schema: optionalString,
  },
  BULK_STORAGE_S3_BUCKET: {
    description:
      "An S3 or S3-compatible bucket to keep the bulk storage objects in instead of BULK_STORAGE_DIR (at most one of the two). Empty: not S3. Credentials: BULK_STORAGE_S3_ACCESS_KEY_ID and BULK_STORAGE_S3_SECRET_ACCESS_KEY, or when both are empty the AWS SDK's own chain (its environment variables, shared files, instance or pod role).",
    default: '',
    expects: 'empty, or a bucket name',
    schema: optionalString,
  },
  BULK_STORAGE_S3_PREFIX: {
    description: "Prepended to every object key in the bucket, e.g. mainnet/ (keys are Splice's: <start>~<end>/updates_<n>.zstd).",
    default: '',
    expects: 'empty, or a key prefix',
    schema: z.string(),
  },
  BULK_STORAGE_S3_ENDPOINT: {
    description: "The URL of an S3-compatible server (MinIO, Ceph, a cloud's S3 API). Empty: AWS S3 in BULK_STORAGE_S3_REGION.",
    default: '',
    expects: 'empty, or an http(s) URL',
    schema: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
  },
  BULK_STORAGE_S3_REGION: {
    description: "The bucket's region.",
    default: 'us-east-1',
    expects: 'a region name',
    schema: z.string().min(1),
  },
  BULK_STORAGE_S3_FORCE_PATH_STYLE: {
    description:
      'true: path-style requests (http://host/bucket/key), which most S3-compatible servers need; false: virtual-hosted style, as AWS S3 prefers.',
    default: 'false',
    expects: 'true or false',
    schema: bool,
  },
  BULK_STORAGE_S3_ACCESS_KEY_ID: {
    description:
      "The access key id for the bucket; set with BULK_STORAGE_S3_SECRET_ACCESS_KEY, or leave both empty for the AWS SDK's own credential chain.",
    default: '',
    expects: 'empty, or an access key id',
    schema: optionalString,
  },
  BULK_STORAGE_S3_SECRET_ACCESS_KEY: {
    description: 'The secret access key that goes with BULK_STORAGE_S3_ACCESS_KEY_ID.',
    default: '',
    expects: 'empty, or a secret access key',
    secret: true,
    schema: optionalString,
  },
  INGEST_LOCK_POLL_MS: {
    description: 'How often a standby worker tries to take over the writer lock.',
    default: '2000',
    expects: 'an integer of at least 1',
    schema: positiveInt,
  },
  API_NICE: {
    description:
      'Nice value (0 to 19) of the API in `start`, on Linux: its main thread, while the worker thread keeps INGEST_NICE. When both want the CPU (a backfill under heavy reads), a higher value leaves more of it to ingestion and answers slower; while the worker idles (live ingestion) it only yields to other busy programs of the machine. `serve` and `ingest` processes are weighed by what runs them (nice, cpu_shares, CPU requests).',
    default: '5',
    expects: 'an integer from 0 to 19',
    schema: nice,
  },
  INGEST_NICE: {
    description:
      'Nice value (0 to 19) of the ingestion worker thread of `start`, on Linux. Above API_NICE, readers can starve ingestion; for machines where ingestion is a background job.',
    default: '0',
    expects: 'an integer from 0 to 19',
    schema: nice,
  },
  LEDGER_PARTICIPANT_ID: {
    description:
      'Participant id returned by GET /v2/parties/participant-id; without LEDGER_AUTH_AUDIENCE, ledger tokens bound to a participant must name this one.',
    default: 'scan-indexer::12200000000000000000000000000000000000000000000000000000000000000000',
    expects: 'a participant uid such as name::1220… (no PAR:: prefix, as Canton returns it)',
    schema: z.string().min(1),
  },
  LEDGER_AUTH_HS256_SECRET: {
    description: 'Shared secret for HS256 ledger tokens (for testing; unset disables HS256).',
    default: '',
    expects: 'a string, or unset',
    schema: optionalString,
    secret: true,
  },
  LEDGER_AUTH_AUDIENCE: {
    description:
      "Audience that ledger tokens must carry in aud (Canton's target-audience). Unset: as Canton without a target audience, a token must either have aud = https://daml.com/jwt/aud/participant/<LEDGER_PARTICIPANT_ID> or a scope containing daml_ledger_api (a single aud value is then the participant id); a token bound to another participant is refused with 403.",
    default: '',
    expects: 'a string, or unset',
    schema: optionalString,
  },
  LEDGER_AUTH_MAX_TOKEN_LIFETIME_SECONDS: {
    description:
      "Longest remaining lifetime a ledger or validator token may have: one whose exp is further away is refused (401), as Canton's max-token-lifetime does; so is one issued (iat) or valid from (nbf) in the future beyond a few seconds of clock skew.",
    default: '86400',
    expects: 'an integer of at least 1',
    schema: positiveInt,
  },
  LEDGER_AUTH_JWKS_URL: {
    description:
      'JWKS URL whose keys verify RS256/ES256/ES512 ledger tokens, chosen by the token kid (unset disables JWKS). With LEDGER_AUTH_PUBLIC_KEY_FILE too, a token with a kid is tried against the JWKS, then the PEM key; one without goes to the PEM key.',
    default: '',
    expects: 'an http(s) URL, or unset',
    schema: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
  },
  LEDGER_AUTH_PUBLIC_KEY_FILE: {
    description:
      'PEM file with a public key or X.509 certificate verifying RS256, ES256 (P-256) or ES512 (P-521) ledger tokens; the key type sets the algorithm (unset disables it).',
    default: '',
    expects: 'a file path, or unset',
    schema: optionalString,
  },
  LEDGER_USER_RIGHTS: {
    description:
      'Read-as rights of non-admin users: a JSON object mapping each token subject (user) to the parties it may read, e.g. {"wallet-1":["alice::1220…"]}. A user listed with [] may only call participant-id.',
    default: '{}',
    expects: 'a JSON object mapping user ids to arrays of party ids, such as {"user-1":["alice::1220…"]}',
    schema: z
      .string()
      .transform((s, ctx) => {
        try {
          return JSON.parse(s === '' ? '{}' : s) as unknown;
        } catch {
          ctx.addIssue({ code: 'custom', message: 'not JSON' });
          return z.NEVER;
        }
      })
      .pipe(z.record(z.string().min(1), z.array(z.string().min(1)))),
  },
  LEDGER_ADMIN_USERS: {
    description: 'Comma-separated token subjects (users) that may read as any party.',
    default: '',
    expects: 'a comma-separated list of user ids',
    schema: csv,
  },
  LEDGER_AUTH_DISABLED: {
    description: 'Serve the ledger routes without authentication when no verifier is configured (never in production).',
    default: 'false',
    expects: 'true or false',
    schema: bool,
  },
  TRUSTED_PROXIES: {
    description:
      "Comma-separated addresses or CIDRs (or loopback, linklocal, uniquelocal) of the reverse proxies in front of the API, whose X-Forwarded-For is believed: the client is the nearest address in it that is not a trusted proxy. Unset: the connection's address is the client's and X-Forwarded-For is ignored. Behind a load balancer or ingress, set it, or every client shares the proxy's rate limits.",
    default: '',
    expects: 'a comma-separated list of IP addresses, CIDRs such as 10.0.0.0/8, loopback, linklocal or uniquelocal',
    schema: csv.pipe(z.array(z.string().refine(isProxyAddress, { error: 'not an address or CIDR' }))),
  },
  RATE_LIMIT_ENABLED: {
    description:
      'Rate-limit clients per route group (the RATE_LIMIT_* knobs): a token bucket per client address, or per API key. false serves every client without limits (benchmarks, tests that load the server from one address).',
    default: 'true',
    expects: 'true or false',
    schema: bool,
  },
  RATE_LIMIT_SCAN: {
    description:
      'Requests per second and burst of one client on the Scan API (/api/scan), as <per second>,<burst> (the rate may have a fraction); off = no limit.',
    default: '20,100',
    expects: 'a rate and a burst such as 20,100 (a positive number, then an integer of at least 1), or off',
    schema: rateLimit,
  },
  RATE_LIMIT_SCAN_PROXY: {
    description: 'Requests per second and burst of one client on the validator scan-proxy (/api/validator), as for RATE_LIMIT_SCAN.',
    default: '20,100',
    expects: 'a rate and a burst such as 20,100, or off',
    schema: rateLimit,
  },
  RATE_LIMIT_REGISTRY: {
    description: 'Requests per second and burst of one client on the token-standard registry (/registry), as for RATE_LIMIT_SCAN.',
    default: '20,100',
    expects: 'a rate and a burst such as 20,100, or off',
    schema: rateLimit,
  },
  RATE_LIMIT_INDEXER: {
    description:
      "Requests per second and burst of one client on this indexer's own operations (/api/indexer, streams excepted), as for RATE_LIMIT_SCAN.",
    default: '10,50',
    expects: 'a rate and a burst such as 10,50, or off',
    schema: rateLimit,
  },
  RATE_LIMIT_STREAMING: {
    description: 'Streams one client may open per second, and in a burst (/api/indexer/v0/stream/...), as for RATE_LIMIT_SCAN.',
    default: '1,5',
    expects: 'a rate and a burst such as 1,5, or off',
    schema: rateLimit,
  },
  RATE_LIMIT_LEDGER: {
    description: 'Requests per second and burst of one client on the JSON Ledger API (/v2), as for RATE_LIMIT_SCAN.',
    default: '20,100',
    expects: 'a rate and a burst such as 20,100, or off',
    schema: rateLimit,
  },
  RATE_LIMIT_API_KEYS: {
    description:
      'API keys with their own rate, sent as X-API-Key: <key> (or Authorization: Bearer <key> where no token is expected): a JSON object mapping each key (16 to 256 visible ASCII characters) to {"name", "per_second", "burst"}, e.g. {"<key>":{"name":"partner-a","per_second":200,"burst":1000}}. A key has one bucket for all route groups, instead of its address\'s; an unknown key counts as no key.',
    default: '{}',
    expects: 'a JSON object mapping keys to {"name": "...", "per_second": <number>, "burst": <integer>} with distinct names',
    schema: apiKeys,
    secret: true,
  },
  RATE_LIMIT_STORE: {
    description:
      'Where the buckets live: memory = in each API process (no shared state, no database work; N replicas admit up to N times the rate), postgres = one bucket per client shared by all replicas (an UNLOGGED table on a writable database; each process reserves a tenth of a burst at a time, so one request in about burst/10 does a database round trip).',
    default: 'memory',
    expects: 'memory or postgres',
    schema: z.enum(['memory', 'postgres']),
  },
  HEAVY_REQUEST_CONCURRENCY: {
    description:
      'Expensive requests (HEAVY_REQUEST_PAGE_SIZE, HEAVY_REQUEST_PARTIES) one API process serves at once; one more is answered 503 with Retry-After at once, never queued. 0 = no bound.',
    default: '4',
    expects: 'an integer of at least 0',
    schema: nonNegativeInt,
  },
  HEAVY_REQUEST_PAGE_SIZE: {
    description:
      'A history, ACS or holdings page (page_size, limit or count) this large or larger counts as an expensive request for HEAVY_REQUEST_CONCURRENCY.',
    default: '500',
    expects: 'an integer of at least 1',
    schema: positiveInt,
  },
  HEAVY_REQUEST_PARTIES: {
    description:
      'A holdings summary, holdings page or ACS page for this many parties or more (owner_party_ids, party_ids) counts as an expensive request for HEAVY_REQUEST_CONCURRENCY.',
    default: '200',
    expects: 'an integer of at least 1',
    schema: positiveInt,
  },
  STREAM_MAX_SUBSCRIBERS: {
    description:
      'Live-stream subscribers (/api/indexer/v0/stream/...) one API process serves at once; one more is answered 503 with Retry-After.',
    default: '1000',
    expects: 'an integer of at least 1',
    schema: positiveInt,
  },
  STREAM_HEARTBEAT_SECONDS: {
    description: 'Seconds between the heartbeat events of a live stream, which carry the newest record time (liveness and lag).',
    default: '15',
    expects: 'an integer of at least 1',
    schema: positiveInt,
  },
  STREAM_PAGE_SIZE: {
    description:
      'Items a live-stream subscriber reads from the database at a time, while catching up and at each commit; with STREAM_MAX_BUFFER_KB, what bounds its memory.',
    default: '100',
    expects: 'an integer from 1 to 1000',
    schema: positiveInt.max(1000),
  },
  STREAM_MAX_BUFFER_KB: {
    description:
      'Kilobytes written to a live-stream subscriber and not yet taken by its connection above which the subscriber reads nothing more until they are.',
    default: '1024',
    expects: 'an integer of at least 1',
    schema: positiveInt,
  },
  STREAM_SLOW_CONSUMER_MS: {
    description:
      'How long a live-stream subscriber may stay over STREAM_MAX_BUFFER_KB before it is dropped, with a final error event saying where to resume.',
    default: '10000',
    expects: 'an integer of at least 1',
    schema: positiveInt,
  },
  STREAM_POLL_MS: {
    description: 'While the connection listening for commits is down, how often live streams look for new items in the database instead.',
    default: '1000',
    expects: 'an integer of at least 1',
    schema: positiveInt,
  },
} satisfies Record<string, Knob>;

/** The route groups limited apart, each with its own RATE_LIMIT_* knob. */
export type RouteGroup = 'scan' | 'scan-proxy' | 'registry' | 'indexer' | 'streaming' | 'ledger';

type KnobName = keyof typeof knobs;
type KnobValue<K extends KnobName> = z.output<(typeof knobs)[K]['schema']>;

export interface Config {
  readonly databaseUrl: string | undefined;
  readonly databasePoolSize: number;
  readonly databaseStatementTimeoutMs: number;
  /** Streaming replicas the API reads from (DATABASE_READ_URLS), and how they are watched. */
  readonly readReplicas: { readonly urls: readonly string[]; readonly maxLagMs: number; readonly pollMs: number };
  readonly databaseWaitMs: number;
  readonly pageTokenSecret: string | undefined;
  readonly embeddedPgDataDir: string;
  readonly embeddedPgPort: number;
  readonly host: string;
  readonly port: number;
  readonly logLevel: KnobValue<'LOG_LEVEL'>;
  readonly shutdownTimeoutMs: number;
  readonly migrationId: number;
  /** Serve the web UI at /. */
  readonly webUi: boolean;
  /** Live streams (src/api/indexer/stream-hub.ts). */
  readonly stream: {
    readonly maxSubscribers: number;
    readonly heartbeatMs: number;
    readonly pageSize: number;
    readonly maxBufferBytes: number;
    readonly slowConsumerMs: number;
    readonly pollMs: number;
  };
  /** Answers kept in memory until their contracts change (src/api/answer-cache.ts). */
  readonly answerCache: { readonly enabled: boolean; readonly maxBytes: number };
  /** Answers of the Scan and validator interfaces that come from configuration. */
  readonly scanApp: {
    readonly clock: KnobValue<'API_CLOCK'>;
    readonly ansAcronym: string;
    readonly instanceNames: {
      readonly networkName: string;
      readonly networkFaviconUrl: string;
      readonly amuletName: string;
      readonly amuletNameAcronym: string;
      readonly nameServiceName: string;
    };
    readonly svUser: string;
    readonly svPartyId: string | undefined;
    readonly initialRound: string;
    /** Limits on the V2 allocations and settlements the registry serves factories for. */
    readonly tokenStandardSettlement: { readonly maxLegs: number; readonly maxParties: number };
    readonly lsu:
      { readonly topologyFreezeTime: string; readonly upgradeTime: string; readonly successorSynchronizerId: string } | undefined;
    readonly rollForwardLsu:
      { readonly upgradeTime: string; readonly currentSynchronizerId: string; readonly successorSynchronizerId: string } | undefined;
  };
  readonly source: KnobValue<'SOURCE'>;
  readonly simulator: {
    readonly seed: number;
    readonly mode: KnobValue<'SIMULATOR_MODE'>;
    readonly ratePerSecond: number;
    readonly updates: number | undefined;
    readonly migrations: number;
  };
  readonly scanSource: {
    readonly urls: readonly string[];
    /** Undefined: f+1 of the URLs (scanSourceThreshold). */
    readonly threshold: number | undefined;
    readonly pollMs: number;
    readonly blobIntervalMs: number;
    readonly answerTimeoutMs: number;
    /** Hold each bulk ACS snapshot written against the upstreams' (src/ingest/upstream-acs-check.ts). */
    readonly acsCheck: boolean;
  };
  readonly bulkSource: { readonly pageSize: number; readonly downloadTimeoutMs: number; readonly fillFromEvents: boolean };
  readonly ledgerSource: { readonly url: string | undefined; readonly party: string | undefined; readonly token: string | undefined };
  readonly ingest: {
    readonly batchSize: number;
    readonly batchMaxWaitMs: number;
    readonly lockPollMs: number;
    readonly stopAtEnd: boolean;
    /** Days of history kept before the newest record time; undefined: all of it. */
    readonly retentionDays: number | undefined;
    /** HOLDING_TOTALS_REFRESH_OWNERS: owners whose holdings totals each snapshot refreshes. */
    readonly holdingTotalsRefreshOwners: number;
  };
  /** BULK_STORAGE_DIR or BULK_STORAGE_S3_*: where bulk storage objects are written and served from; both undefined: off. */
  readonly bulkStorage: BulkStorageConfig;
  /** Nice values of the two threads of `start` (src/internal/priority.ts); 0 leaves a thread's priority alone. */
  readonly nice: { readonly api: number; readonly ingest: number };
  /** Per-client rate limits and the bound on expensive requests (src/api/fair-access/). */
  readonly fairAccess: {
    /** RATE_LIMIT_ENABLED: false mounts no limiter at all. */
    readonly enabled: boolean;
    readonly trustedProxies: readonly string[];
    /** Per route group; undefined: that group is not limited. */
    readonly groups: Readonly<Record<RouteGroup, RateLimit | undefined>>;
    /** By key, as sent. */
    readonly apiKeys: ReadonlyMap<string, ApiKeyLimit>;
    readonly store: KnobValue<'RATE_LIMIT_STORE'>;
    readonly heavy: { readonly concurrency: number; readonly pageSize: number; readonly parties: number };
  };
  readonly ledger: {
    readonly participantId: string;
    readonly hs256Secret: string | undefined;
    readonly audience: string | undefined;
    readonly jwksUrl: string | undefined;
    readonly maxTokenLifetimeSeconds: number;
    readonly publicKeyFile: string | undefined;
    readonly userRights: Readonly<Record<string, readonly string[]>>;
    readonly adminUsers: readonly string[];
    readonly authDisabled: boolean;
  };
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

function parseKnob<K extends KnobName>(env: NodeJS.ProcessEnv, name: K): KnobValue<K> {
  const knob: Knob = knobs[name];
  const raw = env[name] ?? knob.default;
  const result = knob.schema.safeParse(raw);
  if (!result.success) {
    const shown = knob.secret ? '(hidden)' : JSON.stringify(raw);
    throw new ConfigError(`Invalid configuration: ${name}=${shown}: expected ${knob.expects}.`);
  }
  return result.data as KnobValue<K>;
}

type Getter = <K extends KnobName>(name: K) => KnobValue<K>;

/** Knobs that only make sense together (an LSU announcement): all set, or none (undefined). */
function allOrNone<K extends KnobName>(get: Getter, family: string, names: readonly K[]): Record<K, string> | undefined {
  const values = names.map((name) => [name, get(name)] as const);
  const missing = values.filter(([, v]) => v === undefined).map(([k]) => k);
  if (missing.length === names.length) return undefined;
  if (missing.length > 0)
    throw new ConfigError(`Invalid configuration: ${missing.join(' and ')} must be set too: set all three ${family} variables or none.`);
  return Object.fromEntries(values) as unknown as Record<K, string>;
}

/** How bulk storage is configured (config.ts, BULK_STORAGE_*): at most one of the two. */
export interface BulkStorageConfig {
  readonly dir: string | undefined;
  readonly s3: S3StoreConfig | undefined;
}

export interface S3StoreConfig {
  readonly bucket: string;
  /** Prepended to every key, e.g. "mainnet/" ('' for none). */
  readonly prefix: string;
  /** An S3-compatible server's URL; undefined: AWS S3 for the region. */
  readonly endpoint: string | undefined;
  readonly region: string;
  /** Path-style addressing (http://host/bucket/key), which most S3-compatible servers need. */
  readonly forcePathStyle: boolean;
  /** Both or neither; neither: the AWS SDK's own credential chain. */
  readonly accessKeyId: string | undefined;
  readonly secretAccessKey: string | undefined;
}

function bulkStorage(get: Getter): BulkStorageConfig {
  const dir = get('BULK_STORAGE_DIR');
  const bucket = get('BULK_STORAGE_S3_BUCKET');
  if (dir !== undefined && bucket !== undefined)
    throw new ConfigError('Invalid configuration: set BULK_STORAGE_DIR or BULK_STORAGE_S3_BUCKET, not both.');
  const accessKeyId = get('BULK_STORAGE_S3_ACCESS_KEY_ID');
  const secretAccessKey = get('BULK_STORAGE_S3_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined))
    throw new ConfigError(
      'Invalid configuration: set BULK_STORAGE_S3_ACCESS_KEY_ID and BULK_STORAGE_S3_SECRET_ACCESS_KEY together, or neither.',
    );
  // Every knob is read, so that a mistake in one is reported even while the bucket is unset.
  const rest = {
    prefix: get('BULK_STORAGE_S3_PREFIX'),
    endpoint: get('BULK_STORAGE_S3_ENDPOINT'),
    region: get('BULK_STORAGE_S3_REGION'),
    forcePathStyle: get('BULK_STORAGE_S3_FORCE_PATH_STYLE'),
  };
  const s3 = bucket === undefined ? undefined : Object.freeze({ bucket, ...rest, accessKeyId, secretAccessKey });
  return Object.freeze({ dir, s3 });
}

function lsu(get: Getter): Config['scanApp']['lsu'] {
  const v = allOrNone(get, 'LSU_*', ['LSU_TOPOLOGY_FREEZE_TIME', 'LSU_UPGRADE_TIME', 'LSU_SUCCESSOR_SYNCHRONIZER_ID'] as const);
  return (
    v &&
    Object.freeze({
      topologyFreezeTime: v.LSU_TOPOLOGY_FREEZE_TIME,
      upgradeTime: v.LSU_UPGRADE_TIME,
      successorSynchronizerId: v.LSU_SUCCESSOR_SYNCHRONIZER_ID,
    })
  );
}

function rollForwardLsu(get: Getter): Config['scanApp']['rollForwardLsu'] {
  const v = allOrNone(get, 'ROLL_FORWARD_LSU_*', [
    'ROLL_FORWARD_LSU_UPGRADE_TIME',
    'ROLL_FORWARD_LSU_CURRENT_SYNCHRONIZER_ID',
    'ROLL_FORWARD_LSU_SUCCESSOR_SYNCHRONIZER_ID',
  ] as const);
  return (
    v &&
    Object.freeze({
      upgradeTime: v.ROLL_FORWARD_LSU_UPGRADE_TIME,
      currentSynchronizerId: v.ROLL_FORWARD_LSU_CURRENT_SYNCHRONIZER_ID,
      successorSynchronizerId: v.ROLL_FORWARD_LSU_SUCCESSOR_SYNCHRONIZER_ID,
    })
  );
}

/** Parses the environment once; throws ConfigError with one line naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const get = <K extends KnobName>(name: K) => parseKnob(env, name);
  return Object.freeze({
    databaseUrl: get('DATABASE_URL'),
    databasePoolSize: get('DATABASE_POOL_SIZE'),
    databaseStatementTimeoutMs: get('DATABASE_STATEMENT_TIMEOUT_MS'),
    readReplicas: Object.freeze({
      urls: Object.freeze(get('DATABASE_READ_URLS')),
      maxLagMs: get('DATABASE_READ_MAX_LAG_MS'),
      pollMs: get('DATABASE_READ_POLL_MS'),
    }),
    databaseWaitMs: get('DATABASE_WAIT_MS'),
    pageTokenSecret: get('PAGE_TOKEN_SECRET'),
    embeddedPgDataDir: get('EMBEDDED_PG_DATA_DIR'),
    embeddedPgPort: get('EMBEDDED_PG_PORT'),
    host: get('HOST'),
    port: get('PORT'),
    logLevel: get('LOG_LEVEL'),
    shutdownTimeoutMs: get('SHUTDOWN_TIMEOUT_MS'),
    migrationId: get('MIGRATION_ID'),
    webUi: get('WEB_UI_ENABLED'),
    stream: Object.freeze({
      maxSubscribers: get('STREAM_MAX_SUBSCRIBERS'),
      heartbeatMs: get('STREAM_HEARTBEAT_SECONDS') * 1000,
      pageSize: get('STREAM_PAGE_SIZE'),
      maxBufferBytes: get('STREAM_MAX_BUFFER_KB') * 1024,
      slowConsumerMs: get('STREAM_SLOW_CONSUMER_MS'),
      pollMs: get('STREAM_POLL_MS'),
    }),
    answerCache: Object.freeze({ enabled: get('ANSWER_CACHE_ENABLED'), maxBytes: get('ANSWER_CACHE_MAX_MB') * 2 ** 20 }),
    scanApp: Object.freeze({
      clock: get('API_CLOCK'),
      ansAcronym: get('ANS_NAME_ACRONYM'),
      instanceNames: Object.freeze({
        networkName: get('SPLICE_NETWORK_NAME'),
        networkFaviconUrl: get('SPLICE_NETWORK_FAVICON_URL'),
        amuletName: get('SPLICE_AMULET_NAME'),
        amuletNameAcronym: get('SPLICE_AMULET_NAME_ACRONYM'),
        nameServiceName: get('SPLICE_NAME_SERVICE_NAME'),
      }),
      svUser: get('SCAN_SV_USER'),
      svPartyId: get('SCAN_SV_PARTY_ID'),
      initialRound: get('SCAN_INITIAL_ROUND'),
      tokenStandardSettlement: Object.freeze({
        maxLegs: get('REGISTRY_SETTLEMENT_MAX_LEGS'),
        maxParties: get('REGISTRY_SETTLEMENT_MAX_PARTIES'),
      }),
      lsu: lsu(get),
      rollForwardLsu: rollForwardLsu(get),
    }),
    source: get('SOURCE'),
    simulator: Object.freeze({
      seed: get('SIMULATOR_SEED'),
      mode: get('SIMULATOR_MODE'),
      ratePerSecond: get('SIMULATOR_RATE'),
      updates: get('SIMULATOR_UPDATES'),
      migrations: get('SIMULATOR_MIGRATIONS'),
    }),
    scanSource: Object.freeze({
      urls: Object.freeze(get('SCAN_SOURCE_URLS')),
      threshold: get('SCAN_SOURCE_THRESHOLD'),
      pollMs: get('SCAN_SOURCE_POLL_MS'),
      blobIntervalMs: get('SCAN_SOURCE_BLOB_INTERVAL_MS'),
      answerTimeoutMs: get('SCAN_SOURCE_ANSWER_TIMEOUT_MS'),
      acsCheck: get('SCAN_SOURCE_ACS_CHECK'),
    }),
    bulkSource: Object.freeze({
      pageSize: get('BULK_SOURCE_PAGE_SIZE'),
      downloadTimeoutMs: get('BULK_SOURCE_DOWNLOAD_TIMEOUT_MS'),
      fillFromEvents: get('BULK_SOURCE_FILL_FROM_EVENTS'),
    }),
    ledgerSource: Object.freeze({ url: get('LEDGER_SOURCE_URL'), party: get('LEDGER_SOURCE_PARTY'), token: get('LEDGER_SOURCE_TOKEN') }),
    ingest: Object.freeze({
      batchSize: get('INGEST_BATCH_SIZE'),
      batchMaxWaitMs: get('INGEST_BATCH_MAX_WAIT_MS'),
      lockPollMs: get('INGEST_LOCK_POLL_MS'),
      stopAtEnd: get('INGEST_STOP_AT_END'),
      retentionDays: get('HISTORY_RETENTION'),
      holdingTotalsRefreshOwners: get('HOLDING_TOTALS_REFRESH_OWNERS'),
    }),
    bulkStorage: bulkStorage(get),
    nice: Object.freeze({ api: get('API_NICE'), ingest: get('INGEST_NICE') }),
    fairAccess: Object.freeze({
      enabled: get('RATE_LIMIT_ENABLED'),
      trustedProxies: Object.freeze(get('TRUSTED_PROXIES')),
      groups: Object.freeze({
        scan: get('RATE_LIMIT_SCAN'),
        'scan-proxy': get('RATE_LIMIT_SCAN_PROXY'),
        registry: get('RATE_LIMIT_REGISTRY'),
        indexer: get('RATE_LIMIT_INDEXER'),
        streaming: get('RATE_LIMIT_STREAMING'),
        ledger: get('RATE_LIMIT_LEDGER'),
      }),
      apiKeys: get('RATE_LIMIT_API_KEYS'),
      store: get('RATE_LIMIT_STORE'),
      heavy: Object.freeze({
        concurrency: get('HEAVY_REQUEST_CONCURRENCY'),
        pageSize: get('HEAVY_REQUEST_PAGE_SIZE'),
        parties: get('HEAVY_REQUEST_PARTIES'),
      }),
    }),
    ledger: Object.freeze({
      participantId: get('LEDGER_PARTICIPANT_ID'),
      hs256Secret: get('LEDGER_AUTH_HS256_SECRET'),
      audience: get('LEDGER_AUTH_AUDIENCE'),
      jwksUrl: get('LEDGER_AUTH_JWKS_URL'),
      maxTokenLifetimeSeconds: get('LEDGER_AUTH_MAX_TOKEN_LIFETIME_SECONDS'),
      publicKeyFile: get('LEDGER_AUTH_PUBLIC_KEY_FILE'),
      userRights: Object.freeze(get('LEDGER_USER_RIGHTS')),
      adminUsers: Object.freeze(get('LEDGER_ADMIN_USERS')),
      authDisabled: get('LEDGER_AUTH_DISABLED'),
    }),
  });
}

/** Whether the indexer mirrors upstream Scans (SOURCE=scan or bulk): it then asks them what it cannot know itself. */
export function isScanMirror(config: Pick<Config, 'source'>): boolean {
  return config.source === 'scan' || config.source === 'bulk';
}

/** The attestation threshold of the scan source: as configured, else f+1 of N upstreams with f = floor((N-1)/3). */
export function scanSourceThreshold(config: Pick<Config, 'scanSource'>): number {
  const n = config.scanSource.urls.length;
  return config.scanSource.threshold ?? Math.floor((n - 1) / 3) + 1;
}
