/**
 * The simulator's own view of the active contract set. Every create and
 * consuming exercise the generator emits goes through here, so an attempt to
 * use a contract that is not active fails at generation time instead of
 * producing an inconsistent stream. Hard migrations import exactly this set.
 */

import type { DamlRecord } from '../domain/daml-value';
import type { Micros } from '../domain/time';
import type { TemplateRef } from './templates';

export interface LedgerContract {
  readonly contractId: string;
  readonly template: TemplateRef;
  /**
   * The create arguments, typed. Only this form is kept while the contract is
   * active (what active contracts hold is most of what the simulator keeps
   * alive, so most of its garbage-collection work): each event of the
   * contract renders the encoding it needs from it.
   */
  readonly arguments: DamlRecord;
  readonly createdAt: Micros;
  readonly signatories: readonly string[];
  readonly observers: readonly string[];
  synchronizerId: string;
  reassignmentCounter: number;
}

export class Ledger {
  private readonly active = new Map<string, LedgerContract>();

  add(contract: LedgerContract): void {
    // One hash lookup: a contract id seen before leaves the size unchanged.
    const size = this.active.size;
    this.active.set(contract.contractId, contract);
    if (this.active.size === size) throw new Error(`contract ${contract.contractId} created twice`);
  }

  get(contractId: string): LedgerContract {
    const c = this.active.get(contractId);
    if (!c) throw new Error(`contract ${contractId} is not active`);
    return c;
  }

  archive(contractId: string): LedgerContract {
    const c = this.get(contractId);
    this.active.delete(contractId);
    return c;
  }

  /** Active contracts ordered by contract id, the order of import updates. */
  sortedContracts(): LedgerContract[] {
    return [...this.active.values()].sort((x, y) => (x.contractId < y.contractId ? -1 : 1));
  }
}
