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

  it('the scan source threshold: f+1 of the URLs by default, or as set', () => {
    const urls = (n: number) => Array.from({ length: n }, (_, i) => `http://scan-${i}:8080`).join(',');
    const threshold = (env: Record<string, string>) => scanSourceThreshold(loadConfig(env));
    expect([1, 2, 3, 4, 5, 6, 7, 10].map((n) => threshold({ SCAN_SOURCE_URLS: urls(n) }))).toEqual([1, 1, 1, 2, 2, 2, 3, 4]);
    expect(threshold({ SCAN_SOURCE_URLS: urls(4), SCAN_SOURCE_THRESHOLD: '3' })).toBe(3);
    expect(threshold({ SCAN_SOURCE_URLS: urls(4), SCAN_SOURCE_THRESHOLD: '' })).toBe(2);
    expect(() => loadConfig({ SCAN_SOURCE_THRESHOLD: '0' })).toThrow(ConfigError);
  });
});
