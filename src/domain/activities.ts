/**
 * The Amulet-level activities of a transaction, as the Scan app's transaction log used to record them
 * (its ScanTxLogParser and TxLogEntry): transfers, with the sender's and each receiver's figures and the
 * transfer's burn; mints and DevNet taps; the rewards a transfer claims (the input reward amounts of its
 * TransferSummary); amulet locked by a transfer output, and released by LockedAmulet_Unlock or
 * LockedAmulet_OwnerExpireLock (or their V2 forms); amulet the DSO expires (Amulet_Expire,
 * LockedAmulet_ExpireAmulet, or their V2 forms); and traffic purchases (AmuletRules_BuyMemberTraffic). Around them, the
 * exercises that say what they were for: ANS entry payments, transfer commands, token-standard transfer
 * instructions and allocations (token standard V2's too), ballots and vote results (CONTEXT_CHOICES;
 * docs/ingestion.md has the mapping). Read from the exercise results in compact_json. Pure.
 *
 * Each activity gives one row per party it concerns: leg 0 is the party that acted (sender, owner,
 * claimant, buyer), legs 1.. the others (a transfer's receivers, in the order of their first output).
 * Unlike Scan's log, which tracks locked and unlocked amulet as one sum, locks and unlocks are rows of
 * their own, so that a party's history shows them.
 *
 * What the tree alone cannot tell is left out: the owner of a LockedAmulet released in a later
 * transaction is known only from its create, so an unlock names the owner of the amulet it creates (the
 * receiver, for a token-standard transfer instruction accepted or an allocation executed); likewise the
 * sender and receiver of an instruction or allocation that ends are on its create, not in the tree.
 */
import { parseDecimal, type Decimal10 } from './decimal';
import { parseTimestamp, type Micros } from './time';
import type { Json } from './json';
import type { CreatedEvent, ExercisedEvent, TransactionUpdate } from './items';
import { transferFailureReason } from './transfer-commands';

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
  'expire',
  'traffic_purchase',
  'unclaimed_reward',
  'ans_entry',
  'transfer_command',
  'transfer_instruction',
  'allocation',
  'vote',
  'vote_result',
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
  /**
   * What a kind beyond Amulet's own is about: an ANS entry's name; a vote request's id (its tracking
   * contract id, the first request's); a transfer command's, instruction's or allocation's contract id.
   */
  subject: string | null;
  /** The action voted on (a vote, a vote result), a failed transfer command's reason, an allocation's settlement id. */
  detail: string | null;
  /** The step within the kind: created, renewed, sent, accepted, ... (docs/ingestion.md, "Activities"). */
  outcome: string | null;
  /** An ANS entry's expiry; a command's, instruction's or allocation's deadline. */
  expiresAt: Micros | null;
  /**
   * The contract whose initial amount is the row's amount and burn, when the transaction does not hold
   * it: an expired amulet created in an earlier update. `amount` and `burned` are then unknown (0 and
   * null here); the planner or the writer fills them in from the stored contract.
   */
  amountOf: string | null;
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

/**
 * Where a value sits, for errors: `what`, its `#` replaced by `at` when given. Built only when an error
 * is thrown, since the writer reads every transfer's fields and almost none fails.
 */
type At = number | string | undefined;
const label = (what: string, at: At): string => (at === undefined ? what : what.replace('#', String(at)));

