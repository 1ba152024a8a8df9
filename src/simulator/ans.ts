/**
 * Amulet Name Service entries. A user requests a name (AnsRules_RequestEntry
 * creates an AnsEntryContext); the SVs collect the initial payment through
 * confirmations, which burns the fee and creates the AnsEntry; before expiry
 * most entries are renewed (AnsEntry_Renew: a new contract id and a later
 * expiresAt), the others expire (AnsEntry_Expire) and their context ends.
 */

import { V, type DamlValue } from '../domain/daml-value';
import type { CanonicalItem } from '../domain/items';
import type { Micros } from '../domain/time';
import { FEES } from './economics';
import { ANS_ENTRY_TICKS, ANS_RENEWAL_TICKS } from './governance';
import type { TransferPlan } from './amulet';
import type { User } from './identities';
import type { NetworkContext } from './context';
import { fieldlessResult, relTime } from './splice-values';
import { TEMPLATES } from './templates';
import type { ExerciseNode, TxBuilder } from './transaction';

declare module './context' {
  interface Subsystems {
    readonly ans: Ans;
  }
}

interface Entry {
  readonly name: string;
  readonly user: User;
  readonly url: string;
  readonly description: string;
  readonly contextCid: string;
  /** The subscription behind the entry; it lives in the wallet payments package, which we do not model. */
  readonly subscriptionCid: string;
  entryCid: string;
  expiresAt: Micros;
}

/** Share of entries renewed before they expire. */
const RENEWAL_SHARE = 0.7;

export class Ans {
  private readonly taken = new Set<string>();

  constructor(private readonly net: NetworkContext) {}

  /** AnsRules_RequestEntry by a user who can afford the fee; the payment is collected a little later. */
  request(user: User): CanonicalItem | undefined {
    const net = this.net;
    if (net.wallets.balance(user.party) < FEES.ansEntryFee * 10n) return undefined;
    const hint = user.party.slice(0, user.party.indexOf('::'));
    let name = `${hint}.unverified.cns`;
    for (let n = 2; this.taken.has(name); n++) name = `${hint}-${n}.unverified.cns`;
    this.taken.add(name);
    const url = net.rng.chance(0.5) ? `https://${hint}.example.com` : '';
    const description = net.rng.chance(0.5) ? `${hint}'s wallet` : '';
    const dso = net.who.dso;
    return net.submit(net.userSubmitter(user), (tx) => {
      const subscriptionCid = net.ids.contractId();
      const node = tx.exercise(
        null,
        net.gov.ansRulesCid,
        'AnsRules_RequestEntry',
        V.record({ name: V.text(name), url: V.text(url), description: V.text(description), user: V.party(user.party) }),
        [user.party],
      );
      const contextCid = tx.create(
        node,
        TEMPLATES.ansEntryContext,
        V.record({
          dso: V.party(dso),
          user: V.party(user.party),
          name: V.text(name),
          url: V.text(url),
          description: V.text(description),
          reference: V.contractId(subscriptionCid),
        }),
        [dso, user.party],
      );
      node.result = V.record({ entryCid: V.contractId(contextCid), requestCid: V.contractId(subscriptionCid) });
      const entry: Entry = { name, user, url, description, contextCid, subscriptionCid, entryCid: '', expiresAt: 0n };
      net.after(BigInt(net.rng.int(1, 30)) * 1_000_000n, () => {
        this.collectInitialPayment(entry);
        return null;
      });
    });
  }

