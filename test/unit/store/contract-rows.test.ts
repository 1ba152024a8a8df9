import { CONTRACT_COLUMNS, CreatedContracts } from '../../../src/store/contract-rows';
import type { ContractRow } from '../../../src/store/ingest-rows';
import { copyTextRows } from '../../support/store/copy-text-rows';

const T = (s: string) => `2025-01-01T${s}.000000Z`;

const contract = (id: string, parties: { signatories: string[]; observers: string[] }): ContractRow => ({
  migration_id: 3,
  contract_id: id,
  template_id: 'pkg:Splice.Amulet:Amulet',
  package_name: 'splice-amulet',
  qualified_name: 'Splice.Amulet:Amulet',
  create_arguments: '{"note":"tab\\there, back\\\\slash, é"}',
  created_at: T('09:59:59'),
  ...parties,
  created_in_update_id: 'u1',
  created_event_id: `u1:${id}`,
  created_record_time: T('10:00:00'),
  archived_record_time: 'infinity',
  archived_in_update_id: null,
  synchronizer_id: 'sync::1',
  reassignment_counter: 0,
  dso_party: 'dso::1',
  amulet_owner: 'alice::1',
  amulet_initial_amount: '5.0000000000',
  amulet_created_round: 7,
  amulet_rate_per_round: '0.0001',
  amulet_locked: true,
  lock_holders: ['bob::1', 'q"uote'],
  lock_expires_at: T('11:00:00'),
  round_number: null,
  ans_name: null,
  ans_user: null,
  ans_expires_at: null,
});

/** A row's values as COPY text reads them back. */
const asText = (row: ContractRow) =>
  Object.fromEntries(
    CONTRACT_COLUMNS.map((k) => {
      const v = row[k];
      if (v === null) return [k, null];
      if (Array.isArray(v)) return [k, `{${v.map((x) => `"${x.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(',')}}`];
      if (typeof v === 'boolean') return [k, v ? 't' : 'f'];
      return [k, String(v)];
    }),
  );

describe('contracts a batch creates, encoded as they are planned', () => {
  const kept = contract('kept', { signatories: ['alice::1', 'dso::1'], observers: ['dso::1', 'bob::1'] });
  const brief = contract('brief', { signatories: ['alice::1'], observers: [] });
  const moved = contract('moved', { signatories: ['carol::1'], observers: [] });

  function planned() {
    const contracts = new CreatedContracts();
    const [k, b, m] = [kept, brief, moved].map((c) => contracts.add(c));
    // Archived after the first snapshot boundary at or after creation (12:00): in a snapshot.
    k!.archived_record_time = '2025-01-01T12:00:00.000001Z';
    k!.archived_in_update_id = 'u9';
    // Archived before it: in none.
    b!.archived_record_time = '2025-01-01T12:00:00.000000Z';
    b!.archived_in_update_id = 'u8';
    m!.synchronizer_id = null;
    m!.reassignment_counter = 2;
    return contracts;
  }

  it('writes each contract with its columns as they stand when the batch is written', () => {
    const contracts = planned();
    expect(contracts.size).toBe(3);
    const rows = copyTextRows(contracts.copies().contracts);
    expect(rows).toEqual([
      asText({ ...kept, archived_record_time: '2025-01-01T12:00:00.000001Z', archived_in_update_id: 'u9' }),
      asText({ ...brief, archived_record_time: '2025-01-01T12:00:00.000000Z', archived_in_update_id: 'u8' }),
      asText({ ...moved, synchronizer_id: null, reassignment_counter: 2 }),
    ]);
    expect(rows[0]!.create_arguments).toBe(kept.create_arguments);
  });

  it('writes a stakeholder row per distinct party of the contracts in some snapshot, with their archive time', () => {
    const rows = copyTextRows(planned().copies().stakeholders);
    const shared = (c: ContractRow) => ({
      migration_id: '3',
      created_at: c.created_at,
      contract_id: c.contract_id,
      package_name: c.package_name,
      qualified_name: c.qualified_name,
      created_record_time: c.created_record_time,
    });
    expect(rows).toEqual([
      { ...shared(kept), party: 'alice::1', archived_record_time: '2025-01-01T12:00:00.000001Z' },
      { ...shared(kept), party: 'dso::1', archived_record_time: '2025-01-01T12:00:00.000001Z' },
      { ...shared(kept), party: 'bob::1', archived_record_time: '2025-01-01T12:00:00.000001Z' },
      { ...shared(moved), party: 'carol::1', archived_record_time: 'infinity' },
    ]);
  });

  it('counts what it holds outside the heap', () => {
    const contracts = new CreatedContracts();
    expect(contracts.bytes).toBe(0);
    contracts.add(kept);
    expect(contracts.bytes).toBeGreaterThan(kept.create_arguments.length);
  });
});

describe('the stakeholders of a contract of the batch, read back from its encoded rows', () => {
  it('are its distinct signatories and observers, escaped characters and all', () => {
    const contracts = new CreatedContracts();
    const odd = contracts.add(contract('odd', { signatories: ['alice::1', 'back\\slash::1'], observers: ['tab\there::1', 'alice::1'] }));
    const plain = contracts.add(contract('plain', { signatories: ['bob::1'], observers: [] }));
    expect(contracts.stakeholdersOf(odd)).toEqual(['alice::1', 'back\\slash::1', 'tab\there::1']);
    expect(contracts.stakeholdersOf(plain)).toEqual(['bob::1']);
  });
});
