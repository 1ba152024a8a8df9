/**
 * Importing a simulated 2-migration network gives the same tables in one go,
 * in two halves, and with the importing process killed (SIGKILL) at random
 * points and restarted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../../support/cli-process';
import { createTestDatabase, destroyTestDatabase, type TestDatabase } from '../../support/database/database';
import { dumpTables } from '../../support/database/dump';
import { simulatedItems, writeItems } from '../../support/items/simulated-network';

const runImport = (file: string, databaseUrl: string, killAfterMs?: number) =>
  runCli(['import', file], { DATABASE_URL: databaseUrl, INGEST_BATCH_SIZE: '40' }, killAfterMs);

describe('ingestion gives identical results however it is interrupted', () => {
  // About seven simulated hours per migration, so that ACS snapshots are announced in both.
  const items = simulatedItems({ seed: 11, updates: 1200, migrations: 2, meanUpdateGapMs: 40_000 });
  const file = writeItems(items);
  const databases: TestDatabase[] = [];
  const fresh = async () => {
    const t = await createTestDatabase();
    databases.push(t);
    return t;
  };
  afterAll(async () => {
    for (const t of databases) await destroyTestDatabase(t);
  });

  it('in one go, in two halves, and killed at random points', async () => {
    const whole = await fresh();
    const started = Date.now();
    expect(await runImport(file, whole.url)).toMatchObject({ code: 0 });
    // Kill points are drawn within the time a whole import takes here, so they land inside the work on fast and slow machines alike.
    const wholeImportMs = Date.now() - started;
    const expected = await dumpTables(whole.db);
    expect(expected.acs_snapshots!.split('\n').length).toBeGreaterThanOrEqual(2);
    expect(expected.migrations!.split('\n')).toHaveLength(2);

    // Two halves: the same file, grown between two imports, resumes at the line checkpoint.
    const halves = await fresh();
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
    const grown = path.join(path.dirname(file), 'grown.ndjson');
    const middle = Math.floor(lines.length / 2);
    fs.writeFileSync(
      grown,
      lines
        .slice(0, middle)
        .map((l) => `${l}\n`)
        .join(''),
    );
    expect(await runImport(grown, halves.url)).toMatchObject({ code: 0 });
    fs.appendFileSync(
      grown,
      lines
        .slice(middle)
        .map((l) => `${l}\n`)
        .join(''),
    );
    expect(await runImport(grown, halves.url)).toMatchObject({ code: 0 });
    expect(await dumpTables(halves.db)).toEqual(expected);

    // Killed with SIGKILL at random points, restarted until it completes.
    const killed = await fresh();
    let kills = 0;
    for (let attempt = 0; attempt < 40; attempt++) {
      const killAfterMs = attempt < 30 ? Math.floor(wholeImportMs * (0.1 + 0.5 * Math.random())) : undefined;
      const result = await runImport(file, killed.url, killAfterMs);
      if (result.signal === 'SIGKILL') {
        kills += 1;
        continue;
      }
      expect(result).toMatchObject({ code: 0 });
      break;
    }
    expect(kills).toBeGreaterThan(0);
    expect(await dumpTables(killed.db)).toEqual(expected);

    // Importing the same file again changes nothing.
    expect(await runImport(file, whole.url)).toMatchObject({ code: 0 });
    expect(await dumpTables(whole.db)).toEqual(expected);
  });
});
