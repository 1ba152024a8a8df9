/**
 * Which source the configuration makes for SOURCE=scan: the failover source at threshold 1, the
 * attested one above, and a configuration error for a threshold no quorum could ever meet.
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
