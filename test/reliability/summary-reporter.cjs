/**
 * Prints the reliability suite's figures (test/reliability/figures.ts) as one
 * table at the end of a run that recorded any. Figures are files of JSON lines
 * named after this process, removed when a run starts.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const file = process.env.RELIABILITY_FIGURES_FILE ?? path.join(os.tmpdir(), `scan-indexer-reliability-${process.pid}.ndjson`);

class ReliabilitySummaryReporter {
  onRunStart() {
    fs.rmSync(file, { force: true });
    // Test workers are this process's children: figures.ts names the file after their parent.
    process.env.RELIABILITY_FIGURES_FILE = file;
  }

  onRunComplete() {
    if (!fs.existsSync(file)) return;
    const figures = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    fs.rmSync(file, { force: true });
    if (figures.length === 0) return;
    const rows = [
      ['part', 'figure', 'value', 'target', ''],
      ...figures.map((f) => [f.part, f.figure, String(f.value), f.target, f.ok ? 'ok' : 'MISSED']),
    ];
    const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
    const line = (r) =>
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd();
    const missed = figures.filter((f) => !f.ok).length;
    const out = [
      '',
      `Reliability figures (${figures[0].scale === 'full' ? 'full scale' : 'CI scale; npm run test:reliability for full scale'}):`,
      line(rows[0]),
      line(widths.map((w) => '-'.repeat(w))),
      ...rows.slice(1).map(line),
      missed === 0 ? `All ${figures.length} figures meet their targets.` : `${missed} of ${figures.length} figures miss their targets.`,
      '',
    ];
    process.stdout.write(`${out.join('\n')}\n`);
  }
}

module.exports = ReliabilitySummaryReporter;
