/**
 * What the Scan app's transaction log records of the legacy TransferCommand
 * workflow of external parties (its TransferCommandTxLogEntry), read from the
 * exercise that created, sent, withdrew or expired a command (compact_json),
 * and the status `transfer-command/status` reports for the latest of them.
 */
import type { Json } from './json';

export const TRANSFER_COMMAND_CHOICES = {
  create: {
    qualifiedName: 'Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules',
    choice: 'ExternalPartyAmuletRules_CreateTransferCommand',
  },
  send: { qualifiedName: 'Splice.ExternalPartyAmuletRules:TransferCommand', choice: 'TransferCommand_Send' },
  withdraw: { qualifiedName: 'Splice.ExternalPartyAmuletRules:TransferCommand', choice: 'TransferCommand_Withdraw' },
  expire: { qualifiedName: 'Splice.ExternalPartyAmuletRules:TransferCommand', choice: 'TransferCommand_Expire' },
} as const;

export type TransferCommandState = 'created' | 'sent' | 'failed' | 'withdrawn' | 'expired';

export interface TransferCommandEvent {
  contractId: string;
  sender: string;
  nonce: string;
  state: TransferCommandState;
  /** Why a send failed (`failed` only). */
  reason: string | null;
}

type Variant = { tag?: unknown; value?: unknown };

const INT64 = /^-?\d+$/;

function senderAndNonce(record: { sender?: unknown; nonce?: unknown }, what: string): { sender: string; nonce: string } {
  if (typeof record.sender !== 'string' || typeof record.nonce !== 'string' || !INT64.test(record.nonce)) {
    throw new Error(`${what} needs a sender and an integer nonce`);
  }
  return { sender: record.sender, nonce: record.nonce };
}

/**
 * An InvalidTransferReason as the Scan app prints it (the Java value's toString): the constructor
 * and its field values, e.g. `ITR_Other(No TransferPreapproval for receiver 'alice::1220…')`.
 */
export function transferFailureReason(reason: Json): string {
  const v = reason as Variant;
  if (typeof v.tag !== 'string') return JSON.stringify(reason);
  const value = v.value;
  const fields =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.values(value as Record<string, Json>)
      : value === undefined
        ? []
        : [value as Json];
  return `${v.tag}(${fields.map((f) => (typeof f === 'string' ? f : JSON.stringify(f))).join(', ')})`;
}

/** The event of an exercise of one of TRANSFER_COMMAND_CHOICES; throws on a result without what it must hold. */
export function transferCommandEvent(
  choice: keyof typeof TRANSFER_COMMAND_CHOICES,
  exercised: { contractId: string; argument: Json; result: Json },
): TransferCommandEvent {
  if (choice === 'create') {
    const arg = exercised.argument as { sender?: unknown; nonce?: unknown };
    const cid = (exercised.result as { transferCommandCid?: unknown }).transferCommandCid;
    if (typeof cid !== 'string') throw new Error('ExternalPartyAmuletRules_CreateTransferCommand needs a transferCommandCid result');
    return { contractId: cid, ...senderAndNonce(arg, 'ExternalPartyAmuletRules_CreateTransferCommand'), state: 'created', reason: null };
  }
  const result = exercised.result as { sender?: unknown; nonce?: unknown; result?: Variant };
  const base = { contractId: exercised.contractId, ...senderAndNonce(result, TRANSFER_COMMAND_CHOICES[choice].choice) };
  if (choice === 'withdraw') return { ...base, state: 'withdrawn', reason: null };
  if (choice === 'expire') return { ...base, state: 'expired', reason: null };
  const outcome = result.result;
  if (outcome?.tag === 'TransferCommandResultSuccess') return { ...base, state: 'sent', reason: null };
  if (outcome?.tag === 'TransferCommandResultFailure') {
    const reason = (outcome.value as { reason?: Json } | undefined)?.reason;
    if (reason === undefined) throw new Error('TransferCommandResultFailure needs a reason');
    return { ...base, state: 'failed', reason: transferFailureReason(reason) };
  }
  throw new Error('TransferCommand_Send needs a TransferCommandResultSuccess or TransferCommandResultFailure result');
}

/** The status body of the latest event of a command (TransferCommandContractStatus). */
export function transferCommandStatusJson(state: TransferCommandState, reason: string | null) {
  switch (state) {
    case 'created':
    case 'sent':
      return { status: state };
    case 'withdrawn':
      return { status: 'failed', failure_kind: 'withdrawn', reason: 'The TransferCommand has been withdrawn by the sender' };
    case 'expired':
      return { status: 'failed', failure_kind: 'expired', reason: 'The TransferCommand has expired' };
    case 'failed':
      return { status: 'failed', failure_kind: 'failed', reason: reason ?? '' };
  }
}
