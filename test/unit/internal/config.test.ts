import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, knobs, loadConfig, scanSourceThreshold } from '../../../src/internal/config';
import { README_TABLE_BEGIN, README_TABLE_END, renderEnvExample, renderReadmeTable } from '../../../src/internal/config-docs';

const root = path.resolve(__dirname, '../../..');

describe('configuration', () => {
  it('has a default for every knob that passes its own schema', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.host).toBe('127.0.0.1');
    expect(config.databaseUrl).toBeUndefined();
    expect(config.ledger.adminUsers).toEqual([]);
    expect(config.ledger.authDisabled).toBe(false);
    for (const [name, knob] of Object.entries(knobs)) {
      expect(knob.description.length).toBeGreaterThan(10);
      expect(knob.schema.safeParse(knob.default).success).toBe(true);
      expect(name).toMatch(/^[A-Z][A-Z0-9_]+$/);
    }
  });

  it('parses values and freezes the result', () => {
    const config = loadConfig({
      PORT: '9000',
      DATABASE_URL: 'postgres://u@h:5432/db',
      LEDGER_ADMIN_USERS: 'alice, bob,,',
      LEDGER_AUTH_DISABLED: 'true',
    });
    expect(config.port).toBe(9000);
    expect(config.databaseUrl).toBe('postgres://u@h:5432/db');
    expect(config.ledger.adminUsers).toEqual(['alice', 'bob']);
    expect(config.ledger.authDisabled).toBe(true);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('stops on a bad value with one line naming the variable and what it expects', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(
      new ConfigError('Invalid configuration: PORT="eighty": expected an integer from 0 to 65535.'),
    );
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/^Invalid configuration: LOG_LEVEL="loud": expected one of fatal/);
    // Secrets are not echoed.
    expect(() => loadConfig({ DATABASE_URL: 'mysql://root:hunter2@x/db' })).toThrow(
      'Invalid configuration: DATABASE_URL=(hidden): expected a postgres:// or postgresql:// URL, or unset.',
    );
  });

  it('keeps .env.example in sync with the schema', () => {
    const committed = fs.readFileSync(path.join(root, '.env.example'), 'utf8');
    expect(committed).toBe(renderEnvExample());
  });

  it('keeps the README configuration table in sync with the schema', () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const begin = readme.indexOf(README_TABLE_BEGIN);
    const end = readme.indexOf(README_TABLE_END);
    expect(begin).toBeGreaterThan(0);
    expect(readme.slice(begin + README_TABLE_BEGIN.length, end).trim()).toBe(renderReadmeTable());
  });

  it('is the only reader of process.env in src/', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(p);
        else if (
          p.endsWith('.ts') &&
          p !== path.join(root, 'src/internal/config.ts') &&
          /process\.env\b/.test(fs.readFileSync(p, 'utf8'))
        ) {
          offenders.push(path.relative(root, p));
        }
      }
    };
    walk(path.join(root, 'src'));
    expect(offenders).toEqual([]);
  });

  it("lowers the API's priority in start by default, not the worker's, and takes only nice values that need no privilege", () => {
    expect(loadConfig({}).nice).toEqual({ api: 5, ingest: 0 });
    expect(loadConfig({ API_NICE: '0', INGEST_NICE: '19' }).nice).toEqual({ api: 0, ingest: 19 });
    for (const bad of ['-1', '20', '2.5', 'low']) {
      expect(() => loadConfig({ INGEST_NICE: bad })).toThrow(
        new ConfigError(`Invalid configuration: INGEST_NICE="${bad}": expected an integer from 0 to 19.`),
      );
    }
  });

  it('the scan source threshold: f+1 of the URLs by default, or as set', () => {
    const urls = (n: number) => Array.from({ length: n }, (_, i) => `http://scan-${i}:8080`).join(',');
    const threshold = (env: Record<string, string>) => scanSourceThreshold(loadConfig(env));
    expect([1, 2, 3, 4, 5, 6, 7, 10].map((n) => threshold({ SCAN_SOURCE_URLS: urls(n) }))).toEqual([1, 1, 1, 2, 2, 2, 3, 4]);
    expect(threshold({ SCAN_SOURCE_URLS: urls(4), SCAN_SOURCE_THRESHOLD: '3' })).toBe(3);
    expect(threshold({ SCAN_SOURCE_URLS: urls(4), SCAN_SOURCE_THRESHOLD: '' })).toBe(2);
    expect(() => loadConfig({ SCAN_SOURCE_THRESHOLD: '0' })).toThrow(ConfigError);
  });

  it('limits a public deployment by default, per route group', () => {
    const { fairAccess } = loadConfig({});
    expect(fairAccess.enabled).toBe(true);
    expect(fairAccess.store).toBe('memory');
    expect(fairAccess.trustedProxies).toEqual([]);
    expect(fairAccess.apiKeys.size).toBe(0);
    expect(fairAccess.groups).toEqual({
      scan: { perSecond: 20, burst: 100 },
      'scan-proxy': { perSecond: 20, burst: 100 },
      registry: { perSecond: 20, burst: 100 },
      indexer: { perSecond: 10, burst: 50 },
      streaming: { perSecond: 1, burst: 5 },
      ledger: { perSecond: 20, burst: 100 },
    });
    expect(fairAccess.heavy).toEqual({ concurrency: 4, pageSize: 500, parties: 200 });
  });

  it('parses rate limits, trusted proxies and API keys, and refuses bad ones', () => {
    const config = loadConfig({
      RATE_LIMIT_SCAN: ' 0.5 , 2 ',
      RATE_LIMIT_LEDGER: 'off',
      TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.1, fd00::/8, loopback',
      RATE_LIMIT_API_KEYS: JSON.stringify({ abcdefghijklmnop: { name: 'partner-a', per_second: 2.5, burst: 10 } }),
    });
    expect(config.fairAccess.groups.scan).toEqual({ perSecond: 0.5, burst: 2 });
    expect(config.fairAccess.groups.ledger).toBeUndefined();
    expect(config.fairAccess.trustedProxies).toEqual(['10.0.0.0/8', '192.0.2.1', 'fd00::/8', 'loopback']);
    expect([...config.fairAccess.apiKeys]).toEqual([['abcdefghijklmnop', { name: 'partner-a', perSecond: 2.5, burst: 10 }]]);

    for (const bad of ['20', '0,10', '20,0', '20,1.5', 'fast', '-1,5']) {
      expect(() => loadConfig({ RATE_LIMIT_SCAN: bad })).toThrow(
        `Invalid configuration: RATE_LIMIT_SCAN=${JSON.stringify(bad)}: expected a rate and a burst such as 20,100 (a positive number, then an integer of at least 1), or off.`,
      );
    }
    for (const bad of ['10.0.0.0/33', 'proxy.example', '10.0.0.1/8/8', '::1/129']) {
      expect(() => loadConfig({ TRUSTED_PROXIES: bad })).toThrow(/^Invalid configuration: TRUSTED_PROXIES=/);
    }
    const key = (name: string, extra: object = {}) => ({ name, per_second: 1, burst: 1, ...extra });
    for (const bad of [
      '{"short": {"name": "a", "per_second": 1, "burst": 1}}',
      JSON.stringify({ abcdefghijklmnop: key('a'), qrstuvwxyzabcdef: key('a') }),
      JSON.stringify({ abcdefghijklmnop: key('a', { per_second: 0 }) }),
      JSON.stringify({ abcdefghijklmnop: key('a', { rate: 1 }) }),
      'not json',
    ]) {
      // Keys are secrets: the value is never echoed.
      expect(() => loadConfig({ RATE_LIMIT_API_KEYS: bad })).toThrow(
        /^Invalid configuration: RATE_LIMIT_API_KEYS=\(hidden\): expected a JSON object/,
      );
    }
  });
});

