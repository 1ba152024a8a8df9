/** text[] values read through the service's pool (its own parser, store/text-array.ts) are the server's elements. */
import { createPool } from '../../../src/store/pool';
import { useTestDatabase } from '../../support/database/database';

describe('text[] through the pool', () => {
  const t = useTestDatabase();

  it('reads every element as stored, whatever the server quotes', async () => {
    const pool = createPool({ connectionString: t.url, max: 1 });
    const arrays = [
      [],
      ['DSO::1220ab', 'alice::1220cd'],
      ['', 'a b', 'c,d', 'e{f}', 'g"h', 'i\\j', 'NULL', 'null', 'tab\there', 'é'],
      ['x', null, 'y'],
    ];
    try {
      for (const value of arrays) {
        const { rows } = await pool.query<{ v: unknown }>('select $1::text[] as v', [value]);
        expect(rows[0]!.v).toEqual(value);
      }
    } finally {
      await pool.end();
    }
  });
});
