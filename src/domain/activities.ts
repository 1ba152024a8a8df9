/**
 * The Amulet-level activities of a transaction, as the Scan app's transaction log used to record them
 * (its ScanTxLogParser and TxLogEntry): transfers, with the sender's and each receiver's figures and the
 * transfer's burn; mints and DevNet taps; the rewards a transfer claims (the input reward amounts of its
 * TransferSummary); amulet locked by a transfer output, and released by LockedAmulet_Unlock or
 * LockedAmulet_OwnerExpireLock; and traffic purchases (AmuletRules_BuyMemberTraffic). Read from the
 * exercise results in compact_json. Pure.
 *
 * Each activity gives one row per party it concerns: leg 0 is the party that acted (sender, owner,
 * claimant, buyer), legs 1.. the others (a transfer's receivers, in the order of their first output).
 * Unlike Scan's log, which tracks locked and unlocked amulet as one sum, locks and unlocks are rows of
 * their own, so that a party's history shows them.
 *
 * What the tree alone cannot tell is left out: the owner of a LockedAmulet released in a later
 * transaction is known only from its create, so an unlock names the owner of the amulet it creates (the
 * receiver, for a token-standard transfer instruction accepted or an allocation executed).
 */
import { parseDecimal, type Decimal10 } from './decimal';
import type { Json } from './json';
import type { CreatedEvent, ExercisedEvent, TransactionUpdate } from './items';

