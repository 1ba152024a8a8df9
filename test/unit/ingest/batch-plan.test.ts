/**
 * The planner on its own (no database): the rows it makes of a batch, the
 * checks it makes of the stream, and the ACS deltas per snapshot slot.
 */
import { BatchPlanner, planBatch, type Plan } from '../../../src/ingest/batch-plan';
import { SourceItemError, type SourceItem } from '../../../src/ingest/source';
import type { CanonicalItem, TreeEvent } from '../../../src/domain/items';
import { parseTimestamp } from '../../../src/domain/time';
import { decodePayload } from '../../../src/store/update-payload';
import { archived, created, DSO, reassignment, SYNC, transaction } from '../../support/items/hand-items';
import { copyTextRows } from '../../support/store/copy-text-rows';

const source = (items: CanonicalItem[], first = 1): SourceItem[] =>
  items.map((item, i) => ({ item, position: String(first + i), origin: `test:${first + i}` }));
const plan = (items: CanonicalItem[], stored: string[] = []) =>
  planBatch({ items: source(items), previous: undefined, storedUpdates: new Set(stored), storedVerdicts: new Set() });
const failure = (items: CanonicalItem[]) => {
  try {
    plan(items);
  } catch (err) {
    expect(err).toBeInstanceOf(SourceItemError);
    return (err as Error).message;
  }
  throw new Error('the batch was planned');
};

/** The rows of a binary COPY: each row's fields as buffers (null for NULL). */
function binaryRows(data: Buffer[]): (Buffer | null)[][] {
  const all = Buffer.concat(data);
  const rows: (Buffer | null)[][] = [];
  let at = 19;
  for (let count = all.readInt16BE(at); count !== -1; count = all.readInt16BE(at)) {
    at += 2;
    const row: (Buffer | null)[] = [];
    for (let f = 0; f < count; f++) {
      const length = all.readInt32BE(at);
      at += 4;
      row.push(length === -1 ? null : all.subarray(at, at + length));
      at += Math.max(length, 0);
    }
    rows.push(row);
  }
  return rows;
}

/** The contracts the batch creates, as their COPY rows (text; null for NULL). */
const contractRows = (p: Plan) => copyTextRows(p.rows.contracts.copies().contracts);

/** The stored texts of each planned update, in order. */
const updateTexts = (p: Plan) =>
  binaryRows(p.rows.appended.updates.data()).map((row) => ({
    updateId: row[0]!.toString('utf8'),
    ...decodePayload(row[10]!, row[11]!.readInt32BE(0)),
  }));

const T = (s: string) => `2025-01-01T${s}.000000Z`;

