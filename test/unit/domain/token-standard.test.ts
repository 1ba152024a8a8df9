/**
 * The facts the registry reads from Amulet's contracts: the open round a factory uses, the active
 * synchronizer of AmuletRules' configuration schedule, and the locks of instructions and allocations;
 * the size of a V2 allocation or settlement against Scan's limits; and the ExternalPartyConfigState
 * a context names.
 */
import { latestUsableOpenRound, nextRoundOpening } from '../../../src/domain/mining-rounds';
import { parseTimestamp } from '../../../src/domain/time';
import {
  activeSynchronizer,
  allocateSize,
  latestConfigState,
  allocationLock,
  allocationV2Lock,
  nextConfigChange,
  settleBatchSize,
  sizeRefusal,
  transferInstructionLock,
} from '../../../src/domain/token-standard';

const round = (n: number, opensAt: string) => ({ payload: { round: { number: String(n) }, opensAt } });
const at = (t: string) => parseTimestamp(t);

describe('latestUsableOpenRound', () => {
  const rounds = [round(10, '2025-01-01T00:00:00Z'), round(12, '2025-01-01T00:20:00Z'), round(11, '2025-01-01T00:10:00Z')];

  it('is the highest-numbered round that has opened', () => {
    expect(latestUsableOpenRound(rounds, at('2025-01-01T00:15:00Z'))).toBe(rounds[2]);
    expect(latestUsableOpenRound(rounds, at('2025-01-01T00:20:00Z'))).toBe(rounds[1]);
    expect(latestUsableOpenRound(rounds, at('2025-01-01T00:00:00Z'))).toBe(rounds[0]);
  });

  it('is undefined before any has opened, and without rounds', () => {
    expect(latestUsableOpenRound(rounds, at('2024-12-31T23:59:59Z'))).toBeUndefined();
    expect(latestUsableOpenRound([], at('2025-01-01T00:00:00Z'))).toBeUndefined();
  });
});

// How long a factory's answer may be kept: until the round or the synchronizer chosen may change with time alone.
describe('nextRoundOpening', () => {
  const rounds = [round(10, '2025-01-01T00:00:00Z'), round(12, '2025-01-01T00:20:00Z'), round(11, '2025-01-01T00:10:00Z')];

  it('is the first opening after now, which latestUsableOpenRound changes at', () => {
    expect(nextRoundOpening(rounds, at('2024-12-31T00:00:00Z'))).toBe(at('2025-01-01T00:00:00Z'));
    expect(nextRoundOpening(rounds, at('2025-01-01T00:00:00Z'))).toBe(at('2025-01-01T00:10:00Z'));
    expect(nextRoundOpening(rounds, at('2025-01-01T00:15:00Z'))).toBe(at('2025-01-01T00:20:00Z'));
    const now = at('2025-01-01T00:15:00Z');
    const until = nextRoundOpening(rounds, now)!;
    expect(latestUsableOpenRound(rounds, until - 1n)).toBe(latestUsableOpenRound(rounds, now));
    expect(latestUsableOpenRound(rounds, until)).not.toBe(latestUsableOpenRound(rounds, now));
  });

  it('is undefined once every round has opened', () => {
    expect(nextRoundOpening(rounds, at('2025-01-01T00:20:00Z'))).toBeUndefined();
    expect(nextRoundOpening([], 0n)).toBeUndefined();
  });
});

describe('activeSynchronizer', () => {
  const config = (sync: string) => ({ decentralizedSynchronizer: { activeSynchronizer: sync } });
  const rules = {
    configSchedule: {
      initialValue: config('a::1'),
      futureValues: [
        { _1: '2025-02-01T00:00:00Z', _2: config('c::3') },
        { _1: '2025-01-01T00:00:00Z', _2: config('b::2') },
      ],
    },
  };

  it('takes the last future value whose time has come, else the initial one', () => {
    expect(activeSynchronizer(rules, at('2024-12-31T00:00:00Z'))).toBe('a::1');
    expect(activeSynchronizer(rules, at('2025-01-01T00:00:00Z'))).toBe('b::2');
    expect(activeSynchronizer(rules, at('2025-03-01T00:00:00Z'))).toBe('c::3');
    expect(
      activeSynchronizer(
        { configSchedule: { initialValue: config('a::1'), futureValues: [['2025-01-01T00:00:00Z', config('p::9')]] } },
        at('2026-01-01T00:00:00Z'),
      ),
    ).toBe('p::9');
  });

  it('changes at the first future value after now (nextConfigChange), whatever the order of the list', () => {
    expect(nextConfigChange(rules, at('2024-12-31T00:00:00Z'))).toBe(at('2025-01-01T00:00:00Z'));
    expect(nextConfigChange(rules, at('2025-01-01T00:00:00Z'))).toBe(at('2025-02-01T00:00:00Z'));
    expect(nextConfigChange(rules, at('2025-02-01T00:00:00Z'))).toBeUndefined();
    expect(nextConfigChange({ configSchedule: { futureValues: [['2025-01-01T00:00:00Z', config('p::9')]] } }, 0n)).toBe(
      at('2025-01-01T00:00:00Z'),
    );
    const until = nextConfigChange(rules, at('2025-01-15T00:00:00Z'))!;
    expect(activeSynchronizer(rules, until - 1n)).toBe('b::2');
    expect(activeSynchronizer(rules, until)).toBe('c::3');
  });

  it('names the field of a payload of the wrong shape', () => {
    expect(() => activeSynchronizer({ configSchedule: { initialValue: {}, futureValues: [] } }, 0n)).toThrow(
      'AmuletRules payload: expected a record at decentralizedSynchronizer.activeSynchronizer',
    );
  });
});

