/**
 * The Grafana dashboard and the Prometheus rules cannot drift from the
 * service: every scan_indexer_* series they name is one the service exports,
 * and they cover what an operator watches and alerts on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { createMetrics } from '../../../src/internal/metrics';
import { projectRoot } from '../../../src/internal/paths';

const read = (...parts: string[]) => fs.readFileSync(path.join(projectRoot, ...parts), 'utf8');

/** Every series name the service exports, histograms with their _bucket, _sum and _count. */
async function exportedSeries(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const metric of await createMetrics().registry.getMetricsAsJSON()) {
    names.add(metric.name);
    const type = String(metric.type);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${metric.name}${suffix}`);
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(`${metric.name}${suffix}`);
  }
  return names;
}

const seriesIn = (expr: string) => [...expr.matchAll(/\bscan_indexer_[a-z0-9_]+\b/g)].map((m) => m[0]);

interface Rule {
  record?: string;
  alert?: string;
  expr: string;
}
const rules = (parse(read('deploy', 'prometheus', 'rules.yml')) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules);
const dashboard = JSON.parse(read('deploy', 'grafana', 'dashboards', 'scan-indexer.json')) as {
  panels: { title: string; targets: { expr: string }[] }[];
};
const panelExprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));

describe('the dashboard and the alert rules', () => {
  it('name only series the service exports', async () => {
    const exported = await exportedSeries();
    const named = [...panelExprs, ...rules.map((r) => r.expr)].flatMap(seriesIn);
    expect(named.length).toBeGreaterThan(20);
    expect([...new Set(named)].filter((n) => !exported.has(n)).sort()).toEqual([]);
  });

  it('the check catches a name the service does not export', async () => {
    const exported = await exportedSeries();
    expect(seriesIn('rate(scan_indexer_ingested_update_total[5m])').every((n) => exported.has(n))).toBe(false);
  });

  it('show ingestion, lag, batches, the writer, snapshots, HTTP latency and errors, and the pool', () => {
    const shown = new Set(panelExprs.flatMap(seriesIn));
    for (const series of [
      'scan_indexer_ingested_updates_total',
      'scan_indexer_ingest_lag_seconds',
      'scan_indexer_ingest_batch_duration_seconds_bucket',
      'scan_indexer_ingest_batch_items_sum',
      'scan_indexer_ingest_rejected_items_total',
      'scan_indexer_writer_active',
      'scan_indexer_acs_snapshot_last_record_time_seconds',
      'scan_indexer_http_request_duration_seconds_bucket',
      'scan_indexer_http_requests_total',
      'scan_indexer_api_auth_refusals_total',
      'scan_indexer_db_pool_connections',
    ]) {
      expect({ series, shown: shown.has(series) }).toEqual({ series, shown: true });
    }
    expect(panelExprs.some((e) => e.includes('histogram_quantile(0.5,') && e.includes('http_request_duration'))).toBe(true);
    expect(panelExprs.some((e) => e.includes('histogram_quantile(0.99,') && e.includes('http_request_duration'))).toBe(true);
  });

  it('alert on stopped or lagging ingestion, no writer, overdue snapshots, 5xx and an exhausted pool', () => {
    const alerts = new Map(rules.filter((r) => r.alert).map((r) => [r.alert!, r.expr]));
    expect([...alerts.keys()].sort()).toEqual(
      expect.arrayContaining([
        'ScanIndexerIngestionStopped',
        'ScanIndexerIngestionLagging',
        'ScanIndexerNoActiveWriter',
        'ScanIndexerSnapshotOverdue',
        'ScanIndexerHigh5xxRate',
        'ScanIndexerPoolExhausted',
      ]),
    );
    expect(alerts.get('ScanIndexerNoActiveWriter')).toContain('scan_indexer_writer_active');
    expect(alerts.get('ScanIndexerSnapshotOverdue')).toContain('scan_indexer_acs_snapshot_last_record_time_seconds');
    expect(alerts.get('ScanIndexerPoolExhausted')).toContain('scan_indexer_db_pool_connections{state="waiting"}');
  });
});
