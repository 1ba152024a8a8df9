import { transferCommandEvent, transferCommandStatusJson, transferFailureReason } from '../../../src/domain/transfer-commands';

describe('TransferCommand events', () => {
  it('prints a failure reason as the Scan app does: the constructor and its field values', () => {
    expect(transferFailureReason({ tag: 'ITR_Other', value: "No TransferPreapproval for receiver 'alice::1220'" })).toBe(
      "ITR_Other(No TransferPreapproval for receiver 'alice::1220')",
    );
    expect(transferFailureReason({ tag: 'ITR_InsufficientFunds', value: { missingAmount: '1.5000000000' } })).toBe(
      'ITR_InsufficientFunds(1.5000000000)',
    );
    expect(transferFailureReason({ tag: 'ITR_UnknownSynchronizer', value: { synchronizerId: 's::1', extra: ['a'] } })).toBe(
      'ITR_UnknownSynchronizer(s::1, ["a"])',
    );
  });

  it('reads each step: the created command from the result, the others from the exercised contract', () => {
    const created = transferCommandEvent('create', {
      contractId: 'rules',
      argument: { sender: 'bob::1', nonce: '7' },
      result: { transferCommandCid: 'tc1' },
    });
    expect(created).toEqual({ contractId: 'tc1', sender: 'bob::1', nonce: '7', state: 'created', reason: null });
    const failed = transferCommandEvent('send', {
      contractId: 'tc1',
      argument: {},
      result: {
        result: { tag: 'TransferCommandResultFailure', value: { reason: { tag: 'ITR_Other', value: 'no' } } },
        sender: 'bob::1',
        nonce: '7',
      },
    });
    expect(failed).toEqual({ contractId: 'tc1', sender: 'bob::1', nonce: '7', state: 'failed', reason: 'ITR_Other(no)' });
    expect(
      transferCommandEvent('expire', { contractId: 'tc1', argument: { p: 'x' }, result: { sender: 'bob::1', nonce: '7' } }).state,
    ).toBe('expired');
    expect(() => transferCommandEvent('withdraw', { contractId: 'tc1', argument: {}, result: { sender: 'bob::1' } })).toThrow(
      'TransferCommand_Withdraw needs a sender and an integer nonce',
    );
    expect(() =>
      transferCommandEvent('send', {
        contractId: 'tc1',
        argument: {},
        result: { result: { tag: 'Other', value: {} }, sender: 'b', nonce: '1' },
      }),
    ).toThrow('TransferCommand_Send needs a TransferCommandResultSuccess or TransferCommandResultFailure result');
  });

  it('reports withdrawn and expired commands as failed, of their kind', () => {
    expect(transferCommandStatusJson('expired', null)).toEqual({
      status: 'failed',
      failure_kind: 'expired',
      reason: 'The TransferCommand has expired',
    });
    expect(transferCommandStatusJson('sent', null)).toEqual({ status: 'sent' });
  });
});
