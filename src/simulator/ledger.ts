/**
 * The simulator's own view of the active contract set. Every create and
 * consuming exercise the generator emits goes through here, so an attempt to
 * use a contract that is not active fails at generation time instead of
 * producing an inconsistent stream. Hard migrations import exactly this set.
 */

import type { Json } from '../domain/json';
import type { Micros } from '../domain/time';
import type { TemplateRef } from './templates';

export interface LedgerContract {
  readonly contractId: string;
  readonly template: TemplateRef;
  readonly compactArguments: Json;
  readonly protobufArguments: Json;
  readonly createdAt: Micros;
  readonly signatories: readonly string[];
  readonly observers: readonly string[];
  synchronizerId: string;
  reassignmentCounter: number;
}

export class Ledger {
  private readonly active = new Map<string, LedgerContract>();

  add(contract: LedgerContract): void {
    if (this.active.has(contract.contractId)) throw new Error(`contract ${contract.contractId} created twice`);
    this.active.set(contract.contractId, contract);
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
