/**
 * Crash safety at scale: a simulated network imported by the built CLI while
 * the process is killed (SIGKILL) at random moments and started again, until
 * it finishes. Every table must end identical, digest for digest, to an
 * import that was never interrupted.
 *
 * Figures: kills survived; updates lost (0); updates duplicated (0); tables
 * that differ from the uninterrupted import (0).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../support/cli-process';
import { createTestDatabase, destroyTestDatabase, type TestDatabase } from '../support/database/database';
import { emptyIngestedTables, tableDigests, updateCounts } from '../support/database/dump';
import { atScale, recordFigure, recordZero } from './figures';
import { runThroughKills } from './kills';

// Full-scale runs take minutes.
jest.setTimeout(3_600_000);

const PART = 'crash safety';
const UPDATES = atScale(3_000, 200_000);
const KILLS = atScale(3, 20);

describe('crash safety at scale', () => {
  const databases: TestDatabase[] = [];
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'crash-')), 'network.ndjson');
  afterAll(async () => {
    for (const t of databases) await destroyTestDatabase(t);
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });

  it(`imports ${UPDATES} updates killed ${KILLS} times into the tables of an uninterrupted import`, async () => {
    const simulate = ['simulate', '--seed', '17', '--updates', String(UPDATES), '--migrations', '2', '--out', file];
    expect(await runCli(simulate, {})).toMatchObject({ code: 0 });

    const whole = await createTestDatabase();
    databases.push(whole);
    const started = Date.now();
    expect(await runCli(['import', file], { DATABASE_URL: whole.url })).toMatchObject({ code: 0 });
    const wholeMs = Date.now() - started;
    const expected = await tableDigests(whole.db);

    // Kill points spread over the time an import takes here, drawn from a fixed seed.
    const killed = await createTestDatabase();
    databases.push(killed);
    const { kills, runs } = await runThroughKills(
      (killAfter) => runCli(['import', file], { DATABASE_URL: killed.url, INGEST_BATCH_SIZE: '200' }, killAfter),
      { kills: KILLS, spanMs: wholeMs / (KILLS / 2), seed: 'kill points', reset: () => emptyIngestedTables(killed.db) },
    );
    const got = await tableDigests(killed.db);
    const counts = await updateCounts(killed.db);
    const differing = Object.keys(expected).filter((table) => expected[table]!.digest !== got[table]!.digest);

    recordFigure({
      part: PART,
      figure: `kills survived (import of ${UPDATES} updates, ${runs} runs)`,
      value: kills,
      target: `${KILLS}`,
      ok: kills === KILLS,
    });
    recordZero(PART, 'updates lost', Math.max(0, expected.updates!.rows - counts.distinct));
    recordZero(PART, 'updates duplicated', counts.n - counts.distinct);
    recordZero(PART, 'tables differing from an uninterrupted import', differing.length);
    expect(kills).toBe(KILLS);
    expect(differing).toEqual([]);
    expect(got).toEqual(expected);
  });
});
