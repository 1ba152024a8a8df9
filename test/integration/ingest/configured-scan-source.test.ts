/**
 * The scan source the configuration makes, reading real HTTP upstreams: four fake Scans, the first
 * of which lies about one element. At the default threshold (2 of 4) the configured source yields
 * the honest history; at SCAN_SOURCE_THRESHOLD=1 (failover) it yields what its first upstream serves,
 * the lie included. So the configuration, not only the stream name, decides which source runs.
 */
import type { CanonicalItem, TransactionUpdate } from '../../../src/domain/items';
import { loadConfig } from '../../../src/internal/config';
import { createLogger } from '../../../src/internal/logger';
import { createConfiguredSource } from '../../../src/runtime';
import { startFakeScan, type FakeScan } from '../../support/fakes/fake-scan';
import { makeScanItems } from '../../support/fakes/scan-items';

/** The workflow id of each transaction the configured source yields, in order. */
async function readAll(env: Record<string, string>): Promise<string[]> {
  const source = createConfiguredSource(
    loadConfig({ SOURCE: 'scan', INGEST_STOP_AT_END: 'true', SCAN_SOURCE_POLL_MS: '50', ...env }),
    createLogger('silent'),
  );
  const seen: string[] = [];
  const signal = AbortSignal.timeout(60_000);
  for await (const { item } of source.read(undefined, signal)) {
    const update = item.update as TransactionUpdate | null | undefined;
    if (update && 'workflow_id' in update) seen.push(`${update.update_id} ${update.workflow_id}`);
  }
  return seen;
}

describe('the configured scan source over real upstreams', () => {
  const honest = makeScanItems(20);
  const isTransaction = (item: CanonicalItem) => !!item.update && 'workflow_id' in item.update;
  // A transaction in the middle of the first migration.
  const LIED_AT = honest.findIndex((item, i) => i >= 3 && isTransaction(item));
  // The same history with one transaction's workflow id changed, as a byzantine Scan might serve it.
  const lying: CanonicalItem[] = honest.map((item, i) =>
    i === LIED_AT && item.update ? { ...item, update: { ...(item.update as TransactionUpdate), workflow_id: 'forged' } } : item,
  );
  const scans: FakeScan[] = [];
  let urls = '';

  beforeAll(async () => {
    scans.push(await startFakeScan(lying));
    for (let i = 0; i < 3; i++) scans.push(await startFakeScan(honest));
    urls = scans.map((s) => s.url).join(',');
  });
  afterAll(async () => {
    await Promise.all(scans.map((s) => s.close()));
  });

  const expected = (items: CanonicalItem[]) =>
    items.flatMap((i) => {
      const update = i.update as TransactionUpdate | null | undefined;
      return update && 'workflow_id' in update ? [`${update.update_id} ${update.workflow_id}`] : [];
    });

  it('attests at the default threshold: the honest history, the lie outvoted', async () => {
    expect(expected(lying)).not.toEqual(expected(honest));
    expect(await readAll({ SCAN_SOURCE_URLS: urls })).toEqual(expected(honest));
  });

  it('fails over at threshold 1: the first upstream is trusted, its lie included', async () => {
    expect(await readAll({ SCAN_SOURCE_URLS: urls, SCAN_SOURCE_THRESHOLD: '1' })).toEqual(expected(lying));
  });
});