  /** ANSRARC_CollectInitialEntryPayment through confirmations: the fee is paid and burnt, the entry created. */
  private collectInitialPayment(entry: Entry): void {
    const net = this.net;
    const dso = net.who.dso;
    const paymentCid = net.ids.contractId();
    const choiceArg = V.record({
      paymentCid: V.contractId(paymentCid),
      transferContext: this.transferContext(),
      ansRulesCid: V.contractId(net.gov.ansRulesCid),
    });
    const action = V.variant(
      'ARC_AnsEntryContext',
      V.record({
        ansEntryContextCid: V.contractId(entry.contextCid),
        ansEntryContextAction: V.variant('ANSRARC_CollectInitialEntryPayment', choiceArg),
      }),
    );
    net.gov.confirmAndExecute(action, (tx, parent) => {
      const plan = this.paymentPlan(entry);
      if (!plan) {
        // The user spent the money meanwhile: the request lapses.
        this.terminateContext(tx, parent, entry);
        return;
      }
      const ctxNode = tx.exercise(parent, entry.contextCid, 'AnsEntryContext_CollectInitialEntryPayment', choiceArg, [dso]);
      const rulesNode = tx.exercise(
        ctxNode,
        net.gov.ansRulesCid,
        'AnsRules_CollectInitialEntryPayment',
        V.record({
          user: V.party(entry.user.party),
          entryContext: V.contractId(entry.contextCid),
          paymentCid: V.contractId(paymentCid),
          transferContext: this.transferContext(),
        }),
        [dso, entry.user.party],
      );
      this.payAndBurn(tx, rulesNode, plan);
      entry.expiresAt = tx.effectiveAt + net.ticks(ANS_ENTRY_TICKS);
      entry.entryCid = this.createEntry(tx, rulesNode, entry);
      const result = V.record({ entryCid: V.contractId(entry.entryCid), subscriptionStateCid: V.contractId(entry.subscriptionCid) });
      rulesNode.result = result;
      ctxNode.result = result;
      this.scheduleRenewalOrExpiry(entry);
    });
  }

  private scheduleRenewalOrExpiry(entry: Entry): void {
    const net = this.net;
    if (net.rng.chance(RENEWAL_SHARE)) net.at(entry.expiresAt - net.ticks(ANS_RENEWAL_TICKS) / 2n, () => this.renew(entry));
    else net.at(entry.expiresAt + BigInt(net.rng.int(1, 60)) * 1_000_000n, () => this.expire(entry));
  }

  /** DsoRules_CollectEntryRenewalPayment: the fee is paid and burnt, the entry recreated with a later expiry. */
  private renew(entry: Entry): CanonicalItem {
    const net = this.net;
    const plan = this.paymentPlan(entry);
    if (!plan) return this.expire(entry);
    const sv = net.randomSv();
    const dso = net.who.dso;
    return net.submit(net.svSubmitter(sv), (tx) => {
      const paymentCid = V.contractId(net.ids.contractId());
      const choiceArg = V.record({
        paymentCid,
        entryCid: V.contractId(entry.entryCid),
        transferContext: this.transferContext(),
        ansRulesCid: V.contractId(net.gov.ansRulesCid),
      });
      const root = tx.exercise(
        null,
        net.gov.dsoRulesCid,
        'DsoRules_CollectEntryRenewalPayment',
        V.record({ ansEntryContextCid: V.contractId(entry.contextCid), choiceArg, sv: V.some(V.party(sv.party)) }),
        [sv.party],
      );
      const ctxNode = tx.exercise(root, entry.contextCid, 'AnsEntryContext_CollectEntryRenewalPayment', choiceArg, [dso]);
      const rulesNode = tx.exercise(
        ctxNode,
        net.gov.ansRulesCid,
        'AnsRules_CollectEntryRenewalPayment',
        V.record({
          user: V.party(entry.user.party),
          entryContext: V.contractId(entry.contextCid),
          paymentCid,
          entryCid: V.contractId(entry.entryCid),
          transferContext: this.transferContext(),
        }),
        [dso, entry.user.party],
      );
      this.payAndBurn(tx, rulesNode, plan);
      const lifetime = net.ticks(ANS_ENTRY_TICKS);
      const renewNode = tx.exercise(
        rulesNode,
        entry.entryCid,
        'AnsEntry_Renew',
        V.record({ extension: relTime(lifetime) }),
        [entry.user.party, dso],
        true,
      );
      entry.expiresAt += lifetime;
      entry.entryCid = this.createEntry(tx, renewNode, entry);
      const newEntry = V.contractId(entry.entryCid);
      const subscription = V.contractId(entry.subscriptionCid);
      renewNode.result = V.record({ entryCid: newEntry });
      rulesNode.result = V.record({ entryCid: newEntry, subscriptionStateCid: subscription });
      ctxNode.result = V.record({ entryCid: newEntry, subscriptionStateCid: subscription });
      root.result = V.record({ ansEntry: newEntry, subscriptionState: subscription });
      this.scheduleRenewalOrExpiry(entry);
    });
  }

