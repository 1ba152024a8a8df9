/**
 * The Scan's parsed transaction history, deprecated and then removed by Splice (scan.yaml, tag
 * `deprecated`), served from the activity projection:
 *       POST /v0/transactions
 *
 * As the Scan's HttpScanHandler.listTransactionHistory and its tx log (ScanTxLogParser, TxLogEntry) of
 * the last release that had it: transfers, mints and DevNet taps, ascending unless `desc`, a page
 * strictly after (or before) the item whose event id (`#<update id>:<node>`) ends the previous page,
 * and no items when that event id is not one of them. A transfer shows its sender's summary figures,
 * its receivers merged by party in the order of their first output (the sender too, when it paid
 * itself), and the summary's balance changes sorted by party. Not shown: the participant's `offset`,
 * which this indexer cannot know; the transfer `description` and `transfer_kind` of token-standard and
 * preapproval transfers, and `abort_transfer_instruction` items, which the projection does not derive.
 */
import { Router } from 'express';
import { z } from 'zod';
import { formatDateTime } from '../../domain/time';
import { findTransactionPosition, listTransactionHistory, type StoredTransaction } from '../../store/transaction-history-repository';
import type { ApiContext } from '../context';
import { heavyRequest } from '../fair-access/heavy-requests';
import { sendJson } from '../json-response';
import { mountOperations, operation, type OperationOf } from '../operation';
import { pageLimit } from '../page-limit';
import { scanErrors } from './error-answers';
import { int64 } from './params';

const TransactionHistoryRequest = z
  .object({
    page_end_event_id: z
      .string({ error: 'expected a string' })
      .optional()
      .describe(
        'The event_id of the last item of the previous page: this page starts after it, in the same sort_order. Omitted (or empty): from the start, or the end for desc.',
      ),
    sort_order: z
      .enum(['asc', 'desc'], { error: 'expected asc or desc' })
      .optional()
      .describe('asc (default): oldest first; desc: newest first.'),
    page_size: int64.describe('The most items returned.'),
  })
  .meta({ id: 'TransactionHistoryRequest' });

const decimal = z.string();

const SenderAmount = z
  .object({
    party: z.string(),
    input_amulet_amount: decimal.optional(),
    input_app_reward_amount: decimal.optional(),
    input_validator_reward_amount: decimal.optional(),
    input_sv_reward_amount: decimal.optional(),
    input_validator_faucet_amount: decimal.optional(),
    sender_change_fee: decimal,
    sender_change_amount: decimal,
    sender_fee: decimal,
    holding_fees: decimal,
  })
  .meta({ id: 'SenderAmount' });

const ReceiverAmount = z.object({ party: z.string(), amount: decimal, receiver_fee: decimal }).meta({ id: 'ReceiverAmount' });

const BalanceChange = z
  .object({ party: z.string(), change_to_initial_amount_as_of_round_zero: decimal, change_to_holding_fees_rate: decimal })
  .meta({ id: 'BalanceChange' });

const Transfer = z
  .object({
    sender: SenderAmount,
    receivers: z.array(ReceiverAmount),
    balance_changes: z.array(BalanceChange),
    description: z.string().optional(),
    transferInstructionReceiver: z.string().optional(),
    transferInstructionAmount: z.string().optional(),
    transferInstructionCid: z.string().optional(),
    transfer_kind: z.enum(['create_transfer_instruction', 'transfer_instruction_accept', 'preapproval_send']).optional(),
  })
  .meta({ id: 'Transfer' });

const AmuletAmount = z.object({ amulet_owner: z.string(), amulet_amount: decimal }).meta({ id: 'AmuletAmount' });

const AbortTransferInstruction = z
  .object({ abort_kind: z.enum(['withdraw', 'reject']), transfer_instruction_cid: z.string() })
  .meta({ id: 'AbortTransferInstruction' });

const TransactionHistoryResponseItem = z
  .object({
    transaction_type: z.enum(['transfer', 'mint', 'devnet_tap', 'abort_transfer_instruction']),
    event_id: z.string(),
    offset: z.string().optional().describe("The SV participant's ledger offset: never set here."),
    date: z.string().meta({ format: 'date-time' }).describe('The effective time of the transaction.'),
    domain_id: z.string().describe('The synchronizer of the transaction.'),
    round: z.number().int().optional().meta({ format: 'int64' }),
    transfer: Transfer.optional(),
    mint: AmuletAmount.optional(),
    tap: AmuletAmount.optional(),
    abort_transfer_instruction: AbortTransferInstruction.optional(),
  })
  .meta({ id: 'TransactionHistoryResponseItem' });