export const ACTIVITY_KINDS = [
  'transfer',
  'mint',
  'tap',
  'app_reward',
  'validator_reward',
  'sv_reward',
  'validator_faucet',
  'lock',
  'unlock',
  'owner_expire_lock',
  'traffic_purchase',
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

export interface Activity {
  /** The node of the exercise it comes from (its event id is `<update id>:<node>`). */
  node: number;
  kind: ActivityKind;
  /** 0: the party that acted; 1..: the others. */
  leg: number;
  party: string;
  /** The mining round, where the result names one. */
  round: bigint | null;
  /**
   * The party's amount: sent to others (a transfer's sender), received (a receiver), minted, claimed,
   * locked or released, paid for traffic.
   */
  amount: Decimal10;
  /** Fees the party paid: a sender's share of the output fees and its change fee; a receiver's share. */
  fees: Decimal10;
  /** The sender's holding fees on its inputs (transfers and traffic purchases). */
  holdingFees: Decimal10 | null;
  /** What the activity burned in all (on leg 0 only): holding, output and change fees, and traffic's price. */
  burned: Decimal10 | null;
  /** The other parties: a sender's receivers, a receiver's sender, a lock's holders. */
  counterparties: string[];
  /** The app provider of a transfer, and whether a featured-app right was used. */
  provider: string | null;
  featured: boolean | null;
  /** The choice of the exercise the activity's exercise is a child of (how it was reached); null at a root. */
  via: string | null;
  /** Traffic bought, in bytes (traffic purchases). */
  traffic: bigint | null;
}

/**
 * What the Scan's transaction history showed of a transfer beyond an activity's figures, kept beside its
 * rows (activitiesOf's `details`): the party's normalized balance change from the summary, and on the
 * sender's row the summary's input and change, the sender's fee as the Scan summed it, and the sender's
 * outputs to itself (the Scan listed the sender among the receivers, at the place of its first output).
 */
interface TransferDetail {
  /** summary.balanceChanges of the row's party; null when the summary has none for it. */
  balanceChange: { initialAmountAsOfRoundZero: Decimal10; holdingFeesRate: Decimal10 } | null;
  /** The sender's row only. */
  sender: {
    inputAmulet: Decimal10;
    changeAmount: Decimal10;
    changeFee: Decimal10;
    /** The sum over every output (the sender's own too) of its fee times (1 - receiverFeeRatio), each rounded. */
    senderFee: Decimal10;
    /** The sender's outputs to itself: amount, receiver fee, and its place among the distinct receivers. */
    self: { amount: Decimal10; fee: Decimal10; rank: number } | null;
  } | null;
}
export type TransferDetails = Map<Activity, TransferDetail>;

type Obj = Record<string, Json>;

function obj(value: Json | undefined, what: string): Obj {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${what} must be a record`);
  return value;
}

function text(value: Json | undefined, what: string): string {
  if (typeof value !== 'string') throw new Error(`${what} must be text`);
  return value;
}

function decimal(value: Json | undefined, what: string): Decimal10 {
  try {
    return parseDecimal(text(value, what));
  } catch (err) {
    throw new Error(`${what}: ${(err as Error).message}`, { cause: err });
  }
}

function list(value: Json | undefined, what: string): Json[] {
  if (!Array.isArray(value)) throw new Error(`${what} must be a list`);
  return value;
}

function roundOf(value: Json | undefined, what: string): bigint {
  const n = text(obj(value, what).number, `${what}.number`);
  if (!/^\d+$/.test(n)) throw new Error(`${what}.number must be a non-negative integer`);
  return BigInt(n);
}

/** The figures of a TransferSummary an activity reads. */
interface Summary {
  inputAmuletAmount: Decimal10;
  senderChangeAmount: Decimal10;
  balanceChanges: Map<string, { initialAmountAsOfRoundZero: Decimal10; holdingFeesRate: Decimal10 }>;
  inputAppRewardAmount: Decimal10;
  inputValidatorRewardAmount: Decimal10;
  inputSvRewardAmount: Decimal10;
  inputValidatorFaucetAmount: Decimal10;
  holdingFees: Decimal10;
  outputFees: Decimal10[];
  senderChangeFee: Decimal10;
}

function summaryOf(value: Json | undefined): Summary {
  const s = obj(value, 'summary');
  const faucet = s.inputValidatorFaucetAmount;
  return {
    // For the transfer's details only; absent is zero (a hand-made summary may leave them out).
    inputAmuletAmount: s.inputAmuletAmount === undefined ? 0n : decimal(s.inputAmuletAmount, 'summary.inputAmuletAmount'),
    senderChangeAmount: s.senderChangeAmount === undefined ? 0n : decimal(s.senderChangeAmount, 'summary.senderChangeAmount'),
    balanceChanges: balanceChangesOf(s.balanceChanges),
    inputAppRewardAmount: decimal(s.inputAppRewardAmount, 'summary.inputAppRewardAmount'),
    inputValidatorRewardAmount: decimal(s.inputValidatorRewardAmount, 'summary.inputValidatorRewardAmount'),
    // Added in later versions of the summary: absent is none.
    inputSvRewardAmount: s.inputSvRewardAmount === undefined ? 0n : decimal(s.inputSvRewardAmount, 'summary.inputSvRewardAmount'),
    inputValidatorFaucetAmount: faucet === undefined || faucet === null ? 0n : decimal(faucet, 'summary.inputValidatorFaucetAmount'),
    holdingFees: decimal(s.holdingFees, 'summary.holdingFees'),
    outputFees: list(s.outputFees, 'summary.outputFees').map((f, i) => decimal(f, `summary.outputFees[${i}]`)),
    senderChangeFee: decimal(s.senderChangeFee, 'summary.senderChangeFee'),
  };
}

/** summary.balanceChanges, a Daml map: pairs in compact JSON (an object is read too); absent is none. */
function balanceChangesOf(value: Json | undefined): Summary['balanceChanges'] {
  const out: Summary['balanceChanges'] = new Map();
  if (value === undefined || value === null) return out;
  const entries: [Json, Json][] = Array.isArray(value)
    ? value.map((pair, i) => {
        const p = list(pair, `summary.balanceChanges[${i}]`);
        return [p[0] ?? null, p[1] ?? null];
      })
    : Object.entries(obj(value, 'summary.balanceChanges'));
  for (const [key, change] of entries) {
    const party = text(key, 'summary.balanceChanges key');
    const c = obj(change, `summary.balanceChanges[${party}]`);
    out.set(party, {
      initialAmountAsOfRoundZero: decimal(c.changeToInitialAmountAsOfRoundZero, 'changeToInitialAmountAsOfRoundZero'),
      holdingFeesRate: decimal(c.changeToHoldingFeesRate, 'changeToHoldingFeesRate'),
    });
  }
  return out;
}

/** What a transfer burns: the holding fees of its inputs, its output fees and the sender's change fee. */
function transferBurn(s: Pick<Summary, 'holdingFees' | 'outputFees' | 'senderChangeFee'>): Decimal10 {
  let burned = s.holdingFees + s.senderChangeFee;
  for (const f of s.outputFees) burned += f;
  return burned;
}

const ONE = 10_000_000_000n;

/** A fee's share by ratio, at Daml's ten decimals (half to even, as the Scan app rounds). */
function share(fee: Decimal10, ratio: Decimal10): Decimal10 {
  const scaled = fee * ratio;
  const unit = 10_000_000_000n;
  const q = scaled / unit;
  const r = scaled % unit;
  const twice = 2n * (r < 0n ? -r : r);
  if (twice > unit || (twice === unit && q % 2n !== 0n)) return q + (scaled < 0n ? -1n : 1n);
  return q;
}

const NONE = {
  holdingFees: null,
  burned: null,
  counterparties: [] as string[],
  provider: null,
  featured: null,
  traffic: null,
};

/** The reward claims of a transfer's summary, by the party whose inputs they were. */
function rewardClaims(node: number, party: string, round: bigint, s: Summary, via: string | null): Activity[] {
  const claims: [ActivityKind, Decimal10][] = [
    ['app_reward', s.inputAppRewardAmount],
    ['validator_reward', s.inputValidatorRewardAmount],
    ['sv_reward', s.inputSvRewardAmount],
    ['validator_faucet', s.inputValidatorFaucetAmount],
  ];
  return claims
    .filter(([, amount]) => amount > 0n)
    .map(([kind, amount]) => ({ ...NONE, node, kind, leg: 0, party, round, amount, fees: 0n, via }));
}

interface Output {
  receiver: string;
  amount: Decimal10;
  receiverFeeRatio: Decimal10;
  lockHolders: string[] | null;
}

function outputOf(value: Json, i: number): Output {
  const o = obj(value, `outputs[${i}]`);
  const lock = o.lock === null || o.lock === undefined ? null : obj(o.lock, `outputs[${i}].lock`);
  return {
    receiver: text(o.receiver, `outputs[${i}].receiver`),
    amount: decimal(o.amount, `outputs[${i}].amount`),
    receiverFeeRatio: o.receiverFeeRatio === undefined ? 0n : decimal(o.receiverFeeRatio, `outputs[${i}].receiverFeeRatio`),
    lockHolders: lock === null ? null : list(lock.holders, `outputs[${i}].lock.holders`).map((h, j) => text(h, `lock.holders[${j}]`)),
  };
}

/** AmuletRules_Transfer: the transfer, its receivers, the locks of its outputs and the rewards it claims. */
function transferActivities(node: number, e: ExercisedEvent, via: string | null, details?: TransferDetails): Activity[] {
  const arg = obj(e.choice_argument, 'AmuletRules_Transfer argument');
  const transfer = obj(arg.transfer, 'transfer');
  const sender = text(transfer.sender, 'transfer.sender');
  const provider = text(transfer.provider, 'transfer.provider');
  const outputs = list(transfer.outputs, 'transfer.outputs').map(outputOf);
  const context = arg.context === undefined ? {} : obj(arg.context, 'context');
  const featured = context.featuredAppRight !== undefined && context.featuredAppRight !== null;
  const result = obj(e.exercise_result, 'AmuletRules_Transfer result');
  const round = roundOf(result.round, 'round');
  const summary = summaryOf(result.summary);
  if (summary.outputFees.length !== outputs.length) throw new Error('summary.outputFees must have one fee per output');

  let sent = 0n;
  let senderFees = summary.senderChangeFee;
  // The Scan's sender fee: each output's fee times (1 - ratio), rounded, summed.
  let scanSenderFee = 0n;
  const receivers = new Map<string, { amount: Decimal10; fees: Decimal10 }>();
  const distinctReceivers = new Set<string>();
  let self: { amount: Decimal10; fee: Decimal10; rank: number } | null = null;
  outputs.forEach((o, i) => {
    const fee = summary.outputFees[i]!;
    const receiverFee = share(fee, o.receiverFeeRatio);
    senderFees += fee - receiverFee;
    scanSenderFee += share(fee, ONE - o.receiverFeeRatio);
    distinctReceivers.add(o.receiver);
    if (o.receiver === sender) {
      senderFees += receiverFee;
      const before: { amount: Decimal10; fee: Decimal10; rank: number } | null = self;
      self = {
        amount: (before?.amount ?? 0n) + o.amount,
        fee: (before?.fee ?? 0n) + receiverFee,
        rank: before?.rank ?? distinctReceivers.size - 1,
      };
      return;
    }
    sent += o.amount;
    const r = receivers.get(o.receiver) ?? { amount: 0n, fees: 0n };
    receivers.set(o.receiver, { amount: r.amount + o.amount, fees: r.fees + receiverFee });
  });
  const common = { node, kind: 'transfer' as const, round, provider, featured, via, traffic: null };
  const rows: Activity[] = [
    {
      ...common,
      leg: 0,
      party: sender,
      amount: sent,
      fees: senderFees,
      holdingFees: summary.holdingFees,
      burned: transferBurn(summary),
      counterparties: [...receivers.keys()],
    },
  ];
  let leg = 1;
  for (const [party, r] of receivers) {
    rows.push({ ...common, leg: leg++, party, amount: r.amount, fees: r.fees, holdingFees: null, burned: null, counterparties: [sender] });
  }
  if (details) {
    const senderDetail = {
      inputAmulet: summary.inputAmuletAmount,
      changeAmount: summary.senderChangeAmount,
      changeFee: summary.senderChangeFee,
      senderFee: scanSenderFee,
      self,
    };
    rows.forEach((row, i) =>
      details.set(row, { balanceChange: summary.balanceChanges.get(row.party) ?? null, sender: i === 0 ? senderDetail : null }),
    );
  }
  outputs.forEach((o, i) => {
    if (o.lockHolders === null) return;
    rows.push({
      ...NONE,
      node,
      kind: 'lock',
      leg: i,
      party: o.receiver,
      round,
      amount: o.amount,
      fees: 0n,
      counterparties: o.lockHolders,
      via,
    });
  });
  return [...rows, ...rewardClaims(node, sender, round, summary, via)];
}

/** The amulet an AmuletCreateSummary names, created in this transaction. */
function createdAmulet(result: Json, created: ReadonlyMap<string, CreatedEvent>): { owner: string; amount: Decimal10; round: bigint } {
  const sum = obj(obj(result, 'result').amuletSum, 'amuletSum');
  const cid = text(sum.amulet, 'amuletSum.amulet');
  const amulet = created.get(cid);
  if (!amulet) throw new Error(`amulet ${cid} is not created in the transaction`);
  const args = obj(amulet.create_arguments, 'amulet');
  return {
    owner: text(args.owner, 'amulet.owner'),
    amount: decimal(obj(args.amount, 'amulet.amount').initialAmount, 'amulet.amount.initialAmount'),
    round: roundOf(sum.round, 'amuletSum.round'),
  };
}

/** Mint and tap (AmuletRules_Mint, AmuletRules_DevNet_Tap), unlock and owner-expire-lock: the amulet they create. */
function amuletCreation(
  node: number,
  kind: ActivityKind,
  e: ExercisedEvent,
  created: ReadonlyMap<string, CreatedEvent>,
  via: string | null,
): Activity {
  const a = createdAmulet(e.exercise_result, created);
  return { ...NONE, node, kind, leg: 0, party: a.owner, round: a.round, amount: a.amount, fees: 0n, via };
}

/** AmuletRules_BuyMemberTraffic: the provider pays for traffic; the summary's rewards are its claims. */
function trafficPurchase(node: number, e: ExercisedEvent, via: string | null): Activity[] {
  const arg = obj(e.choice_argument, 'AmuletRules_BuyMemberTraffic argument');
  const provider = text(arg.provider, 'provider');
  const trafficAmount = arg.trafficAmount;
  if (typeof trafficAmount !== 'string' || !/^\d+$/.test(trafficAmount)) throw new Error('trafficAmount must be a non-negative integer');
  const result = obj(e.exercise_result, 'AmuletRules_BuyMemberTraffic result');
  const round = roundOf(result.round, 'round');
  const summary = summaryOf(result.summary);
  const paid = decimal(result.amuletPaid, 'amuletPaid');
  let outputFees = 0n;
  for (const f of summary.outputFees) outputFees += f;
  return [
    {
      ...NONE,
      node,
      kind: 'traffic_purchase',
      leg: 0,
      party: provider,
      round,
      amount: paid,
      fees: outputFees + summary.senderChangeFee,
      holdingFees: summary.holdingFees,
      burned: paid + transferBurn(summary),
      via,
      traffic: BigInt(trafficAmount),
    },
    ...rewardClaims(node, provider, round, summary, via),
  ];
}

const nodeOf = (eventId: string): number => Number(eventId.slice(eventId.lastIndexOf(':') + 1));

/** The exercises an activity is read from, by choice; the others are walked through. */
const CHOICES = new Set([
  'AmuletRules_Transfer',
  'AmuletRules_Mint',
  'AmuletRules_DevNet_Tap',
  'LockedAmulet_Unlock',
  'LockedAmulet_OwnerExpireLock',
  'AmuletRules_BuyMemberTraffic',
]);

/** Whether a transaction has any exercise an activity is read from: most have none, and are not walked. */
function mayHaveActivities(tx: TransactionUpdate): boolean {
  for (const id in tx.events_by_id) {
    const e = tx.events_by_id[id]!;
    if (e.event_type === 'exercised_event' && CHOICES.has(e.choice)) return true;
  }
  return false;
}

/**
 * The activities of a transaction, in the order of its tree (pre-order), each exercise's rows in leg
 * order. A recognised exercise's subtree is not walked further (a tap's mint is the tap). With `details`, each
 * transfer row's TransferDetail is set in it. Throws on a
 * recognised exercise whose argument or result lacks what it must hold.
 */
export function activitiesOf(tx: TransactionUpdate, details?: TransferDetails): Activity[] {
  if (!mayHaveActivities(tx)) return [];
  const created = new Map<string, CreatedEvent>();
  for (const id in tx.events_by_id) {
    const e = tx.events_by_id[id]!;
    if (e.event_type === 'created_event') created.set(e.contract_id, e);
  }
  const out: Activity[] = [];
  const visit = (eventId: string, via: string | null): void => {
    const e = tx.events_by_id[eventId];
    if (!e || e.event_type !== 'exercised_event') return;
    const node = nodeOf(eventId);
    try {
      switch (e.choice) {
        case 'AmuletRules_Transfer':
          out.push(...transferActivities(node, e, via, details));
          return;
        case 'AmuletRules_Mint':
          out.push(amuletCreation(node, 'mint', e, created, via));
          return;
        case 'AmuletRules_DevNet_Tap':
          out.push(amuletCreation(node, 'tap', e, created, via));
          return;
        case 'LockedAmulet_Unlock':
          out.push(amuletCreation(node, 'unlock', e, created, via));
          return;
        case 'LockedAmulet_OwnerExpireLock':
          out.push(amuletCreation(node, 'owner_expire_lock', e, created, via));
          return;
        case 'AmuletRules_BuyMemberTraffic':
          out.push(...trafficPurchase(node, e, via));
          return;
      }
    } catch (err) {
      throw new Error(`${e.choice} at event ${eventId}: ${(err as Error).message}`, { cause: err });
    }
    for (const child of e.child_event_ids) visit(child, e.choice);
  };
  for (const root of tx.root_event_ids) visit(root, null);
  return out;
}