  /** DsoRules_ExpireAnsEntry and DsoRules_TerminateSubscription: the entry and its context end; the name is free again. */
  private expire(entry: Entry): CanonicalItem {
    const net = this.net;
    const sv = net.randomSv();
    const dso = net.who.dso;
    return net.submit(net.svSubmitter(sv), (tx) => {
      const actor = V.record({ actor: V.party(dso) });
      const expireRoot = tx.exercise(
        null,
        net.gov.dsoRulesCid,
        'DsoRules_ExpireAnsEntry',
        V.record({ ansEntryCid: V.contractId(entry.entryCid), choiceArg: actor, sv: V.some(V.party(sv.party)) }),
        [sv.party],
      );
      tx.exercise(expireRoot, entry.entryCid, 'AnsEntry_Expire', actor, [dso], true).result = V.emptyRecord();
      expireRoot.result = fieldlessResult('DsoRules_ExpireAnsEntryResult');
      const terminatedSubscriptionCid = V.contractId(net.ids.contractId());
      const terminateRoot = tx.exercise(
        null,
        net.gov.dsoRulesCid,
        'DsoRules_TerminateSubscription',
        V.record({ ansEntryContextCid: V.contractId(entry.contextCid), terminatedSubscriptionCid, sv: V.some(V.party(sv.party)) }),
        [sv.party],
      );
      this.terminateContext(tx, terminateRoot, entry, terminatedSubscriptionCid);
      terminateRoot.result = fieldlessResult('DsoRules_TerminateSubscriptionResult');
    });
  }

  private terminateContext(tx: TxBuilder, parent: ExerciseNode, entry: Entry, terminated?: DamlValue): void {
    const dso = this.net.who.dso;
    const arg = V.record({ actor: V.party(dso), terminatedSubscriptionCid: terminated ?? V.contractId(this.net.ids.contractId()) });
    tx.exercise(parent, entry.contextCid, 'AnsEntryContext_Terminate', arg, [dso], true).result = V.emptyRecord();
    this.taken.delete(entry.name);
  }

  private paymentPlan(entry: Entry): TransferPlan | undefined {
    return this.net.wallets.plan({
      sender: entry.user.party,
      provider: this.net.who.dso,
      outputs: [{ receiver: this.net.who.dso, amount: FEES.ansEntryFee }],
    });
  }

  /** The entry fee goes to the DSO party, which burns it at once. */
  private payAndBurn(tx: TxBuilder, parent: ExerciseNode, plan: TransferPlan): void {
    const paid = this.net.wallets.emit(tx, parent, plan).outputCids[0] as string;
    tx.archive(parent, paid, [this.net.who.dso]);
  }

  private createEntry(tx: TxBuilder, parent: ExerciseNode, entry: Entry): string {
    const dso = this.net.who.dso;
    return tx.create(
      parent,
      TEMPLATES.ansEntry,
      V.record({
        user: V.party(entry.user.party),
        dso: V.party(dso),
        name: V.text(entry.name),
        url: V.text(entry.url),
        description: V.text(entry.description),
        expiresAt: V.timestamp(entry.expiresAt),
      }),
      [entry.user.party, dso],
    );
  }

  /** Splice.AmuletRules.AppTransferContext */
  private transferContext(): DamlValue {
    const net = this.net;
    return V.record({
      amuletRules: V.contractId(net.gov.amuletRulesCid),
      openMiningRound: V.contractId(net.rounds.current().cid),
      featuredAppRight: V.none(),
    });
  }
}
