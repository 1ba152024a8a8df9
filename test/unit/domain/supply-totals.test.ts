/**
 * The issuance curve's amount per round (Splice.Issuance.computeIssuingRoundParameters' amuletsToIssueInRound),
 * in Daml Decimal steps, and the flows summed per activity kind. Expected values were computed by hand
 * with Python's decimal module (half-even, 10 digits at each step).
 */
import { PayloadShapeError } from '../../../src/domain/dso-state';
import { parseDecimal } from '../../../src/domain/decimal';
import type { Json } from '../../../src/domain/json';
import { addTotals, flowsOfKinds, roundIssuance, totalMinted, zeroTotals } from '../../../src/domain/supply-totals';

const round = (perYear: string, tickMicros: string) => ({
  issuanceConfig: { amuletToIssuePerYear: perYear, validatorRewardPercentage: '0.05' },
  tickDuration: { microseconds: tickMicros },
});

describe('supply totals', () => {
  it("computes a round's issuance as Daml does: 365 days / tickDuration, then amuletToIssuePerYear over that, each rounded half-even", () => {
    const cases: [string, string, string][] = [
      ['40000000000.0000000000', '600000000', '761035.0076103501'],
      ['40000000000.0000000000', '3600000000', '4566210.0456621005'],
      // Two roundings: dividing once (40e9 × 76 s / 365 days) would give …443.
      ['40000000000.0000000000', '76000000', '96397.7676306444'],
      ['12345678901.5', '46000000', '18008.0298537862'],
    ];
    for (const [perYear, tick, expected] of cases) {
      expect({ perYear, tick, issuance: roundIssuance('SummarizingMiningRound', round(perYear, tick)) }).toEqual({
        perYear,
        tick,
        issuance: parseDecimal(expected),
      });
    }
  });

  it('refuses a configuration it cannot read', () => {
    const payloads: Json[] = [
      {},
      round('x', '600000000'),
      round('1.0', '0'),
      round('1.0', '-5'),
      { issuanceConfig: {}, tickDuration: { microseconds: '1' } },
    ];
    for (const payload of payloads) {
      expect(() => roundIssuance('SummarizingMiningRound', payload)).toThrow(PayloadShapeError);
    }
  });

  it('sums flows per kind as the daily series splits them, and adds totals (an unknown allowed mint stays unknown)', () => {
    const flows = flowsOfKinds([
      { kind: 'tap', amount: '10', burned: '0', holdingFees: '0' },
      { kind: 'app_reward', amount: '2.5', burned: '0', holdingFees: '0' },
      { kind: 'transfer', amount: '100', burned: '1.25', holdingFees: '0.25' },
      { kind: 'traffic_purchase', amount: '3', burned: '3.5', holdingFees: '0.1' },
      { kind: 'ans_entry', amount: '1', burned: '1', holdingFees: '0' },
      { kind: 'lock', amount: '50', burned: '0', holdingFees: '0' },
    ]);
    expect(flows).toEqual({
      ...zeroTotals(),
      minted: { ...zeroTotals().minted, tap: parseDecimal('10'), app_reward: parseDecimal('2.5') },
      burned: parseDecimal('5.75'),
      holdingFees: parseDecimal('0.35'),
      traffic: parseDecimal('3'),
      ans: parseDecimal('1'),
    });
    expect(totalMinted(flows)).toBe(parseDecimal('12.5'));
    const sum = addTotals(flows, { ...flows, allowedMint: 7n, issuingRounds: 2 });
    expect({ burned: sum.burned, tap: sum.minted.tap, allowed: sum.allowedMint, rounds: sum.issuingRounds }).toEqual({
      burned: parseDecimal('11.5'),
      tap: parseDecimal('20'),
      allowed: 7n,
      rounds: 2,
    });
    expect(addTotals(sum, { ...zeroTotals(), allowedMint: null }).allowedMint).toBeNull();
  });
});
