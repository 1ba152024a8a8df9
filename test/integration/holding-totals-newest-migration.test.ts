/**
 * Migration 20261127_030 fills holding_totals_newest from the holding_totals rows already written:
 * per migration and owner, its newest row's K and whether that row has holdings, so that the refresh
 * finds the owners whose K lags on a database whose totals were written before it.
 */
import { migrate, readMigrationFiles } from '../../src/store/migrator';
import { useTestDatabase } from '../support/database/database';

const MIGRATION = '20261127_030_holding_totals_newest.sql';

describe(`migration ${MIGRATION}`, () => {
  const t = useTestDatabase({ empty: true });

  it("keeps each owner's newest row per migration", async () => {
    await migrate(t.pool, { files: readMigrationFiles().filter((f) => f.name < MIGRATION) });
    await t.pool.query(
      `insert into holding_totals (migration_id, owner, record_time, holdings, unlocked, locked, unlocked_rate, locked_rate,
         unlocked_round_rate, locked_round_rate, clamped_by)
       values (0, 'alice::1', '2026-11-10T03:00:00Z', 2, 1, 0, 0, 0, 0, 0, 0),
              (0, 'alice::1', '2026-11-10T06:00:00Z', 0, 0, 0, 0, 0, 0, 0, 5),
              (0, 'bob::1', '2026-11-10T03:00:00Z', 1, 1, 0, 0, 0, 0, 0, 3),
              (0, 'carol::1', '2026-11-10T03:00:00Z', 1, 1, 0, 0, 0, 0, 0, '-Infinity'),
              (1, 'alice::1', '2026-11-10T03:00:00Z', 4, 1, 0, 0, 0, 0, 0, 7)`,
    );
    await migrate(t.pool);
    const { rows } = await t.pool.query(
      'select migration_id::int, owner, clamped_by::text, active from holding_totals_newest order by migration_id, owner',
    );
    expect(rows).toEqual([
      { migration_id: 0, owner: 'alice::1', clamped_by: '5', active: false },
      { migration_id: 0, owner: 'bob::1', clamped_by: '3', active: true },
      { migration_id: 0, owner: 'carol::1', clamped_by: '-Infinity', active: true },
      { migration_id: 1, owner: 'alice::1', clamped_by: '7', active: true },
    ]);
  });
});
