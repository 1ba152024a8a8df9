/**
 * The answer cache's readings of the versions on a real database: requests waiting at one moment
 * share one reading, and a kept answer is made once for all of them. The first reading is held
 * up by a lock on answer_versions, so that the other requests surely arrive while it is in flight.
 */
import { AnswerCache } from '../../../src/api/answer-cache';
import { createMetrics } from '../../../src/internal/metrics';
import { markChangedFamilies } from '../../../src/store/answer-versions-repository';
import { useTestDatabase } from '../../support/database/database';

const readingsOf = async (metrics: ReturnType<typeof createMetrics>) => (await metrics.answerVersionReads.get()).values[0]?.value ?? 0;

describe('answer cache: readings of the versions', () => {
  const t = useTestDatabase();

  it('50 requests waiting at once share one reading begun after they arrived, and one making of the answer', async () => {
    const metrics = createMetrics();
    const cache = new AnswerCache({ enabled: true, maxBytes: 2 ** 20, metrics });
    let made = 0;
    const make = async () => ({ value: ++made });
    const get = () => cache.get(t.db, 'test', 'test', ['amuletRules'], make);

    const locker = await t.pool.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table answer_versions in access exclusive mode');
      const first = get();
      // Until the first reading waits for the lock.
      for (;;) {
        const { rows } = await t.pool.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
           where datname = current_database() and wait_event_type = 'Lock' and query like '%from answer_versions%'`,
        );
        if (rows[0]!.n === 1) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // These arrive while that reading is in flight: they wait for the next one, which begins after it.
      const later = Array.from({ length: 49 }, get);
      await locker.query(`insert into answer_versions (family, version) values ('amuletRules', 42)`);
      await locker.query('commit');
      const answers = await Promise.all([first, ...later]);
      expect(answers.map((a) => a.value)).toEqual(Array.from({ length: 50 }, () => 1));
      expect({ readings: await readingsOf(metrics), made }).toEqual({ readings: 2, made: 1 });
    } finally {
      locker.release();
    }

    // Alone, a request reads the versions anew, and is served the kept answer while they are unchanged.
    expect((await get()).value).toBe(1);
    expect({ readings: await readingsOf(metrics), made }).toEqual({ readings: 3, made: 1 });
    await markChangedFamilies(t.db, ['ansRules']);
    expect((await get()).value).toBe(1);
    await markChangedFamilies(t.db, ['amuletRules']);
    expect((await get()).value).toBe(2);
    expect({ readings: await readingsOf(metrics), made }).toEqual({ readings: 5, made: 2 });
  });

  it('an answer that fails is not kept; turned off, nothing is read or kept', async () => {
    const on = new AnswerCache({ enabled: true, maxBytes: 2 ** 20 });
    let calls = 0;
    const failing = async () => {
      calls += 1;
      throw new Error('no such contract');
    };
    await expect(on.get(t.db, 'test', 'failing', ['amuletRules'], failing)).rejects.toThrow('no such contract');
    await expect(on.get(t.db, 'test', 'failing', ['amuletRules'], failing)).rejects.toThrow('no such contract');
    expect({ calls, kept: on.stats(t.db).answers }).toEqual({ calls: 2, kept: 0 });

    const metrics = createMetrics();
    const off = new AnswerCache({ enabled: false, maxBytes: 2 ** 20, metrics });
    let made = 0;
    for (let i = 0; i < 3; i++) await off.get(t.db, 'test', 'k', ['amuletRules'], async () => ({ value: ++made }));
    expect({ made, readings: await readingsOf(metrics), kept: off.stats(t.db).answers }).toEqual({ made: 3, readings: 0, kept: 0 });
  });

  it('keeps at most its bound of bytes, letting the least recently used answers go', async () => {
    const cache = new AnswerCache({ enabled: true, maxBytes: 3000 });
    const body = (n: number) => ({ n, pad: 'x'.repeat(1000) });
    for (let n = 0; n < 5; n++) {
      const answer = await cache.get(t.db, 'test', `k${n}`, ['amuletRules'], async () => ({ value: n }));
      answer.bytes('whole', (v) => body(v));
    }
    const { answers, bytes } = cache.stats(t.db);
    expect({ answers, withinBound: bytes <= 3000 }).toEqual({ answers: 2, withinBound: true });
    // The newest are kept: asking for k4 again makes nothing.
    let made = 0;
    expect((await cache.get(t.db, 'test', 'k4', ['amuletRules'], async () => ({ value: (made += 1) }))).value).toBe(4);
    expect(made).toBe(0);
  });
});
