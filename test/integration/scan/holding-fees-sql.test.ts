/**
 * The holding-fee rule exists twice, in TypeScript (holdingFee) and in SQL
 * (HOLDING_FEE_SQL, which the summaries aggregate): they must agree on every
 * edge case of the rule.
 */
import { sql } from 'kysely';
import { formatDecimal, parseDecimal } from '../../../src/domain/decimal';
import { holdingFee } from '../../../src/domain/holding-fees';
import { HOLDING_FEE_SQL } from '../../../src/store/holdings-repository';
import { useTestDatabase } from '../../support/database/database';

const cases: [amount: string, createdRound: number, rate: string, asOfRound: number][] = [
  ['100.0000000000', 10, '0.0038051800', 10], // zero
  ['100.0000000000', 10, '0.0038051800', 11],
  ['1250.5000000000', 24500, '0.0038051800', 24513],
  ['300.0000000000', 24520, '0.0038051800', 24513], // negative
  ['0.5000000000', 0, '0.0100000000', 100], // beyond the amount: capped
  ['2.0000000000', 0, '1.0000000000', 2], // exactly the amount
  ['0.0000000001', 0, '0.0000000001', 1],
  ['99999999999.9999999999', 0, '0.0000000001', 9_007_199_254_740_991],
  ['5.0000000000', 3, '0.0000000000', 1_000], // no rate
];

describe('HOLDING_FEE_SQL', () => {
  const t = useTestDatabase();

  it.each(cases)('agrees with holdingFee for %s, round %i, rate %s, as of %i', async (amount, createdRound, rate, asOfRound) => {
    const row = await sql<{ fee: string }>`
      with as_of as (select ${String(asOfRound)}::bigint as round),
           c as (select ${amount}::numeric(38, 10) as amulet_initial_amount, ${createdRound}::bigint as amulet_created_round,
                        ${rate}::numeric(38, 10) as amulet_rate_per_round)
      select (${sql.raw(HOLDING_FEE_SQL)})::text as fee from c cross join as_of`.execute(t.db);
    const expected = holdingFee(
      { initialAmount: parseDecimal(amount), createdRound: BigInt(createdRound), ratePerRound: parseDecimal(rate) },
      BigInt(asOfRound),
    );
    expect(formatDecimal(parseDecimal(row.rows[0]!.fee))).toBe(formatDecimal(expected));
  });
});