function obj(value: Json | undefined, what: string, at?: At): Obj {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${label(what, at)} must be a record`);
  return value;
}

function text(value: Json | undefined, what: string, at?: At): string {
  if (typeof value !== 'string') throw new Error(`${label(what, at)} must be text`);
  return value;
}

function decimal(value: Json | undefined, what: string, at?: At): Decimal10 {
  const digits = text(value, what, at);
  try {
    return parseDecimal(digits);
  } catch (err) {
    throw new Error(`${label(what, at)}: ${(err as Error).message}`, { cause: err });
  }
}

function list(value: Json | undefined, what: string, at?: At): Json[] {
  if (!Array.isArray(value)) throw new Error(`${label(what, at)} must be a list`);
  return value;
}

/**
 * An activity with every field, the kind-specific ones null: every activity has the one object shape,
 * which keeps the planner's code that reads them monomorphic. Callers then set what their kind has.
 */
function activity(
  node: number,
  kind: ActivityKind,
  leg: number,
  party: string,
  round: bigint | null,
  amount: Decimal10,
  fees: Decimal10,
  via: string | null,
): Activity {
  return {
    node,
    kind,
    leg,
    party,
    round,
    amount,
    fees,
    holdingFees: null,
    burned: null,
    counterparties: [],
    provider: null,
    featured: null,
    via,
    traffic: null,
    subject: null,
    detail: null,
    outcome: null,
    expiresAt: null,
    amountOf: null,
  };
}

function roundOf(value: Json | undefined, what: string): bigint {
  const n = text(obj(value, what).number, '#.number', what);
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
  inputUnclaimedActivityRecordAmount: Decimal10;
  holdingFees: Decimal10;
  outputFees: Decimal10[];
  senderChangeFee: Decimal10;
}

function summaryOf(value: Json | undefined): Summary {
  const s = obj(value, 'summary');
  const faucet = s.inputValidatorFaucetAmount;
  const unclaimed = s.inputUnclaimedActivityRecordAmount;
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
    // Optional, and added later still (unclaimed activity records, spent as transfer inputs).
    inputUnclaimedActivityRecordAmount:
      unclaimed === undefined || unclaimed === null ? 0n : decimal(unclaimed, 'summary.inputUnclaimedActivityRecordAmount'),
    holdingFees: decimal(s.holdingFees, 'summary.holdingFees'),
    outputFees: list(s.outputFees, 'summary.outputFees').map((f, i) => decimal(f, 'summary.outputFees[#]', i)),
    senderChangeFee: decimal(s.senderChangeFee, 'summary.senderChangeFee'),
  };
}

/** summary.balanceChanges, a Daml map: pairs in compact JSON (an object is read too); absent is none. */
function balanceChangesOf(value: Json | undefined): Summary['balanceChanges'] {
  const out: Summary['balanceChanges'] = new Map();
  if (value === undefined || value === null) return out;
  const add = (key: Json, change: Json) => {
    const party = text(key, 'summary.balanceChanges key');
    const c = obj(change, 'summary.balanceChanges[#]', party);
    out.set(party, {
      initialAmountAsOfRoundZero: decimal(c.changeToInitialAmountAsOfRoundZero, 'changeToInitialAmountAsOfRoundZero'),
      holdingFeesRate: decimal(c.changeToHoldingFeesRate, 'changeToHoldingFeesRate'),
    });
  };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = list(value[i], 'summary.balanceChanges[#]', i);
      add(p[0] ?? null, p[1] ?? null);
    }
  } else {
    const o = obj(value, 'summary.balanceChanges');
    for (const key in o) add(key, o[key]!);
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
  // The usual ratios, 0 and 1, without bigint division: exact all the same.
  if (ratio === 0n || fee === 0n) return 0n;
  if (ratio === ONE) return fee;
  const scaled = fee * ratio;
  const unit = 10_000_000_000n;
  const q = scaled / unit;
  const r = scaled % unit;
  const twice = 2n * (r < 0n ? -r : r);
  if (twice > unit || (twice === unit && q % 2n !== 0n)) return q + (scaled < 0n ? -1n : 1n);
  return q;
}

/** Adds the reward claims of a transfer's summary, by the party whose inputs they were, to `out`. */
function addRewardClaims(out: Activity[], node: number, party: string, round: bigint, s: Summary, via: string | null): void {
  const claim = (kind: ActivityKind, amount: Decimal10) => {
    if (amount > 0n) out.push(activity(node, kind, 0, party, round, amount, 0n, via));
  };
  claim('app_reward', s.inputAppRewardAmount);
  claim('validator_reward', s.inputValidatorRewardAmount);
  claim('sv_reward', s.inputSvRewardAmount);
  claim('validator_faucet', s.inputValidatorFaucetAmount);
  claim('unclaimed_reward', s.inputUnclaimedActivityRecordAmount);
}

interface Output {
  receiver: string;
  amount: Decimal10;
  receiverFeeRatio: Decimal10;
  lockHolders: string[] | null;
}

function outputOf(value: Json, i: number): Output {
  const o = obj(value, 'outputs[#]', i);
  const lock = o.lock === null || o.lock === undefined ? null : obj(o.lock, 'outputs[#].lock', i);
  return {
    receiver: text(o.receiver, 'outputs[#].receiver', i),
    amount: decimal(o.amount, 'outputs[#].amount', i),
    receiverFeeRatio: o.receiverFeeRatio === undefined ? 0n : decimal(o.receiverFeeRatio, 'outputs[#].receiverFeeRatio', i),
    lockHolders: lock === null ? null : list(lock.holders, 'outputs[#].lock.holders', i).map((h, j) => text(h, 'lock.holders[#]', j)),
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
  for (let i = 0; i < outputs.length; i++) {
    const o = outputs[i]!;
    const fee = summary.outputFees[i]!;
    const receiverFee = share(fee, o.receiverFeeRatio);
    senderFees += fee - receiverFee;
    scanSenderFee += share(fee, ONE - o.receiverFeeRatio);
    distinctReceivers.add(o.receiver);
    if (o.receiver === sender) {
      senderFees += receiverFee;
      if (self === null) self = { amount: o.amount, fee: receiverFee, rank: distinctReceivers.size - 1 };
      else {
        self.amount += o.amount;
        self.fee += receiverFee;
      }
      continue;
    }
    sent += o.amount;
    const r = receivers.get(o.receiver);
    if (r === undefined) receivers.set(o.receiver, { amount: o.amount, fees: receiverFee });
    else {
      r.amount += o.amount;
      r.fees += receiverFee;
    }
  }
  const head = activity(node, 'transfer', 0, sender, round, sent, senderFees, via);
  head.holdingFees = summary.holdingFees;
  head.burned = transferBurn(summary);
  head.counterparties = [...receivers.keys()];
  head.provider = provider;
  head.featured = featured;
  const rows: Activity[] = [head];
  let leg = 1;
  for (const [party, r] of receivers) {
    const row = activity(node, 'transfer', leg++, party, round, r.amount, r.fees, via);
    row.counterparties = [sender];
    row.provider = provider;
    row.featured = featured;
    rows.push(row);
  }
  if (details) {
    const senderDetail = {
      inputAmulet: summary.inputAmuletAmount,
      changeAmount: summary.senderChangeAmount,
      changeFee: summary.senderChangeFee,
      senderFee: scanSenderFee,
      self,
    };
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      details.set(row, { balanceChange: summary.balanceChanges.get(row.party) ?? null, sender: i === 0 ? senderDetail : null });
    }
  }
  for (let i = 0; i < outputs.length; i++) {
    const o = outputs[i]!;
    if (o.lockHolders === null) continue;
    const lock = activity(node, 'lock', i, o.receiver, round, o.amount, 0n, via);
    lock.counterparties = o.lockHolders;
    rows.push(lock);
  }
  addRewardClaims(rows, node, sender, round, summary, via);
  return rows;
}

/**
 * The amulet a result names, created in this transaction: by its AmuletCreateSummary (`amuletSum`, with
 * the round), or, for the V2 choices that release a lock (LockedAmulet_UnlockV2 and
 * LockedAmulet_OwnerExpireLockV2, whose V1 forms splice-amulet 0.1.17 retires), by `amuletCid` alone:
 * those name no round, and the amulet keeps the round it was first created in, so the round is left null.
 */
function createdAmulet(
  result: Json,
  created: ReadonlyMap<string, CreatedEvent>,
): { owner: string; amount: Decimal10; round: bigint | null } {
  const r = obj(result, 'result');
  const sum = r.amuletCid === undefined ? obj(r.amuletSum, 'amuletSum') : undefined;
  const cid = sum ? text(sum.amulet, 'amuletSum.amulet') : text(r.amuletCid, 'amuletCid');
  const amulet = created.get(cid);
  if (!amulet) throw new Error(`amulet ${cid} is not created in the transaction`);
  const args = obj(amulet.create_arguments, 'amulet');
  return {
    owner: text(args.owner, 'amulet.owner'),
    amount: decimal(obj(args.amount, 'amulet.amount').initialAmount, 'amulet.amount.initialAmount'),
    round: sum ? roundOf(sum.round, 'amuletSum.round') : null,
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
  return activity(node, kind, 0, a.owner, a.round, a.amount, 0n, via);
}

const BURNED_META_KEY = 'splice.lfdecentralizedtrust.org/burned';

/** A metadata's value at `key` (Splice.Api.Token.MetadataV1.Metadata, optional or not); undefined when absent. */
function metaValue(meta: Json | undefined, key: string): Json | undefined {
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return undefined;
  const values = meta.values;
  if (typeof values !== 'object' || values === null) return undefined;
  if (Array.isArray(values)) {
    for (const pair of values) if (Array.isArray(pair) && pair[0] === key) return pair[1];
    return undefined;
  }
  return values[key];
}

/**
 * The DSO expires an amulet its holding fees have eaten (Amulet_Expire, LockedAmulet_ExpireAmulet and
 * their V2 forms): the amulet leaves the supply, a burn of its initial amount, as supply counts amulet
 * (initial amounts). The owner's row (the summary's owner); the V1 summary's round; the expired contract
 * as subject, detail `locked` for a LockedAmulet. The amount is the V2 result's burned metadata where it
 * has it, else the contract's create: in the transaction, or (amountOf) stored earlier.
 */
function expiry(node: number, e: ExercisedEvent, tree: Tree, via: string | null): Activity {
  const result = obj(e.exercise_result, '# result', e.choice);
  const sum = obj(result.expireSum, 'expireSum');
  const owner = text(sum.owner, 'expireSum.owner');
  const round = sum.round === undefined ? null : roundOf(sum.round, 'expireSum.round');
  const locked = e.choice.startsWith('LockedAmulet_');
  const row = activity(node, 'expire', 0, owner, round, 0n, 0n, via);
  row.subject = e.contract_id;
  if (locked) row.detail = 'locked';
  const burnedMeta = result.meta === undefined || result.meta === null ? undefined : metaValue(result.meta, BURNED_META_KEY);
  const created = tree.created.get(e.contract_id);
  let amount: Decimal10 | undefined;
  if (burnedMeta !== undefined && burnedMeta !== null) amount = decimal(burnedMeta, 'meta burned');
  else if (created) {
    const args = obj(created.create_arguments, 'amulet');
    const amulet = locked ? obj(args.amulet, 'amulet.amulet') : args;
    amount = decimal(obj(amulet.amount, 'amulet.amount').initialAmount, 'amulet.amount.initialAmount');
  }
  if (amount === undefined) row.amountOf = e.contract_id;
  else {
    row.amount = amount;
    row.burned = amount;
  }
  return row;
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
  const purchase = activity(node, 'traffic_purchase', 0, provider, round, paid, outputFees + summary.senderChangeFee, via);
  purchase.holdingFees = summary.holdingFees;
  purchase.burned = paid + transferBurn(summary);
  purchase.traffic = BigInt(trafficAmount);
  const rows = [purchase];
  addRewardClaims(rows, node, provider, round, summary, via);
  return rows;
}

const nodeOf = (eventId: string): number => Number(eventId.slice(eventId.lastIndexOf(':') + 1));

/** The walk's view of a transaction: its events, and the contracts it creates by id. */
interface Tree {
  events: Record<string, CreatedEvent | ExercisedEvent>;
  created: ReadonlyMap<string, CreatedEvent>;
}

const entityOf = (templateId: string): string => templateId.slice(templateId.indexOf(':') + 1);

/** The events of an exercise's subtree (itself excluded), in pre-order. */
function subtree(tree: Tree, e: ExercisedEvent): (CreatedEvent | ExercisedEvent)[] {
  const out: (CreatedEvent | ExercisedEvent)[] = [];
  const stack = [...e.child_event_ids].reverse();
  while (stack.length > 0) {
    const c = tree.events[stack.pop()!];
    if (!c) continue;
    out.push(c);
    if (c.event_type === 'exercised_event') stack.push(...[...c.child_event_ids].reverse());
  }
  return out;
}

function timeOf(value: Json | undefined, what: string): Micros {
  const time = text(value, what);
  try {
    return parseTimestamp(time);
  } catch (err) {
    throw new Error(`${what}: ${(err as Error).message}`, { cause: err });
  }
}

/** What the kinds beyond Amulet's own add to their rows (rowsOf). */
type Extra = Partial<Pick<Activity, 'provider' | 'subject' | 'detail' | 'outcome' | 'expiresAt'>>;

function rowsOf(
  node: number,
  kind: ActivityKind,
  via: string | null,
  legs: { party: string; amount: Decimal10; counterparties: string[] }[],
  extra: Extra,
): Activity[] {
  return legs.map((l, leg) => {
    const row = activity(node, kind, leg, l.party, null, l.amount, 0n, via);
    row.counterparties = l.counterparties;
    if (extra.provider !== undefined) row.provider = extra.provider;
    if (extra.subject !== undefined) row.subject = extra.subject;
    if (extra.detail !== undefined) row.detail = extra.detail;
    if (extra.outcome !== undefined) row.outcome = extra.outcome;
    if (extra.expiresAt !== undefined) row.expiresAt = extra.expiresAt;
    return row;
  });
}

/**
 * AnsRules_CollectInitialEntryPayment and AnsRules_CollectEntryRenewalPayment: the user pays the entry
 * fee to the DSO, which burns it (archives the amulet it received). The user's row, then the DSO's: the
 * amount burned for ANS (the amulets created and archived under the exercise; `burned` on leg 0 only),
 * the entry's name and expiry (the AnsEntry the result names, created under it). The payment itself is
 * its own transfer row.
 */
function ansEntry(node: number, e: ExercisedEvent, tree: Tree, via: string | null, outcome: 'created' | 'renewed'): Activity[] {
  const arg = obj(e.choice_argument, '# argument', e.choice);
  const cid = text(obj(e.exercise_result, '# result', e.choice).entryCid, 'entryCid');
  const entry = tree.created.get(cid);
  if (!entry) throw new Error(`AnsEntry ${cid} is not created in the transaction`);
  const entryArgs = obj(entry.create_arguments, 'AnsEntry');
  // The argument names the user where the version has it; the entry always does.
  const user = text(arg.user ?? entryArgs.user, 'user');
  const made = new Map<string, Decimal10>();
  let burned = 0n;
  for (const c of subtree(tree, e)) {
    if (c.event_type === 'created_event' && entityOf(c.template_id) === 'Splice.Amulet:Amulet') {
      made.set(
        c.contract_id,
        decimal(obj(obj(c.create_arguments, 'amulet').amount, 'amulet.amount').initialAmount, 'amulet.amount.initialAmount'),
      );
    } else if (c.event_type === 'exercised_event' && c.consuming && c.choice === 'Archive') {
      burned += made.get(c.contract_id) ?? 0n;
    }
  }
  const dso = text(entryArgs.dso, 'AnsEntry.dso');
  const extra = { subject: text(entryArgs.name, 'AnsEntry.name'), outcome, expiresAt: timeOf(entryArgs.expiresAt, 'AnsEntry.expiresAt') };
  // The DSO's row: it received the fee (its transfer row) and burned it, so its history shows both.
  const rows = rowsOf(
    node,
    'ans_entry',
    via,
    [
      { party: user, amount: burned, counterparties: [dso] },
      { party: dso, amount: burned, counterparties: [user] },
    ],
    extra,
  );
  rows[0]!.burned = burned;
  return rows;
}

const TRANSFER_COMMAND_OUTCOMES: Record<string, string> = {
  TransferCommand_Send: 'sent',
  TransferCommand_Withdraw: 'withdrawn',
  TransferCommand_Expire: 'expired',
};

/**
 * The legacy TransferCommand of external parties (Scan's TransferCommandTxLogEntry). Created: the
 * sender's and the receiver's rows with the amount, the delegate as provider, the deadline. Sent,
 * failed, withdrawn or expired: the sender's row only (the result names the sender and nonce alone;
 * amount 0), the command's contract id as subject; a send's transfer is its own transfer row.
 */
function transferCommand(node: number, e: ExercisedEvent, via: string | null): Activity[] {
  if (e.choice === 'ExternalPartyAmuletRules_CreateTransferCommand') {
    const arg = obj(e.choice_argument, '# argument', e.choice);
    const sender = text(arg.sender, 'sender');
    const receiver = text(arg.receiver, 'receiver');
    const amount = decimal(arg.amount, 'amount');
    return rowsOf(
      node,
      'transfer_command',
      via,
      [
        { party: sender, amount, counterparties: [receiver] },
        { party: receiver, amount, counterparties: [sender] },
      ],
      {
        provider: text(arg.delegate, 'delegate'),
        subject: text(obj(e.exercise_result, '# result', e.choice).transferCommandCid, 'transferCommandCid'),
        outcome: 'created',
        expiresAt: timeOf(arg.expiresAt, 'expiresAt'),
      },
    );
  }
  const result = obj(e.exercise_result, '# result', e.choice);
  const sender = text(result.sender, 'sender');
  let outcome = TRANSFER_COMMAND_OUTCOMES[e.choice]!;
  let detail: string | null = null;
  if (e.choice === 'TransferCommand_Send') {
    const r = obj(result.result, 'result');
    if (r.tag === 'TransferCommandResultFailure') {
      outcome = 'failed';
      const reason = obj(r.value, 'result.value').reason;
      if (reason === undefined) throw new Error('TransferCommandResultFailure needs a reason');
      detail = transferFailureReason(reason);
    } else if (r.tag !== 'TransferCommandResultSuccess') {
      throw new Error('result must be a TransferCommandResultSuccess or TransferCommandResultFailure');
    }
  }
  return rowsOf(node, 'transfer_command', via, [{ party: sender, amount: 0n, counterparties: [] }], {
    subject: e.contract_id,
    detail,
    outcome,
  });
}

/**
 * TransferFactory_Transfer with a pending result (a two-step transfer; a completed one is only its
 * transfer, as on Scan) and AllocationFactory_Allocate: the sender's and the receiver's rows with the
 * amount, the instruction or allocation as subject, the deadline; an allocation's executor as provider
 * and its settlement id as detail.
 */
function twoStepCreated(node: number, e: ExercisedEvent, via: string | null): Activity[] {
  const arg = obj(e.choice_argument, '# argument', e.choice);
  const output = obj(obj(e.exercise_result, '# result', e.choice).output, 'output');
  const allocation = e.choice === 'AllocationFactory_Allocate';
  if (output.tag !== (allocation ? 'AllocationInstructionResult_Completed' : 'TransferInstructionResult_Pending')) return [];
  const value = obj(output.value, 'output.value');
  // Token standard V2 names the settlement beside the allocation, not in it.
  if (allocation && arg.settlement !== undefined) return allocationCreatedV2(node, arg, value, via);
  let leg: Obj;
  let extra: Extra;
  if (allocation) {
    const spec = obj(arg.allocation, 'allocation');
    const settlement = obj(spec.settlement, 'allocation.settlement');
    leg = obj(spec.transferLeg, 'allocation.transferLeg');
    extra = {
      subject: text(value.allocationCid, 'allocationCid'),
      provider: text(settlement.executor, 'settlement.executor'),
      detail: text(obj(settlement.settlementRef, 'settlement.settlementRef').id, 'settlementRef.id'),
      expiresAt: timeOf(settlement.settleBefore, 'settlement.settleBefore'),
    };
  } else {
    leg = obj(arg.transfer, 'transfer');
    extra = {
      subject: text(value.transferInstructionCid, 'transferInstructionCid'),
      expiresAt: timeOf(leg.executeBefore, 'transfer.executeBefore'),
    };
  }
  const sender = text(leg.sender, 'sender');
  const receiver = text(leg.receiver, 'receiver');
  const amount = decimal(leg.amount, 'amount');
  return rowsOf(
    node,
    allocation ? 'allocation' : 'transfer_instruction',
    via,
    [
      { party: sender, amount, counterparties: [receiver] },
      { party: receiver, amount, counterparties: [sender] },
    ],
    { ...extra, outcome: 'created' },
  );
}

/**
 * Token standard V2's AllocationFactory_Allocate with a completed result: the authorizer's row with the sum of
 * its transfer leg sides, then each owner on the other sides with the sum of its own; the allocation as
 * subject, the settlement's first executor as provider and its id as detail, and the settlement deadline
 * (optional in V2). An account without an owner has no row.
 */
function allocationCreatedV2(node: number, arg: Obj, value: Obj, via: string | null): Activity[] {
  const settlement = obj(arg.settlement, 'settlement');
  const spec = obj(arg.allocation, 'allocation');
  const authorizer = text(obj(spec.authorizer, 'allocation.authorizer').owner, 'allocation.authorizer.owner');
  const others = new Map<string, Decimal10>();
  let total = 0n;
  list(spec.transferLegSides, 'allocation.transferLegSides').forEach((s, i) => {
    const side = obj(s, 'allocation.transferLegSides[#]', i);
    const amount = decimal(side.amount, 'allocation.transferLegSides[#].amount', i);
    total += amount;
    const owner = obj(side.otherside, 'allocation.transferLegSides[#].otherside', i).owner;
    if (owner === null || owner === undefined) return;
    const party = text(owner, 'allocation.transferLegSides[#].otherside.owner', i);
    others.set(party, (others.get(party) ?? 0n) + amount);
  });
  const executors = list(settlement.executors, 'settlement.executors');
  const deadline = spec.settlementDeadline;
  const legs = [{ party: authorizer, amount: total, counterparties: [...others.keys()] }];
  for (const [party, amount] of others) legs.push({ party, amount, counterparties: [authorizer] });
  return rowsOf(node, 'allocation', via, legs, {
    subject: text(value.allocationCid, 'allocationCid'),
    provider: executors.length === 0 ? null : text(executors[0], 'settlement.executors[0]'),
    detail: text(settlement.id, 'settlement.id'),
    expiresAt: deadline === null || deadline === undefined ? null : timeOf(deadline, 'allocation.settlementDeadline'),
    outcome: 'created',
  });
}

const SETTLING: Record<string, [ActivityKind, string]> = {
  TransferInstruction_Accept: ['transfer_instruction', 'accepted'],
  TransferInstruction_Reject: ['transfer_instruction', 'rejected'],
  TransferInstruction_Withdraw: ['transfer_instruction', 'withdrawn'],
  Allocation_ExecuteTransfer: ['allocation', 'executed'],
  Allocation_Cancel: ['allocation', 'cancelled'],
  Allocation_Withdraw: ['allocation', 'withdrawn'],
  // Token standard V2: each allocation of a SettlementFactory_SettleBatch.
  Allocation_Settle: ['allocation', 'settled'],
};

/** The contract ids of a list of holdings in a result; absent is none. */
function holdingList(value: Json | undefined, what: string): string[] {
  if (value === undefined || value === null) return [];
  const each = `${what}[#]`;
  return list(value, what).map((c, i) => text(c, each, i));
}

/** V2's holdings of a result by instrument (a TextMap of lists); absent is none. */
function holdingsByInstrument(value: Json | undefined, what: string): string[] {
  if (value === undefined || value === null) return [];
  const byInstrument = obj(value, what);
  const out: string[] = [];
  for (const instrument in byInstrument) out.push(...holdingList(byInstrument[instrument], `${what}.${instrument}`));
  return out;
}

/**
 * A choice that ends a transfer instruction or an allocation. Its sender and receiver are on the
 * contract, created in an earlier transaction; the tree names the acting party and the holdings the
 * result returns (delivered to the receiver, or given back to the sender). Rows: the actor's, then
 * each other owner of those holdings, each with the amount of its holdings created here.
 *
 * Under token standard V2's SettlementFactory_SettleBatch (`parent`), the actor is the settlement's
 * executor among the acting parties (the registry's admin acts too) and the detail is the settlement's id.
 */
function twoStepSettled(node: number, e: ExercisedEvent, tree: Tree, via: string | null, parent: ExercisedEvent | undefined): Activity[] {
  const [kind, outcome] = SETTLING[e.choice]!;
  const result = obj(e.exercise_result, '# result', e.choice);
  const output = result.output === undefined ? {} : obj(result.output, 'output');
  const outputValue = output.value === undefined || output.value === null ? {} : obj(output.value, 'output.value');
  const cids = [
    ...holdingList(outputValue.receiverHoldingCids, 'output.receiverHoldingCids'),
    ...holdingList(result.receiverHoldingCids, 'receiverHoldingCids'),
    ...holdingList(result.senderChangeCids, 'senderChangeCids'),
    ...holdingList(result.senderHoldingCids, 'senderHoldingCids'),
    ...holdingsByInstrument(result.authorizerHoldingCids, 'authorizerHoldingCids'),
  ];
  let actor = e.acting_parties[0];
  let detail: string | null = null;
  if (parent?.choice === 'SettlementFactory_SettleBatch') {
    const settlement = obj(obj(parent.choice_argument, 'SettlementFactory_SettleBatch argument').settlement, 'settlement');
    const executors = list(settlement.executors, 'settlement.executors');
    actor = e.acting_parties.find((p) => executors.includes(p)) ?? actor;
    detail = text(settlement.id, 'settlement.id');
  }
  if (actor === undefined) throw new Error('the exercise has no acting party');
  const owners = new Map<string, Decimal10>([[actor, 0n]]);
  for (const cid of new Set(cids)) {
    const c = tree.created.get(cid);
    if (!c || entityOf(c.template_id) !== 'Splice.Amulet:Amulet') continue;
    const args = obj(c.create_arguments, 'amulet');
    const owner = text(args.owner, 'amulet.owner');
    owners.set(owner, (owners.get(owner) ?? 0n) + decimal(obj(args.amount, 'amulet.amount').initialAmount, 'amulet.amount.initialAmount'));
  }
  const others = [...owners.keys()].slice(1);
  const legs = [...owners].map(([party, amount], i) => ({ party, amount, counterparties: i === 0 ? others : [actor] }));
  return rowsOf(node, kind, via, legs, { subject: e.contract_id, outcome, detail });
}

/** The inner constructor of the action voted on (ARC_DsoRules, ARC_AmuletRules, ...); null when there is none. */
function actionNameOf(action: Json | undefined): string | null {
  if (typeof action !== 'object' || action === null || Array.isArray(action)) return null;
  const value = action.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return typeof action.tag === 'string' ? action.tag : null;
  for (const inner of Object.values(value)) {
    if (typeof inner === 'object' && inner !== null && !Array.isArray(inner) && typeof inner.tag === 'string') return inner.tag;
  }
  return typeof action.tag === 'string' ? action.tag : null;
}

/** A VoteRequest's id: its tracking contract id (the first request's), else its own. */
function requestId(request: Obj, cid: string): string {
  const tracking = request.trackingCid;
  return typeof tracking === 'string' ? tracking : cid;
}

/** The Votes of a request's votes (a Daml map, as pairs or an object), in its order. */
function voteValues(votes: Json | undefined): Obj[] {
  if (votes === undefined || votes === null) return [];
  const values = Array.isArray(votes) ? votes.map((p, i) => list(p, 'votes[#]', i)[1] ?? null) : Object.values(obj(votes, 'votes'));
  return values.map((v, i) => obj(v, 'votes[#]', i));
}

/** The SV parties of a request's votes, in its order. */
const votersOf = (votes: Json | undefined): string[] => voteValues(votes).map((v, i) => text(v.sv, 'votes[#].sv', i));

/**
 * A ballot: DsoRules_CastVote (the voter's), or DsoRules_RequestVote (the requester's own, which the
 * request it creates holds). One row per ballot: the request's id (read from the request the exercise
 * creates: its tracking id, else its own id for a new request), the action voted on, and the ballot
 * as outcome (accept or reject). Scan's log did not keep ballots.
 */
function ballots(node: number, e: ExercisedEvent, tree: Tree, via: string | null): Activity[] {
  const cid = text(obj(e.exercise_result, '# result', e.choice).voteRequest, 'voteRequest');
  const request = tree.created.get(cid);
  if (!request) throw new Error(`VoteRequest ${cid} is not created in the transaction`);
  const args = obj(request.create_arguments, 'VoteRequest');
  let cast: Obj[];
  let id: string;
  if (e.choice === 'DsoRules_CastVote') {
    const arg = obj(e.choice_argument, 'DsoRules_CastVote argument');
    cast = [obj(arg.vote, 'vote')];
    id = requestId(args, text(arg.requestCid, 'requestCid'));
  } else {
    cast = voteValues(args.votes);
    id = requestId(args, cid);
  }
  const detail = actionNameOf(args.action);
  return cast.map((ballot, leg) => {
    if (typeof ballot.accept !== 'boolean') throw new Error('vote.accept must be a boolean');
    const row = activity(node, 'vote', leg, text(ballot.sv, 'vote.sv'), null, 0n, 0n, via);
    row.subject = id;
    row.detail = detail;
    row.outcome = ballot.accept ? 'accept' : 'reject';
    return row;
  });
}

const VOTE_OUTCOMES: Record<string, string> = { VRO_Accepted: 'accepted', VRO_Rejected: 'rejected', VRO_Expired: 'expired' };

/**
 * DsoRules_CloseVoteRequest (Scan's VoteRequestTxLogEntry, the writer's vote_results): the DSO's row,
 * then each voter's; the request's id, the action, the outcome (accepted, rejected, expired) and, when
 * accepted, when the action takes effect (as expires_at: the one time column).
 */
function voteResult(node: number, e: ExercisedEvent, via: string | null): Activity[] {
  const arg = obj(e.choice_argument, 'DsoRules_CloseVoteRequest argument');
  const result = obj(e.exercise_result, 'DsoRules_CloseVoteRequest result');
  const request = obj(result.request, 'request');
  const outcomeValue = obj(result.outcome, 'outcome');
  const outcome = typeof outcomeValue.tag === 'string' ? VOTE_OUTCOMES[outcomeValue.tag] : undefined;
  if (outcome === undefined) throw new Error('outcome must be VRO_Accepted, VRO_Rejected or VRO_Expired');
  const effective = outcome === 'accepted' ? obj(outcomeValue.value, 'outcome.value').effectiveAt : undefined;
  const dso = text(request.dso, 'request.dso');
  const voters = [...new Set(votersOf(request.votes))].filter((v) => v !== dso);
  const legs = [
    { party: dso, amount: 0n, counterparties: voters },
    ...voters.map((v) => ({ party: v, amount: 0n, counterparties: [dso] })),
  ];
  return rowsOf(node, 'vote_result', via, legs, {
    subject: requestId(request, text(arg.requestCid, 'requestCid')),
    detail: actionNameOf(request.action),
    outcome,
    expiresAt: effective === undefined || effective === null ? null : timeOf(effective, 'outcome.effectiveAt'),
  });
}

/** The exercises whose activity is the whole of their subtree: it is not walked further (a tap's mint is the tap). */
const CHOICES = new Set([
  'AmuletRules_Transfer',
  'AmuletRules_Mint',
  'AmuletRules_DevNet_Tap',
  'LockedAmulet_Unlock',
  'LockedAmulet_OwnerExpireLock',
  'LockedAmulet_UnlockV2',
  'LockedAmulet_OwnerExpireLockV2',
  'Amulet_Expire',
  'Amulet_ExpireV2',
  'LockedAmulet_ExpireAmulet',
  'LockedAmulet_ExpireAmuletV2',
  'AmuletRules_BuyMemberTraffic',
]);

/**
 * The exercises that record what happened around Amulet's own activities: their subtree is walked on,
 * so that the transfers, locks and unlocks under them are rows of their own.
 */
const CONTEXT_CHOICES = new Set([
  'AnsRules_CollectInitialEntryPayment',
  'AnsRules_CollectEntryRenewalPayment',
  'ExternalPartyAmuletRules_CreateTransferCommand',
  'TransferCommand_Send',
  'TransferCommand_Withdraw',
  'TransferCommand_Expire',
  'TransferFactory_Transfer',
  'AllocationFactory_Allocate',
  ...Object.keys(SETTLING),
  'DsoRules_RequestVote',
  'DsoRules_CastVote',
  'DsoRules_CloseVoteRequest',
]);

/** Whether a transaction has any exercise an activity is read from: most have none, and are not walked. */
function mayHaveActivities(tx: TransactionUpdate): boolean {
  for (const id in tx.events_by_id) {
    const e = tx.events_by_id[id]!;
    if (e.event_type === 'exercised_event' && (CHOICES.has(e.choice) || CONTEXT_CHOICES.has(e.choice))) return true;
  }
  return false;
}

/** A recognised exercise whose activity could not be derived: the argument or result lacks what it needs. */
export interface SkippedActivity {
  eventId: string;
  choice: string;
  reason: string;
}

/**
 * The activities of a transaction, in the order of its tree (pre-order), each exercise's rows in leg
 * order. An exercise of CHOICES is not walked further; one of CONTEXT_CHOICES is, after its own rows.
 * With `details`, each transfer row's TransferDetail is set in it. A recognised exercise whose argument
 * or result lacks what it must hold gives no rows: with `skipped`, it is listed there and the walk goes
 * on (its subtree too, for CONTEXT_CHOICES); without, it throws, naming the event.
 */
export function activitiesOf(tx: TransactionUpdate, details?: TransferDetails, skipped?: SkippedActivity[]): Activity[] {
  if (!mayHaveActivities(tx)) return [];
  const created = new Map<string, CreatedEvent>();
  for (const id in tx.events_by_id) {
    const e = tx.events_by_id[id]!;
    if (e.event_type === 'created_event') created.set(e.contract_id, e);
  }
  const tree: Tree = { events: tx.events_by_id, created };
  const out: Activity[] = [];
  const derive = (eventId: string, e: ExercisedEvent, parent: ExercisedEvent | undefined): Activity[] => {
    const via = parent === undefined ? null : parent.choice;
    const node = nodeOf(eventId);
    switch (e.choice) {
      case 'AmuletRules_Transfer':
        return transferActivities(node, e, via, details);
      case 'AmuletRules_Mint':
        return [amuletCreation(node, 'mint', e, created, via)];
      case 'AmuletRules_DevNet_Tap':
        return [amuletCreation(node, 'tap', e, created, via)];
      case 'LockedAmulet_Unlock':
      case 'LockedAmulet_UnlockV2':
        return [amuletCreation(node, 'unlock', e, created, via)];
      case 'LockedAmulet_OwnerExpireLock':
      case 'LockedAmulet_OwnerExpireLockV2':
        return [amuletCreation(node, 'owner_expire_lock', e, created, via)];
      case 'Amulet_Expire':
      case 'Amulet_ExpireV2':
      case 'LockedAmulet_ExpireAmulet':
      case 'LockedAmulet_ExpireAmuletV2':
        return [expiry(node, e, tree, via)];
      case 'AmuletRules_BuyMemberTraffic':
        return trafficPurchase(node, e, via);
      case 'AnsRules_CollectInitialEntryPayment':
        return ansEntry(node, e, tree, via, 'created');
      case 'AnsRules_CollectEntryRenewalPayment':
        return ansEntry(node, e, tree, via, 'renewed');
      case 'ExternalPartyAmuletRules_CreateTransferCommand':
      case 'TransferCommand_Send':
      case 'TransferCommand_Withdraw':
      case 'TransferCommand_Expire':
        return transferCommand(node, e, via);
      case 'TransferFactory_Transfer':
      case 'AllocationFactory_Allocate':
        return twoStepCreated(node, e, via);
      case 'DsoRules_RequestVote':
      case 'DsoRules_CastVote':
        return ballots(node, e, tree, via);
      case 'DsoRules_CloseVoteRequest':
        return voteResult(node, e, via);
      default:
        return twoStepSettled(node, e, tree, via, parent);
    }
  };
  const visit = (eventId: string, parent: ExercisedEvent | undefined): void => {
    const e = tx.events_by_id[eventId];
    if (!e || e.event_type !== 'exercised_event') return;
    const whole = CHOICES.has(e.choice);
    if (whole || CONTEXT_CHOICES.has(e.choice)) {
      try {
        // Rows are kept only when the whole exercise derived: a half-read exercise adds none.
        out.push(...derive(eventId, e, parent));
      } catch (err) {
        const reason = (err as Error).message;
        if (!skipped) throw new Error(`${e.choice} at event ${eventId}: ${reason}`, { cause: err });
        skipped.push({ eventId, choice: e.choice, reason });
      }
      if (whole) return;
    }
    for (const child of e.child_event_ids) visit(child, e);
  };
  for (const root of tx.root_event_ids) visit(root, undefined);
  return out;
}
