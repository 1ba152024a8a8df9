/**
 * Which source the configuration makes for SOURCE=scan (the failover source at threshold 1, the
 * attested one above, and a configuration error for a threshold no quorum could ever meet) and for
 * SOURCE=bulk (the first upstream's objects at threshold 1, objects attested by the threshold above, and the
 * same configuration error).
 */
import { ConfigError, loadConfig } from '../../../src/internal/config';
import { createLogger } from '../../../src/internal/logger';
import { createConfiguredSource } from '../../../src/runtime';

const logger = createLogger('silent');
const urls = (n: number) => Array.from({ length: n }, (_, i) => `http://scan-${i}:8080`).join(',');
const source = (env: Record<string, string>) => createConfiguredSource(loadConfig({ SOURCE: 'scan', ...env }), logger);

describe('the configured scan source', () => {
  it('needs URLs, and a threshold no greater than their number', () => {
    expect(() => source({})).toThrow(new ConfigError('Invalid configuration: SOURCE=scan needs SCAN_SOURCE_URLS.'));
    expect(() => source({ SCAN_SOURCE_URLS: urls(2), SCAN_SOURCE_THRESHOLD: '3' })).toThrow(
      new ConfigError('Invalid configuration: SCAN_SOURCE_THRESHOLD=3 is more than the 2 SCAN_SOURCE_URLS: no quorum could ever form.'),
    );
  });

  it('reads the same stream whether it attests or not, so that a mirror can switch', () => {
    expect(source({ SCAN_SOURCE_URLS: urls(1) }).stream).toBe('scan');
    expect(source({ SCAN_SOURCE_URLS: urls(4) }).stream).toBe('scan');
    expect(source({ SCAN_SOURCE_URLS: urls(4), SCAN_SOURCE_THRESHOLD: '1' }).stream).toBe('scan');
  });
});

describe('the configured bulk source', () => {
  const bulk = (env: Record<string, string>) => createConfiguredSource(loadConfig({ SOURCE: 'bulk', ...env }), logger);

  it('needs URLs and a threshold no greater than their number, attests above 1, and keeps its own checkpoint', () => {
    expect(() => bulk({})).toThrow(new ConfigError('Invalid configuration: SOURCE=bulk needs SCAN_SOURCE_URLS.'));
    expect(() => bulk({ SCAN_SOURCE_URLS: urls(2), SCAN_SOURCE_THRESHOLD: '3' })).toThrow(
      new ConfigError('Invalid configuration: SCAN_SOURCE_THRESHOLD=3 is more than the 2 SCAN_SOURCE_URLS: no quorum could ever form.'),
    );
    // Four URLs attest with 2 of them by default.
    expect(bulk({ SCAN_SOURCE_URLS: urls(4) }).stream).toBe('bulk');
    expect(bulk({ SCAN_SOURCE_URLS: urls(4), SCAN_SOURCE_THRESHOLD: '1' }).stream).toBe('bulk');
    expect(bulk({ SCAN_SOURCE_URLS: urls(1) }).stream).toBe('bulk');
  });

  it('takes page sizes of 1 to 1000 objects', () => {
    expect(() => loadConfig({ SOURCE: 'bulk', BULK_SOURCE_PAGE_SIZE: '1001' })).toThrow(/BULK_SOURCE_PAGE_SIZE/);
    expect(loadConfig({ SOURCE: 'bulk', BULK_SOURCE_PAGE_SIZE: '7' }).bulkSource).toEqual({
      pageSize: 7,
      downloadTimeoutMs: 600_000,
      fillFromEvents: true,
    });
  });

  it('reads /v0/events beside the objects unless told not to', () => {
    expect(loadConfig({ SOURCE: 'bulk', BULK_SOURCE_FILL_FROM_EVENTS: 'false' }).bulkSource.fillFromEvents).toBe(false);
    expect(() => loadConfig({ SOURCE: 'bulk', BULK_SOURCE_FILL_FROM_EVENTS: 'maybe' })).toThrow(/BULK_SOURCE_FILL_FROM_EVENTS/);
  });
});
