import { missingRewardInputs } from '../../../src/domain/reward-accounting-inputs';

describe('missingRewardInputs', () => {
  it('names the CIP-0104 fields an OpenMiningRound lacks, absent or None (null)', () => {
    const both = { trafficPrice: '60.0000000000', rewardConfig: { appRewardCouponThreshold: '0.5000000000', batchSize: '100' } };
    expect(missingRewardInputs(both)).toEqual([]);
    expect(missingRewardInputs({ amuletPrice: '0.0050000000' })).toEqual(['trafficPrice', 'rewardConfig']);
    expect(missingRewardInputs({ trafficPrice: '60.0000000000', rewardConfig: null })).toEqual(['rewardConfig']);
    expect(missingRewardInputs({ trafficPrice: null, rewardConfig: both.rewardConfig })).toEqual(['trafficPrice']);
  });

  it('reads anything that is no record as lacking both', () => {
    for (const payload of [null, '60', [], 7]) expect(missingRewardInputs(payload)).toEqual(['trafficPrice', 'rewardConfig']);
  });
});