describe('bulk storage', () => {
  it('is off by default, in a directory, or in an S3-compatible bucket', () => {
    expect(loadConfig({}).bulkStorage).toEqual({ dir: undefined, s3: undefined });
    expect(loadConfig({ BULK_STORAGE_DIR: '/var/bulk' }).bulkStorage).toEqual({ dir: '/var/bulk', s3: undefined });
    expect(loadConfig({ BULK_STORAGE_S3_BUCKET: 'b' }).bulkStorage).toEqual({
      dir: undefined,
      s3: {
        bucket: 'b',
        prefix: '',
        endpoint: undefined,
        region: 'us-east-1',
        forcePathStyle: false,
        accessKeyId: undefined,
        secretAccessKey: undefined,
      },
    });
    expect(
      loadConfig({
        BULK_STORAGE_S3_BUCKET: 'b',
        BULK_STORAGE_S3_PREFIX: 'mainnet/',
        BULK_STORAGE_S3_ENDPOINT: 'http://minio:9000',
        BULK_STORAGE_S3_REGION: 'eu-west-1',
        BULK_STORAGE_S3_FORCE_PATH_STYLE: 'true',
        BULK_STORAGE_S3_ACCESS_KEY_ID: 'id',
        BULK_STORAGE_S3_SECRET_ACCESS_KEY: 'secret',
      }).bulkStorage.s3,
    ).toEqual({
      bucket: 'b',
      prefix: 'mainnet/',
      endpoint: 'http://minio:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
      accessKeyId: 'id',
      secretAccessKey: 'secret',
    });
  });

  it('refuses both places at once, half a key pair and an endpoint that is no http(s) URL', () => {
    expect(() => loadConfig({ BULK_STORAGE_DIR: '/var/bulk', BULK_STORAGE_S3_BUCKET: 'b' })).toThrow(
      'Invalid configuration: set BULK_STORAGE_DIR or BULK_STORAGE_S3_BUCKET, not both.',
    );
    expect(() => loadConfig({ BULK_STORAGE_S3_BUCKET: 'b', BULK_STORAGE_S3_ACCESS_KEY_ID: 'id' })).toThrow(
      'Invalid configuration: set BULK_STORAGE_S3_ACCESS_KEY_ID and BULK_STORAGE_S3_SECRET_ACCESS_KEY together, or neither.',
    );
    expect(() => loadConfig({ BULK_STORAGE_S3_ENDPOINT: 'ftp://x' })).toThrow(
      'Invalid configuration: BULK_STORAGE_S3_ENDPOINT="ftp://x": expected empty, or an http(s) URL.',
    );
    expect(() =>
      loadConfig({
        BULK_STORAGE_S3_SECRET_ACCESS_KEY: 'sshh',
        BULK_STORAGE_S3_ACCESS_KEY_ID: 'id',
        BULK_STORAGE_S3_FORCE_PATH_STYLE: 'yes',
      }),
    ).toThrow('Invalid configuration: BULK_STORAGE_S3_FORCE_PATH_STYLE="yes": expected true or false.');
  });
});
