/**
 * A consistency checker for a stream of canonical items, written against the
 * item JSON only (no simulator code): it replays the stream with its own
 * active-contract set and reports every rule it sees broken.
 */

import type { CanonicalItem, CreatedEvent, TransactionUpdate } from '../../../src/domain/items';

const IMPORT_TIME = '0001-01-01T00:00:00.000000Z';

interface Active {
  readonly templateId: string;
  readonly created: CreatedEvent;
  synchronizer: string;
  counter: number;
  /** unassign_id while unassigned and not yet assigned. */
  pendingUnassign: string | null;
}

export interface CheckResult {
  readonly errors: string[];
  readonly transactions: number;
  readonly reassignments: number;
  readonly importUpdates: number;
  readonly rejected: number;
  readonly migrations: number[];
}

export function checkStream(items: Iterable<CanonicalItem>): CheckResult {
  const errors: string[] = [];
  const fail = (where: string, what: string) => {
    if (errors.length < 50) errors.push(`${where}: ${what}`);
  };

  let migration: number | undefined;
  let active = new Map<string, Active>();
  let createdThisMigration = new Set<string>();
  let lastRecordTime = '';
  // Imports of the current migration, compared with the ACS the previous migration ended with.
  let expectedImports: Map<string, Active> | null = null;
  let importsOpen = false;
  const roundNumbers = new Map<string, number>();
  const migrations: number[] = [];
  let transactions = 0;
  let reassignments = 0;
  let importUpdates = 0;
  let rejected = 0;

  const closeImports = (where: string) => {
    if (expectedImports && expectedImports.size > 0) {
      fail(where, `${expectedImports.size} contracts active at the end of the previous migration were not imported`);
    }
    expectedImports = null;
    importsOpen = false;
  };

  const enterMigration = (m: number, where: string) => {
    if (migration === undefined) {
      migration = m;
      migrations.push(m);
      return;
    }
    if (m === migration) return;
    if (m < migration) return fail(where, `migration id went back from ${migration} to ${m}`);
    closeImports(where);
    for (const [cid, c] of active) if (c.pendingUnassign) fail(where, `contract ${cid} was in flight across a migration`);
    expectedImports = active;
    importsOpen = true;
    active = new Map();
    createdThisMigration = new Set();
    lastRecordTime = '';
    migration = m;
    migrations.push(m);
  };

  const checkRecordTime = (t: string, where: string) => {
    if (t <= lastRecordTime) fail(where, `record time ${t} not after ${lastRecordTime}`);
    lastRecordTime = t;
  };

  const create = (ev: CreatedEvent, synchronizer: string, where: string) => {
    if (createdThisMigration.has(ev.contract_id)) return fail(where, `contract ${ev.contract_id} created twice`);
    createdThisMigration.add(ev.contract_id);
    active.set(ev.contract_id, { templateId: ev.template_id, created: ev, synchronizer, counter: 0, pendingUnassign: null });
    const m = /:Splice\.Round:(\w+)$/.exec(ev.template_id);
    if (m && m[1]) {
      const n = Number((ev.create_arguments as { round: { number: string } }).round.number);
      const last = roundNumbers.get(m[1]);
      if (last !== undefined && n <= last) fail(where, `${m[1]} round ${n} created after round ${last}`);
      roundNumbers.set(m[1], n);
    }
  };

  const walkTransaction = (u: TransactionUpdate, where: string) => {
    const keys = Object.keys(u.events_by_id);
    const sorted = [...keys].sort();
    if (keys.join() !== sorted.join()) fail(where, 'events_by_id keys are not in lexicographic order');
    let next = 0;
    const seen = new Set<string>();
    const visit = (id: string, parentWhere: string) => {
      const ev = u.events_by_id[id];
      if (!ev) return fail(parentWhere, `event id ${id} is referenced but missing`);
      if (seen.has(id)) return fail(where, `event ${id} reached twice`);
      seen.add(id);
      if (id !== `${u.update_id}:${next}`) fail(where, `pre-order position ${next} holds event ${id}`);
      next++;
      if (ev.event_id !== id) fail(where, `event keyed ${id} has event_id ${ev.event_id}`);
      if (ev.event_type === 'created_event') return create(ev, u.synchronizer_id, `${where} ${id}`);
      const c = active.get(ev.contract_id);
      if (!c) fail(`${where} ${id}`, `${ev.choice} on contract ${ev.contract_id} which is not active`);
      else {
        if (c.templateId !== ev.template_id) fail(`${where} ${id}`, `template ${ev.template_id} differs from the created ${c.templateId}`);
        if (c.pendingUnassign) fail(`${where} ${id}`, `contract ${ev.contract_id} is used while unassigned`);
        if (c.synchronizer !== u.synchronizer_id) fail(`${where} ${id}`, `contract ${ev.contract_id} lives on ${c.synchronizer}`);
        if (ev.consuming) active.delete(ev.contract_id);
      }
      for (const child of ev.child_event_ids) visit(child, `${where} ${id}`);
    };
    for (const root of u.root_event_ids) visit(root, where);
    if (seen.size !== keys.length) fail(where, `${keys.length - seen.size} events are not reachable from the roots`);
  };

  const checkImport = (u: TransactionUpdate, where: string) => {
    importUpdates++;
    if (!importsOpen || !expectedImports) return fail(where, 'import update outside the start of a migration');
    const events = Object.values(u.events_by_id);
    if (events.length !== 1 || events[0]?.event_type !== 'created_event') return fail(where, 'import update is not a single create');
    const ev = events[0];
    const before = expectedImports.get(ev.contract_id);
    if (!before) return fail(where, `imported contract ${ev.contract_id} was not active at the end of the previous migration`);
    expectedImports.delete(ev.contract_id);
    const same =
      before.templateId === ev.template_id &&
      JSON.stringify(before.created.create_arguments) === JSON.stringify(ev.create_arguments) &&
      before.created.created_at === ev.created_at &&
      before.created.signatories.join() === ev.signatories.join() &&
      before.created.observers.join() === ev.observers.join() &&
      before.synchronizer === u.synchronizer_id;
    if (!same) fail(where, `imported contract ${ev.contract_id} differs from the one that was active`);
    createdThisMigration.add(ev.contract_id);
    active.set(ev.contract_id, { ...before, pendingUnassign: null });
  };

  let index = 0;
  for (const item of items) {
    const where = `item ${index++}`;
    const u = item.update;
    if (!u) {
      rejected++;
      if (!item.verdict) {
        fail(where, 'item with neither update nor verdict');
        continue;
      }
      enterMigration(item.verdict.migration_id, where);
      closeImports(where);
      checkRecordTime(item.verdict.record_time, where);
      continue;
    }
    if ('events_by_id' in u) {
      enterMigration(u.migration_id, where);
      if (u.record_time === IMPORT_TIME) {
        checkImport(u, where);
        continue;
      }
      closeImports(where);
      transactions++;
      checkRecordTime(u.record_time, where);
      walkTransaction(u, where);
      const v = item.verdict;
      if (
        v &&
        (v.update_id !== u.update_id ||
          v.record_time !== u.record_time ||
          v.migration_id !== u.migration_id ||
          v.domain_id !== u.synchronizer_id)
      ) {
        fail(where, 'verdict does not match its update');
      }
      continue;
    }
    reassignments++;
    const ev = u.event;
    enterMigration(ev.migration_id, where);
    closeImports(where);
    checkRecordTime(u.record_time, where);
    if ('created_event' in ev) {
      const assign = ev;
      const c = active.get(assign.created_event.contract_id);
      if (!c) fail(where, `assign of inactive contract ${assign.created_event.contract_id}`);
      else if (c.pendingUnassign !== assign.unassign_id) fail(where, `assign ${assign.unassign_id} has no matching unassign`);
      else if (c.counter !== assign.reassignment_counter)
        fail(where, `assign counter ${assign.reassignment_counter}, unassign had ${c.counter}`);
      else if (JSON.stringify(c.created.create_arguments) !== JSON.stringify(assign.created_event.create_arguments)) {
        fail(where, 'assigned contract arguments differ from the created ones');
      } else {
        c.pendingUnassign = null;
        c.synchronizer = assign.target_synchronizer;
      }
    } else {
      const unassign = ev;
      const c = active.get(unassign.contract_id);
      if (!c) fail(where, `unassign of inactive contract ${unassign.contract_id}`);
      else if (c.pendingUnassign) fail(where, `contract ${unassign.contract_id} unassigned twice`);
      else if (c.synchronizer !== unassign.source_synchronizer)
        fail(where, `unassign from ${unassign.source_synchronizer}, contract is on ${c.synchronizer}`);
      else if (unassign.reassignment_counter !== c.counter + 1) {
        fail(where, `reassignment counter ${unassign.reassignment_counter} after ${c.counter}`);
      } else {
        c.counter = unassign.reassignment_counter;
        c.pendingUnassign = unassign.unassign_id;
      }
    }
  }
  closeImports('end of stream');
  return { errors, transactions, reassignments, importUpdates, rejected, migrations };
}