describe('locks of two-step transfers', () => {
  it('reads the locked amulet and the deadline', () => {
    expect(transferInstructionLock({ lockedAmulet: '00aa', transfer: { executeBefore: '2025-01-01T00:00:01Z' } })).toEqual({
      lockedAmulet: '00aa',
      expiresAt: at('2025-01-01T00:00:01Z'),
    });
    expect(
      allocationLock({ lockedAmulet: '00bb', allocation: { settlement: { settleBefore: '2025-01-02T00:00:00Z', executor: 'x::1' } } }),
    ).toEqual({ lockedAmulet: '00bb', expiresAt: at('2025-01-02T00:00:00Z'), executor: 'x::1' });
  });

  it('reads an AmuletAllocationV2, whose lock is optional, with its expiry', () => {
    expect(allocationV2Lock({ lockedAmulet: '00cc', expiresAt: '2025-01-03T00:00:00Z' })).toEqual({
      lockedAmulet: '00cc',
      expiresAt: at('2025-01-03T00:00:00Z'),
    });
    expect(allocationV2Lock({ lockedAmulet: null, expiresAt: '2025-01-03T00:00:00Z' })).toBeUndefined();
    expect(() => allocationV2Lock({ lockedAmulet: 7, expiresAt: '2025-01-03T00:00:00Z' })).toThrow(
      'AmuletAllocationV2 payload: expected a contract id or null at lockedAmulet',
    );
  });
});

// Scan's TokenStandardConfig.SettlementConfig: legs, then distinct account owners (none for special accounts).
describe('the size of a V2 settlement or allocation', () => {
  const account = (owner: string | null) => ({ owner });
  const leg = (sender: string | null, receiver: string | null) => ({ sender: account(sender), receiver: account(receiver) });

  it("counts a settlement's legs and the distinct owners of their senders and receivers", () => {
    expect(settleBatchSize([leg('a', 'b'), leg('c', 'a')])).toEqual({ legs: 2, parties: 3 });
    expect(settleBatchSize([leg('a', 'b'), leg('c', 'd')])).toEqual({ legs: 2, parties: 4 });
    expect(settleBatchSize([leg(null, 'b'), leg('b', null)])).toEqual({ legs: 2, parties: 1 });
    expect(settleBatchSize([])).toEqual({ legs: 0, parties: 0 });
  });

  it("counts an allocation's leg sides and the distinct owners of their other sides, not the authorizer", () => {
    expect(allocateSize([{ otherside: account('b') }, { otherside: account('c') }, { otherside: account('b') }])).toEqual({
      legs: 3,
      parties: 2,
    });
    expect(allocateSize([{ otherside: account(null) }])).toEqual({ legs: 1, parties: 0 });
  });

  it("refuses more legs, then more parties, than allowed, in Scan's words", () => {
    const limits = { maxLegs: 2, maxParties: 3 };
    expect(sizeRefusal({ legs: 2, parties: 3 }, limits)).toBeUndefined();
    expect(sizeRefusal({ legs: 3, parties: 9 }, limits)).toBe('Too many transfer legs in the settle batch: 3. Maximum allowed: 2');
    expect(sizeRefusal({ legs: 1, parties: 4 }, limits)).toBe('Too many parties in the settle batch: 4. Maximum allowed: 3');
  });
});

describe('latestConfigState', () => {
  const state = (name: string, targetArchiveAfter: string) => ({ contract: name, payload: { targetArchiveAfter } });
  const older = state('older', '2025-01-02T00:00:00Z');
  const newer = state('newer', '2025-01-03T00:00:00Z');

  it("is the newer of the DSO's pair by targetArchiveAfter, whatever the order", () => {
    expect([latestConfigState([older, newer]), latestConfigState([newer, older])]).toEqual(['newer', 'newer']);
  });

  it('is none unless there are exactly two, as on Scan', () => {
    expect([
      latestConfigState([]),
      latestConfigState([newer]),
      latestConfigState([older, newer, state('third', '2025-01-04T00:00:00Z')]),
    ]).toEqual([undefined, undefined, undefined]);
  });

  it('names the field of a payload without it', () => {
    expect(() => latestConfigState([older, { contract: 'bad', payload: {} }])).toThrow(/targetArchiveAfter/);
  });
});
