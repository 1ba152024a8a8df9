/** The simulator source in backfill mode: SIMULATOR_RATE spreads the updates over ledger time. */
import { createSimulatorSource } from '../../../src/ingest/sources/simulator-source';
import { parseTimestamp } from '../../../src/domain/time';

async function recordTimes(ratePerSecond: number): Promise<bigint[]> {
  const source = createSimulatorSource({ seed: 5, mode: 'backfill', updates: 400, ratePerSecond });
  const times: bigint[] = [];
  for await (const { item } of source.read(undefined, new AbortController().signal)) {
    const t = item.update?.record_time;
    if (t && !t.startsWith('0001-')) times.push(parseTimestamp(t));
  }
  return times;
}

describe('simulator source (backfill)', () => {
  it('spaces updates by the configured rate of ledger time', async () => {
    for (const rate of [2, 0.1]) {
      const times = await recordTimes(rate);
      const meanGapSeconds = Number(times.at(-1)! - times[0]!) / 1e6 / (times.length - 1);
      expect({ rate, meanGapSeconds: Math.round(meanGapSeconds / (1 / rate)) }).toEqual({ rate, meanGapSeconds: 1 });
    }
  });
});