describe('the batch planner', () => {
  it('writes a contract created and archived within the batch once, already archived, with no archive row', () => {
    const p = plan([
      transaction('u1', T('10:00:00'), [created('u1', 0, 'c1', '5.0')]),
      transaction('u2', T('10:00:01'), [archived('u2', 0, 'c1')]),
    ]);
    expect(contractRows(p)).toHaveLength(1);
    expect(contractRows(p)[0]).toMatchObject({
      contract_id: 'c1',
      created_in_update_id: 'u1',
      created_event_id: 'u1:0',
      created_record_time: T('10:00:00'),
      archived_record_time: T('10:00:01'),
      archived_in_update_id: 'u2',
      amulet_owner: 'alice::1220',
      amulet_initial_amount: '5.0',
      amulet_locked: 'f',
      synchronizer_id: SYNC,
    });
    expect(p.rows.archives).toEqual([]);
    expect(p.counts).toEqual({ updates: 2, importUpdates: 0, events: 2, verdicts: 0, reassignments: 0 });
    expect(p.rows.ranges).toEqual([
      { migration_id: 0, synchronizer_id: SYNC, min_record_time: T('10:00:00'), max_record_time: T('10:00:01'), update_count: 2 },
    ]);
    expect({ items: p.items, updates: p.updates, position: p.position, lastOrigin: p.lastOrigin }).toEqual({
      items: 2,
      updates: 2,
      position: '2',
      lastOrigin: 'test:2',
    });
  });

  it('counts updates per migration and UTC hour of record time', () => {
    const p = plan([
      transaction('h1', T('10:59:59'), [created('h1', 0, 'c1')]),
      transaction('h2', T('11:00:00'), [created('h2', 0, 'c2')]),
      transaction('h3', T('11:30:00'), [archived('h3', 0, 'c1')]),
      reassignment('h4', '2025-01-01T11:59:59.999999Z', 'unassign', 'c2', 1),
    ]);
    expect(p.rows.hourlyCounts).toEqual([
      { migration_id: 0, hour: T('10:00:00'), update_count: 1 },
      { migration_id: 0, hour: T('11:00:00'), update_count: 3 },
    ]);
  });

  it('archives a contract of an earlier batch with an archive row carrying its snapshot slot', () => {
    const p = plan([transaction('u3', T('10:00:02'), [archived('u3', 0, 'c-old')])]);
    expect(p.rows.archives).toEqual([
      { migration_id: 0, contract_id: 'c-old', record_time: T('10:00:02'), update_id: 'u3', slot: '2025-01-01T12:00:00.000000Z' },
    ]);
    expect(p.archiveOrigins.get(0, 'c-old')).toEqual({ origin: 'test:1', updateId: 'u3' });
  });

  it('counts the ACS deltas per slot: created and archived contracts, amulet sums, the highest created_at', () => {
    const p = plan([
      transaction('u1', T('08:59:59'), [created('u1', 0, 'a1', '1.5'), created('u1', 1, 'n1')]),
      transaction('u2', T('09:00:00'), [created('u2', 0, 'a2', '2.25')]),
      transaction('u3', T('09:00:01'), [archived('u3', 0, 'a1', 'x:Splice.Amulet:Amulet', 'splice-amulet'), archived('u3', 1, 'c-old')]),
    ]);
    expect(p.rows.acsDeltas).toEqual([
      // Boundaries are inclusive: 09:00:00 belongs to the 09:00 slot.
      {
        migration_id: 0,
        slot: T('09:00:00'),
        contract_count: 3,
        unlocked_amulet: '3.7500000000',
        locked_amulet: '0.0000000000',
        max_created_at: '2025-01-01T00:00:00.000000Z',
        archived_count: 0,
      },
      {
        migration_id: 0,
        slot: T('12:00:00'),
        contract_count: -1,
        unlocked_amulet: '-1.5000000000',
        locked_amulet: '0.0000000000',
        max_created_at: null,
        archived_count: 1,
      },
    ]);
    // The archive of an earlier contract is counted by the store, which knows its amount.
    expect(p.rows.archives.map((a) => a.contract_id)).toEqual(['c-old']);
  });

  it("keeps the created-event blobs of the update's contracts, and refuses one of another contract or not in base64", () => {
    const withBlobs = (item: CanonicalItem, blobs: unknown) => ({ ...item, created_event_blobs: blobs }) as CanonicalItem;
    const p = plan([
      withBlobs(transaction('u1', T('10:00:00'), [created('u1', 0, 'c1', '5.0'), created('u1', 1, 'c2')]), { c1: 'CgMyLjE=', c2: '' }),
      withBlobs(reassignment('u2', T('10:00:01'), 'assign', 'c3', 1), { c3: 'AAAA' }),
      // A later blob of the same contract replaces the earlier one.
      withBlobs(reassignment('u3', T('10:00:02'), 'assign', 'c3', 2), { c3: 'BBBB' }),
    ]);
    expect(p.rows.contractBlobs).toEqual([
      { contract_id: 'c1', blob: 'CgMyLjE=' },
      { contract_id: 'c3', blob: 'BBBB' },
    ]);
    const tx = transaction('u9', T('10:00:00'), [created('u9', 0, 'c9')]);
    expect(failure([withBlobs(tx, { 'c-other': 'AAAA' })])).toBe(
      'test:1 (update u9): created_event_blobs names c-other, which the update does not create',
    );
    expect(failure([withBlobs(tx, { c9: 'not base64!' })])).toBe('test:1 (update u9): the created_event_blob of c9 is not base64');
    expect(failure([withBlobs(tx, { c9: 'AAA' })])).toBe('test:1 (update u9): the created_event_blob of c9 is not base64');
    expect(failure([withBlobs(tx, ['AAAA'])])).toBe('test:1 (update u9): created_event_blobs must be an object');
  });

  it('makes a repeated update and an update stored already no-ops', () => {
    const u1 = transaction('u1', T('10:00:00'), [created('u1', 0, 'c1')]);
    const p = plan([u1, u1, transaction('u0', T('10:00:01'), [created('u0', 0, 'c0')])], ['u0']);
    expect(contractRows(p).map((c) => c.contract_id)).toEqual(['c1']);
    expect({ items: p.items, updates: p.updates }).toEqual({ items: 3, updates: 1 });
  });

  it('names what is wrong with a bad item', () => {
    const dangling = transaction('u1', T('10:00:00'), [created('u1', 0, 'c1')]);
    (dangling.update as { root_event_ids: string[] }).root_event_ids.push('u1:7');
    expect(failure([dangling])).toBe('test:1 (update u1): event id u1:7 is referenced but not in events_by_id');

    const orphan = transaction('u1', T('10:00:00'), [created('u1', 0, 'c1')]);
    (orphan.update as { events_by_id: Record<string, TreeEvent> }).events_by_id['u1:9'] = created('u1', 9, 'c9');
    expect(failure([orphan])).toBe('test:1 (update u1): event u1:9 is not reachable from root_event_ids');

    expect(failure([transaction('u1', T('10:00:01'), []), transaction('u2', T('10:00:00'), [])])).toBe(
      'test:2 (update u2): out of order: (migration 0, 2025-01-01T10:00:00.000000Z) comes after (migration 0, 2025-01-01T10:00:01.000000Z)',
    );
    expect(
      failure([transaction('u1', T('10:00:00'), [created('u1', 0, 'c1')]), transaction('u2', T('10:00:01'), [created('u2', 0, 'c1')])]),
    ).toBe('test:2 (update u2): contract c1 is created twice in migration 0');
    expect(
      failure([transaction('u1', T('10:00:00'), [archived('u1', 0, 'c1')]), transaction('u2', T('10:00:01'), [archived('u2', 0, 'c1')])]),
    ).toBe('test:2 (update u2): contract c1 is archived twice');
    expect(failure([{ update: null, verdict: null } as unknown as CanonicalItem])).toBe('test:1: an item needs an update or a verdict');
  });

  it('records the result of a closed vote with the facts requests filter on, and refuses a malformed one', () => {
    const close = (updateId: string, result: unknown): TreeEvent => ({
      ...(archived(updateId, 0, 'rules', 'pkg:Splice.DsoRules:DsoRules', 'splice-dso-governance') as Extract<
        TreeEvent,
        { event_type: 'exercised_event' }
      >),
      choice: 'DsoRules_CloseVoteRequest',
      consuming: false,
      exercise_result: result as never,
    });
    const result = {
      request: {
        requester: 'sv-2',
        action: { tag: 'ARC_DsoRules', value: { dsoAction: { tag: 'SRARC_GrantFeaturedAppRight', value: { provider: 'p::1' } } } },
      },
      completedAt: '2025-01-01T10:00:00.123456Z',
      outcome: { tag: 'VRO_Accepted', value: { effectiveAt: '2025-01-02T00:00:00Z' } },
    };
    const p = plan([transaction('u1', T('10:00:00'), [close('u1', result)])]);
    const text = Buffer.concat(p.rows.appended.voteResults.data()).toString('utf8');
    expect(text.trimEnd().split('\t')).toEqual([
      '0',
      '2025-01-01T10:00:00.000000Z',
      'u1',
      'u1:0',
      'SRARC_GrantFeaturedAppRight',
      't',
      'sv-2',
      '2025-01-02T00:00:00.000000Z',
      '2025-01-01T10:00:00.123456Z',
      JSON.stringify(result),
    ]);
    expect(failure([transaction('u1', T('10:00:00'), [close('u1', { outcome: { tag: 'VRO_Expired', value: {} } })])])).toBe(
      'test:1 (update u1): event u1:0: not a DsoRules_CloseVoteRequestResult: it needs request.requester, completedAt and outcome',
    );
  });

  it('reassigns known and unknown contracts, and refuses a counter going down', () => {
    const p = plan([
      transaction('u1', T('10:00:00'), [created('u1', 0, 'c1')]),
      reassignment('r1', T('10:00:01'), 'unassign', 'c1', 1),
      reassignment('r2', T('10:00:02'), 'unassign', 'c-old', 3),
      reassignment('r3', T('10:00:03'), 'assign', 'c-new', 2),
    ]);
    expect(contractRows(p).map((c) => [c.contract_id, c.synchronizer_id, c.reassignment_counter])).toEqual([['c1', null, '1']]);
    expect(p.rows.reassignments).toEqual([{ migration_id: 0, contract_id: 'c-old', synchronizer_id: null, reassignment_counter: 3 }]);
    expect(p.rows.assignedContracts.map((c) => [c.contract_id, c.synchronizer_id, c.reassignment_counter])).toEqual([['c-new', SYNC, 2]]);
    expect(p.counts.reassignments).toBe(3);
    expect(failure([reassignment('r1', T('10:00:01'), 'assign', 'c2', 2), reassignment('r2', T('10:00:02'), 'unassign', 'c2', 1)])).toBe(
      'test:2 (update r2): reassignment_counter 1 of c2 is below its previous 2',
    );
  });

  it('records the last import update of a migration and no record-time range for imports', () => {
    const importTime = '0001-01-01T00:00:00.000000Z';
    const p = plan([
      transaction('imp-b', importTime, [created('imp-b', 0, 'c2')], 1),
      transaction('imp-a', importTime, [created('imp-a', 0, 'c1')], 1),
    ]);
    expect(p.rows.migrations).toEqual([{ migration_id: 1, last_import_update_id: 'imp-b' }]);
    expect(p.rows.ranges).toEqual([]);
    expect(p.rows.hourlyCounts).toEqual([]);
    expect(p.counts).toMatchObject({ updates: 0, importUpdates: 2 });
    expect(contractRows(p).map((c) => [c.created_in_update_id, c.created_event_id])).toEqual([
      [null, null],
      [null, null],
    ]);
  });

  it('writes verdict-only items (rejections) and counts them', () => {
    const verdict = {
      update_id: 'rejected-1',
      migration_id: 0,
      domain_id: SYNC,
      record_time: T('10:00:00'),
      finalization_time: T('10:00:01'),
      submitting_parties: [DSO],
      submitting_participant_uid: 'participant::1220',
      verdict_result: 'VERDICT_RESULT_REJECTED',
      mediator_group: 0,
      transaction_views: { views: [], root_views: [] },
    };
    const p = plan([
      {
        update: null,
        verdict,
        traffic_summary: { total_traffic_cost: 7, envelope_traffic_summaries: [] },
        app_activity_records: null,
      } as unknown as CanonicalItem,
    ]);
    expect(p.counts).toEqual({ updates: 0, importUpdates: 0, events: 0, verdicts: 1, reassignments: 0 });
    expect(p.rows.appended.verdicts.size).toBe(1);
    expect(p.rows.appended.traffic.size).toBe(1);
    expect(p.rows.appended.updates.size).toBe(0);
  });

  it('stores the texts an item arrived with, and writes again an update that carries its external hash', () => {
    const plain = transaction('u1', T('10:00:00'), []);
    const hashed = { ...transaction('u2', T('10:00:01'), []) };
    (hashed.update as { external_transaction_hash?: string }).external_transaction_hash = 'ab12';
    const texts = { update: '{"update_id":"u1","as":"received"}', updateProtobuf: '{"update_id":"u1","protobuf":true}' };
    const planner = new BatchPlanner(undefined);
    planner.add({ item: plain, texts, position: '1', origin: 'test:1' });
    planner.add({
      item: hashed,
      texts: { update: 'not used: it holds the hash', updateProtobuf: JSON.stringify({ ...hashed.update, p: 1 }) },
      position: '2',
      origin: 'test:2',
    });
    const { external_transaction_hash: _h, ...served } = hashed.update as { external_transaction_hash?: string };
    expect(updateTexts(planner.finish())).toEqual([
      { updateId: 'u1', compactJson: texts.update, protobufJson: texts.updateProtobuf },
      { updateId: 'u2', compactJson: JSON.stringify(served), protobufJson: JSON.stringify({ ...served, p: 1 }) },
    ]);
  });

  it('stores the texts of an update with its external hash as received, the hash cut off their end', () => {
    const hashed = { ...transaction('u2', T('10:00:01'), []) };
    (hashed.update as { external_transaction_hash?: string }).external_transaction_hash = 'ab12';
    // Integer-like keys in received order: a parsed and written again text would reorder them.
    const compact = '{"update_id":"u2","m":{"b":1,"10":2},"external_transaction_hash":"ab12"}';
    const protobuf = '{"update_id":"u2","m":{"b":{"int64":"1"},"10":{"int64":"2"}},"external_transaction_hash":"ab12"}';
    const planner = new BatchPlanner(undefined);
    planner.add({ item: hashed, texts: { update: compact, updateProtobuf: protobuf }, position: '1', origin: 'test:1' });
    expect(updateTexts(planner.finish())).toEqual([
      {
        updateId: 'u2',
        compactJson: '{"update_id":"u2","m":{"b":1,"10":2}}',
        protobufJson: '{"update_id":"u2","m":{"b":{"int64":"1"},"10":{"int64":"2"}}}',
      },
    ]);
  });

  it('follows on from the previous batch: an item before its last key is out of order', () => {
    const planner = new BatchPlanner({ migrationId: 0, recordTime: parseTimestamp(T('10:00:05')) });
    expect(() => planner.add(source([transaction('u1', T('10:00:04'), [])])[0]!)).toThrow('out of order');
  });
});