const TransactionHistoryResponse = z
  .object({ transactions: z.array(TransactionHistoryResponseItem) })
  .meta({ id: 'TransactionHistoryResponse' });

type Item = z.input<typeof TransactionHistoryResponseItem>;

const ZERO = '0.0000000000';

/** An event id as this operation writes it, `#<update id>:<node>` (the `#` may be left out); else undefined. */
function parseEventId(text: string): { updateId: string; node: number } | undefined {
  const m = /^#?(.+):(\d{1,9})$/.exec(text);
  return m ? { updateId: m[1]!, node: Number(m[2]) } : undefined;
}

function itemOf(t: StoredTransaction): Item {
  const head = { event_id: `#${t.updateId}:${t.node}`, date: formatDateTime(t.date), domain_id: t.synchronizerId };
  const amulet = { amulet_owner: t.party, amulet_amount: t.amount };
  // The Scan gave no round for a mint.
  if (t.kind === 'mint') return { transaction_type: 'mint', ...head, mint: amulet };
  const round = t.round ?? undefined;
  if (t.kind === 'tap' || !t.transfer) return { transaction_type: 'devnet_tap', ...head, round, tap: amulet };
  const x = t.transfer;
  const receivers = x.receivers.map((r) => ({ party: r.party, amount: r.amount, receiver_fee: r.fees }));
  if (x.self) receivers.splice(x.self.rank, 0, { party: x.self.party, amount: x.self.amount, receiver_fee: x.self.fees });
  return {
    transaction_type: 'transfer',
    ...head,
    round,
    transfer: {
      sender: {
        party: t.party,
        ...(x.inputAmulet === null ? {} : { input_amulet_amount: x.inputAmulet }),
        input_app_reward_amount: x.rewards.app_reward ?? ZERO,
        input_validator_reward_amount: x.rewards.validator_reward ?? ZERO,
        input_sv_reward_amount: x.rewards.sv_reward ?? ZERO,
        input_validator_faucet_amount: x.rewards.validator_faucet ?? ZERO,
        sender_change_fee: x.changeFee ?? ZERO,
        sender_change_amount: x.changeAmount ?? ZERO,
        sender_fee: x.senderFee ?? ZERO,
        holding_fees: x.holdingFees,
      },
      receivers,
      balance_changes: x.balanceChanges
        .map((b) => ({
          party: b.party,
          change_to_initial_amount_as_of_round_zero: b.changeToInitialAmountAsOfRoundZero,
          change_to_holding_fees_rate: b.changeToHoldingFeesRate,
        }))
        .sort((a, b) => (a.party < b.party ? -1 : a.party > b.party ? 1 : 0)),
    },
  };
}

const listTransactions = operation({
  method: 'post',
  path: '/v0/transactions',
  summary:
    'Deprecated (use /v2/updates): transfers, mints and DevNet taps, parsed, oldest first unless sort_order is desc, paged by the last event_id of the previous page.',
  deprecated: true,
  request: { body: TransactionHistoryRequest },
  responses: { '200': { description: 'OK', body: TransactionHistoryResponse }, ...scanErrors(400, 500, 503) },
  before: (context: ApiContext) => [heavyRequest(context, { pageSize: 'page_size' })],
  handle: async ({ db }: ApiContext, { body }, _req, res) => {
    const limit = pageLimit(body.page_size);
    const order = body.sort_order ?? 'asc';
    let after;
    if (body.page_end_event_id) {
      const id = parseEventId(body.page_end_event_id);
      after = id && (await findTransactionPosition(db, id.updateId, id.node));
      // As the Scan: an event id that ends no item's page ends every page.
      if (!after) {
        sendJson(res, { transactions: [] });
        return;
      }
    }
    const found = await listTransactionHistory(db, { after, order, limit });
    sendJson(res, { transactions: found.map(itemOf) } satisfies z.input<typeof TransactionHistoryResponse>);
  },
});

export const transactionsOperations: readonly OperationOf<ApiContext>[] = [listTransactions];

export function transactionsRoutes(context: ApiContext): Router {
  return mountOperations(Router(), transactionsOperations, context);
}
