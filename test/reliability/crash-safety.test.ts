/**
 * Crash safety at scale: a simulated network imported by the built CLI while
 * the process is killed (SIGKILL) at random moments and started again, until
 * it finishes. Every table must end identical, digest for digest, to an
 * import that was never interrupted.
 *
 * Figures: kills survived; updates lost (0); updates duplicated (0); tables
 * that differ from the uninterrupted import (0).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { projectRoot } from '../../src/internal/paths';
import { Prng } from '../../src/simulator/prng';
import { createTestDatabase, destroyTestDatabase, type TestDatabase } from '../support/database/database';
import { tableDigests } from '../support/database/dump';
import { atScale, recordFigure, recordZero } from './figures';

// Full-scale runs take minutes.
jest.setTimeout(3_600_000);

const PART = 'crash safety';
const CLI = path.join(projectRoot, 'dist/src/cli.js');
const UPDATES = atScale(3_000, 200_000);
const KILLS = atScale(3, 20);

function run(
  args: string[],
  env: Record<string, string>,
  killAfterMs?: number,
): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'error', ...env } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

describe('crash safety at scale', () => {
  const databases: TestDatabase[] = [];
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'crash-')), 'network.ndjson');
  afterAll(async () => {
    for (const t of databases) await destroyTestDatabase(t);
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });

  it(`imports ${UPDATES} updates killed ${KILLS} times into the tables of an uninterrupted import`, async () => {
    expect(await run(['simulate', '--seed', '17', '--updates', String(UPDATES), '--migrations', '2', '--out', file], {})).toMatchObject({
      code: 0,
    });

    const whole = await createTestDatabase();
    databases.push(whole);
    const started = Date.now();
    expect(await run(['import', file], { DATABASE_URL: whole.url })).toMatchObject({ code: 0 });
    const wholeMs = Date.now() - started;
    const expected = await tableDigests(whole.db);

    // Kill points spread over the time an import takes here, drawn from a fixed seed.
    const killed = await createTestDatabase();
    databases.push(killed);
    const rng = new Prng('kill points');
    let kills = 0;
    let runs = 0;
    for (;;) {
      runs += 1;
      const killAfter = kills < KILLS ? 300 + rng.int(0, Math.max(1, Math.floor(wholeMs / (KILLS / 2)))) : undefined;
      const result = await run(['import', file], { DATABASE_URL: killed.url, INGEST_BATCH_SIZE: '200' }, killAfter);
      if (result.signal === 'SIGKILL') {
        kills += 1;
        continue;
      }
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
      if (kills >= KILLS) break;
      // It finished before the kill: start again from an empty database and keep killing.
      await sql`truncate updates, contracts, contract_stakeholders, verdicts, traffic_summaries, app_activity_records, acs_deltas, acs_snapshots,
        vote_results, transfer_command_events, contract_blobs, ingest_checkpoints, migrations, migration_synchronizers`.execute(killed.db);
    }
    const got = await tableDigests(killed.db);
    const counts = (
      await sql<{
        updates: number;
        distinct_updates: number;
      }>`select count(*)::int as updates, count(distinct update_id)::int as distinct_updates from updates`.execute(killed.db)
    ).rows[0]!;
    const differing = Object.keys(expected).filter((table) => expected[table]!.digest !== got[table]!.digest);

    recordFigure({
      part: PART,
      figure: `kills survived (import of ${UPDATES} updates, ${runs} runs)`,
      value: kills,
      target: `${KILLS}`,
      ok: kills === KILLS,
    });
    recordZero(PART, 'updates lost', Math.max(0, expected.updates!.rows - counts.distinct_updates));
    recordZero(PART, 'updates duplicated', counts.updates - counts.distinct_updates);
    recordZero(PART, 'tables differing from an uninterrupted import', differing.length);
    expect(kills).toBe(KILLS);
    expect(differing).toEqual([]);
    expect(got).toEqual(expected);
  });
});
