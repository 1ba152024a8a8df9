/**
 * The pieces of the scale runs' history generator that need no database
 * (bench/scale): ids, record times, the template mix and the simulated
 * network it continues. test/integration/scale-history.test.ts checks the
 * generated database as a whole.
 */
import { ContractMix } from '../../../bench/scale/contracts';
import { castOf, RecordTimes } from '../../../bench/scale/history';
import { ContractIds, FingerprintIds } from '../../../bench/scale/ids';
import { parseTimestamp } from '../../../src/domain/time';
import { generateItems, networkIdentities } from '../../../src/simulator';
import { IdFactory } from '../../../src/simulator/ids';
import { Prng } from '../../../src/simulator/prng';

describe('generated ids', () => {
  it('are distinct for distinct counters, in the shapes of update ids and Canton contract ids', () => {
    const updates = new FingerprintIds(7);
    const contracts = new ContractIds(7);
    const u = new Set<string>();
    const c = new Set<string>();
    for (let i = 0; i < 100_000; i++) {
      u.add(updates.of(i));
      c.add(contracts.of(i));
    }
    expect(u.size).toBe(100_000);
    expect(c.size).toBe(100_000);
    for (const id of [...u].slice(0, 100)) expect(id).toMatch(/^1220[0-9a-f]{64}$/);
    for (const id of [...c].slice(0, 100)) expect(id).toMatch(/^00[0-9a-f]{64}ca111220[0-9a-f]{64}$/);
    expect(updates.of(123)).toBe(new FingerprintIds(7).of(123));
    expect(updates.of(123)).not.toBe(new FingerprintIds(8).of(123));
  });

  it("never are the simulator's contract ids, whose version tag differs", () => {
    const simulator = new IdFactory(new Prng('ids')).contractId();
    expect(simulator).toMatch(/^00[0-9a-f]{64}ca101220[0-9a-f]{64}$/);
    expect(new ContractIds(1).of(0).slice(66, 70)).toBe('ca11');
  });

  it('refuses counters it cannot keep distinct', () => {
    expect(() => new FingerprintIds(1).of(2 ** 32)).toThrow(RangeError);
    expect(() => new ContractIds(1).of(-1)).toThrow(RangeError);
  });
});

describe('record times of generated history', () => {
  it('rise strictly within the span', () => {
    const start = parseTimestamp('2023-01-01T00:00:00Z');
    const end = parseTimestamp('2023-01-02T00:00:00Z');
    const times = new RecordTimes(start, end, 10_000, 3);
    let previous = start - 1n;
    for (let i = 0; i < 10_000; i++) {
      const t = times.of(i);
      expect(t).toBeGreaterThan(previous);
      previous = t;
    }
    expect(previous).toBeLessThan(end);
    expect(() => new RecordTimes(start, start + 10n, 10, 3)).toThrow(RangeError);
  });
});

describe('the template mix', () => {
  const who = networkIdentities({ seed: 42 });
  const cast = castOf(who, 2_000, 1);

  it('leaves the asked share of contracts active, and never a reward coupon or activity record', () => {
    const mix = new ContractMix(0.1);
    const rng = new Prng('mix');
    let active = 0;
    const activeKinds = new Set<string>();
    const n = 100_000;
    for (let i = 0; i < n; i++) {
      const c = mix.draw(cast, rng, 0n);
      if (c.lifetimeMicros === null) {
        active += 1;
        activeKinds.add(c.kind);
      }
    }
    expect(Math.abs(active / n - 0.1)).toBeLessThan(0.005);
    expect([...activeKinds].sort()).toEqual(['Amulet', 'AnsEntry', 'LockedAmulet']);
    expect(() => new ContractMix(0.9)).toThrow(RangeError);
  });

  it("holds the simulated network's users among its holders, whales first", () => {
    expect(cast.holders).toHaveLength(2_000);
    expect(new Set(cast.holders).size).toBe(2_000);
    const whales = who.users.filter((u) => u.whale).map((u) => u.party);
    expect(cast.holders.slice(0, whales.length)).toEqual(whales);
    for (const u of who.users) expect(cast.holders).toContain(u.party);
  });
});

describe('networkIdentities', () => {
  it("names the DSO party and synchronizer of the simulator's stream for the same seed", () => {
    const who = networkIdentities({ seed: 42 });
    const items = [...generateItems({ seed: 42, updates: 20 })];
    const update = items.find((i) => i.update && 'events_by_id' in i.update)!.update as {
      synchronizer_id: string;
      events_by_id: Record<string, { event_type: string; template_id: string; create_arguments: { dso?: string } }>;
    };
    const dsoRules = Object.values(update.events_by_id).find(
      (e) => e.event_type === 'created_event' && e.template_id.endsWith(':Splice.DsoRules:DsoRules'),
    );
    expect(dsoRules?.create_arguments.dso).toBe(who.dso);
    expect(update.synchronizer_id).toBe(who.globalSynchronizer);
    expect(networkIdentities({ seed: 43 }).dso).not.toBe(who.dso);
  });
});
