/**
 * The holding fee of an amulet, as Scan's holdings summary computes it
 * (Splice `SpliceUtil.holdingFee`; docs/interfaces.md, "Scan: holdings"):
 *
 *   fee(amulet, R) = min(initialAmount, roundHalfEven10((R − createdAt.number) × ratePerRound.rate))
 *
 * - No clamping at zero: an amulet created after round R has a negative fee.
 * - The fee never exceeds the amount it is charged on (an amulet held long
 *   enough has lost all of its value, not more).
 * - Amounts have ten fractional digits; rendering is formatDecimal's.
 *
 * The summaries aggregate this rule in SQL (HOLDING_FEE_SQL in
 * src/store/holdings-repository.ts, over the contracts table's typed columns).
 * test/integration/scan/holding-fees-sql.test.ts checks that the two agree.
 * Without the min, the fees of many amulets are R × Σ rate − Σ createdAt × rate:
 * summaries read those sums per owner (holding_totals) and apply the rule itself
 * only to the amulets whose min can bind as of R, those with
 * createdAt + floor(initialAmount / rate) + 1 <= R.
 */
import { decimalOf, minDecimal, mulDecimal, type Decimal10 } from './decimal';

export interface AmuletAmount {
  initialAmount: Decimal10;
  /** ExpiringAmount.createdAt.number */
  createdRound: bigint;
  /** ExpiringAmount.ratePerRound.rate */
  ratePerRound: Decimal10;
}

/** Holding fee of one amulet as of round `asOfRound`. */
export function holdingFee(amount: AmuletAmount, asOfRound: bigint): Decimal10 {
  // Rounds × rate, rounded half-even to ten digits (exact when the rate has at most ten).
  const accrued = mulDecimal(decimalOf(asOfRound - amount.createdRound), amount.ratePerRound);
  return minDecimal(amount.initialAmount, accrued);
}

export interface HoldingsTotals {
  unlocked: Decimal10;
  locked: Decimal10;
  feesUnlocked: Decimal10;
  feesLocked: Decimal10;
}

/** The v0 summary figures of one owner (as Splice's HoldingsSummary folds them), in key order. */
export function summaryFigures(t: HoldingsTotals) {
  return {
    total_unlocked_coin: t.unlocked,
    total_locked_coin: t.locked,
    total_coin_holdings: t.unlocked + t.locked,
    accumulated_holding_fees_unlocked: t.feesUnlocked,
    accumulated_holding_fees_locked: t.feesLocked,
    accumulated_holding_fees_total: t.feesUnlocked + t.feesLocked,
    total_available_coin: t.unlocked - t.feesUnlocked,
  };
}
