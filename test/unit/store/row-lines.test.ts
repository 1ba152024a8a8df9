/**
 * Rows the planner encodes without the generic encoder (CopyRows.add), which must give the same bytes.
 * Each activity row, encoded straight from its activity (AppendedRows.transactionActivities): on every
 * transaction of a simulated stream (every kind of activity it makes), and an expiry whose amount is an
 * earlier contract's, completed by `amountOf` or handed back, as the planner did with the values. And
 * each update_subjects row (subjectLine), escapes included.
 */
import { isTransaction, type TransactionUpdate } from '../../../src/domain/items';
import { CopyRows } from '../../../src/store/copy-text';
import { ACTIVITY_COLUMNS, AppendedRows, activityValues, completeActivity, subjectCopies } from '../../../src/store/ingest-rows';
import { sampleStream } from '../simulator/fixtures';

const RECORD_TIME = '2026-01-02 03:04:05.678901+00';

/** The DSO expires an amulet of an earlier update: the row's amount is that contract's initial amount. */
const expiryOfEarlierAmulet: TransactionUpdate = {
  update_id: 'expiry-update',
  migration_id: 3,
  workflow_id: '',
  record_time: '2026-01-02T03:04:05.678901Z',
  synchronizer_id: 'sync::1220',
  effective_at: '2026-01-02T03:04:05.678901Z',
  root_event_ids: ['expiry-update:0'],
  events_by_id: {
    'expiry-update:0': {
      event_type: 'exercised_event',
      event_id: 'expiry-update:0',
      contract_id: 'earlier-amulet',
      template_id: 'pkg:Splice.Amulet:Amulet',
      package_name: 'splice-amulet',
      choice: 'Amulet_Expire',
      choice_argument: { roundCid: 'r' },
      child_event_ids: [],
      exercise_result: { expireSum: { owner: 'alice::1220', round: { number: '9' } }, meta: null },
      consuming: true,
      acting_parties: ['DSO::1220'],
      interface_id: null,
    },
  },
};

/** The stream's transactions, with the expiry between them. */
function transactions(): TransactionUpdate[] {
  const txs = sampleStream()
    .map((item) => item.update)
    .filter((u): u is TransactionUpdate => u !== undefined && u !== null && isTransaction(u));
  return [...txs.slice(0, 100), expiryOfEarlierAmulet, ...txs.slice(100)];
}

describe('activity rows encoded from the activities', () => {
  it.each([
    ['no amount known', (): string | undefined => undefined],
    ['every amount known', (): string | undefined => '12.5000000000'],
  ] as const)('are the generic encoding of activityValues, %s', (_, amountOf) => {
    const txs = transactions();
    const appended = new AppendedRows();
    const generic = new CopyRows('activities', ACTIVITY_COLUMNS);
    const pendingValues: unknown[] = [];
    const expectedPending: unknown[] = [];
    let rows = 0;
    let kinds = new Set<unknown>();
    for (const tx of txs) {
      for (const p of appended.transactionActivities(tx, 3, RECORD_TIME, [], amountOf)) pendingValues.push(p);
      for (const values of activityValues(tx, 3, RECORD_TIME, [])) {
        rows += 1;
        kinds = kinds.add(values[4]);
        if (values[8] === null) {
          const amount = amountOf();
          if (amount === undefined) {
            expectedPending.push({ migration_id: 3, contract_id: values[26], values });
            continue;
          }
          completeActivity(values, amount);
        }
        generic.add(values);
      }
    }
    expect(rows).toBeGreaterThan(1000);
    if (amountOf() === undefined) expect(expectedPending.length).toBeGreaterThan(0);
    if (amountOf() !== undefined) expect(expectedPending).toEqual([]);
    expect(kinds.size).toBeGreaterThan(8);
    expect(appended.activities.size).toBe(generic.size);
    expect(Buffer.concat(appended.activities.data()).toString('utf8')).toBe(Buffer.concat(generic.data()).toString('utf8'));
    expect(pendingValues).toEqual(expectedPending);
  });
});

describe('update_subjects rows encoded by subjectLine', () => {
  it('are the generic encoding of their columns', () => {
    const rows = [
      {
        migration_id: 3,
        record_time: RECORD_TIME,
        synchronizer_id: 'sync::1220',
        update_id: 'u1',
        parties: ['a::1', 'b::2'],
        templates: ['p:M:T'],
      },
      { migration_id: 0, record_time: RECORD_TIME, synchronizer_id: 's', update_id: 'u2', parties: [], templates: ['p:M:T', 'p:N:U'] },
      {
        migration_id: 1,
        record_time: RECORD_TIME,
        synchronizer_id: 's\tx',
        update_id: 'u\\3',
        parties: ['odd "party"', 'tab\there'],
        templates: [],
      },
    ];
    const generic = new CopyRows('update_subjects', [
      'migration_id',
      'record_time',
      'synchronizer_id',
      'update_id',
      'parties',
      'templates',
    ]);
    const appended = new AppendedRows();
    for (const row of rows) {
      generic.add([row.migration_id, row.record_time, row.synchronizer_id, row.update_id, row.parties, row.templates]);
      appended.subject(row);
    }
    expect(Buffer.concat(subjectCopies(rows).data()).toString('utf8')).toBe(Buffer.concat(generic.data()).toString('utf8'));
    expect(Buffer.concat(appended.subjects.data()).toString('utf8')).toBe(Buffer.concat(generic.data()).toString('utf8'));
  });
});
