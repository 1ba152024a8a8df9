import { formatDecimal, parseDecimal } from '../../../src/domain/decimal';
import { holdingFee, summaryFigures } from '../../../src/domain/holding-fees';

const fee = (initialAmount: string, createdRound: number | bigint, rate: string, asOf: number | bigint) =>
  formatDecimal(
    holdingFee(
      { initialAmount: parseDecimal(initialAmount), createdRound: BigInt(createdRound), ratePerRound: parseDecimal(rate) },
      BigInt(asOf),
    ),
  );

describe('holding fee (SpliceUtil.holdingFee)', () => {
  it('is rounds elapsed times the rate, with ten fractional digits', () => {
    expect(fee('1250.5', 24500, '0.0038051800', 24513)).toBe('0.0494673400');
    expect(fee('100', 1, '0.0000190259', 2)).toBe('0.0000190259');
  });

  it('is zero in the creation round, rendered with ten zeros', () => {
    expect(fee('100.0000000000', 7, '0.0038051800', 7)).toBe('0.0000000000');
  });

  it('keeps trailing zeros and a zero integer part', () => {
    expect(fee('10', 0, '0.1', 5)).toBe('0.5000000000');
    expect(fee('10', 0, '0.0000000001', 1)).toBe('0.0000000001');
    expect(fee('10', 0, '2', 3)).toBe('6.0000000000');
  });

  it('is negative, not clamped at zero, for an amulet created after the round', () => {
    // A locked amulet of round 24520 summarised as of 24513.
    expect(fee('300', 24520, '0.0038051800', 24513)).toBe('-0.0266362600');
  });

  it('never exceeds the amount it is charged on', () => {
    expect(fee('1.5', 0, '0.0038051800', 1_000_000)).toBe('1.5000000000');
    expect(fee('0.0000000001', 0, '0.0038051800', 2)).toBe('0.0000000001');
    // Exactly the amount: the minimum of two equal values.
    expect(fee('2', 0, '1', 2)).toBe('2.0000000000');
  });

  it('handles rounds beyond 2^53', () => {
    expect(fee('1000000', 0, '0.0000000001', 2n ** 53n + 1n)).toBe('900719.9254740993');
  });
});

describe('summary figures', () => {
  it('totals and available coin follow the Scan fold (HoldingsSummary)', () => {
    const d = parseDecimal;
    const f = summaryFigures({ unlocked: d('1250.5'), locked: d('300'), feesUnlocked: d('0.25'), feesLocked: d('-0.0266362600') });
    expect(Object.fromEntries(Object.entries(f).map(([k, v]) => [k, formatDecimal(v)]))).toEqual({
      total_unlocked_coin: '1250.5000000000',
      total_locked_coin: '300.0000000000',
      total_coin_holdings: '1550.5000000000',
      accumulated_holding_fees_unlocked: '0.2500000000',
      accumulated_holding_fees_locked: '-0.0266362600',
      accumulated_holding_fees_total: '0.2233637400',
      total_available_coin: '1250.2500000000',
    });
    // Locked fees do not reduce the available coin; negative unlocked fees raise it.
    expect(Object.keys(f)).toEqual([
      'total_unlocked_coin',
      'total_locked_coin',
      'total_coin_holdings',
      'accumulated_holding_fees_unlocked',
      'accumulated_holding_fees_locked',
      'accumulated_holding_fees_total',
      'total_available_coin',
    ]);
    expect(
      formatDecimal(summaryFigures({ unlocked: d('1'), locked: 0n, feesUnlocked: d('-0.5'), feesLocked: 0n }).total_available_coin),
    ).toBe('1.5000000000');
  });
});
