/**
 * Canonical items built by hand for the scan source tests: two migrations
 * whose record times overlap (migration 1 restarts below migration 0's
 * last time, and its first item has exactly the record time of migration
 * 0's first), mixing transactions with and without verdicts, verdict-only
 * items (rejections), assignments and unassignments. Transactions carry
 * distinct compact_json and protobuf_json renderings.
 */
import type { CanonicalItem, TransactionUpdate, Verdict } from '../../../src/domain/items';
import type { Json } from '../../../src/domain/json';
import { formatDateTime, formatInstant, formatRecordTime, parseTimestamp } from '../../../src/domain/time';

const SYNC = 'global-domain::1220b1431ef217342db44d516bb9befde802be7d8899637d290895fa58880f19accc';
const OTHER_SYNC = 'private-sync::1220c8d3f0b1a2e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e2d3c4b5a6f7e8d9c0';
const DSO = 'DSO::1220d2b4f6a8c0e1f3a5c7e9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1';
const ALICE = 'alice::1220a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9';
const AMULET = '3ca1343ab26b453d38c8adb70dca5f1ead8440c42b59b68f070786955cbf9ec1:Splice.Amulet:Amulet';
const RULES = '3ca1343ab26b453d38c8adb70dca5f1ead8440c42b59b68f070786955cbf9ec1:Splice.AmuletRules:AmuletRules';
const T0 = parseTimestamp('2025-03-10T14:00:00.000001Z');

const hex = (i: number, width: number) => i.toString(16).padStart(width, '0');
const updateId = (i: number) => `1220${hex(i, 64)}`;
const contractId = (i: number) => `00${hex(i, 64)}ca101220${hex(i, 64)}`;

function transaction(i: number, migrationId: number, recordTime: bigint, encoding: 'compact' | 'protobuf'): TransactionUpdate {
  const id = updateId(i);
  const amount = `${i}.0000000000`;
  const args: Json =
    encoding === 'compact'
      ? {
          dso: DSO,
          owner: ALICE,
          amount: { initialAmount: amount, createdAt: { number: String(i) }, ratePerRound: { rate: '0.0038051800' } },
        }
      : {
          record: {
            fields: [
              { value: { party: DSO } },
              { value: { party: ALICE } },
              {
                value: {
                  record: {
                    fields: [
                      { value: { numeric: amount } },
                      { value: { record: { fields: [{ value: { int64: String(i) } }] } } },
                      { value: { record: { fields: [{ value: { numeric: '0.0038051800' } }] } } },
                    ],
                  },
                },
              },
            ],
          },
        };
  const effectiveAt = recordTime - 250_000n;
  return {
    update_id: id,
    migration_id: migrationId,
    workflow_id: '',
    record_time: formatRecordTime(recordTime),
    synchronizer_id: SYNC,
    effective_at: formatInstant(effectiveAt),
    root_event_ids: [`${id}:0`],
    events_by_id: {
      [`${id}:0`]: {
        event_type: 'exercised_event',
        event_id: `${id}:0`,
        contract_id: contractId(0),
        template_id: RULES,
        package_name: 'splice-amulet',
        choice: 'AmuletRules_DevNet_Tap',
        choice_argument:
          encoding === 'compact'
            ? { receiver: ALICE, amount }
            : { record: { fields: [{ value: { party: ALICE } }, { value: { numeric: amount } }] } },
        child_event_ids: [`${id}:1`],
        exercise_result:
          encoding === 'compact'
            ? { amuletSum: { amulet: contractId(i) } }
            : { record: { fields: [{ value: { contractId: contractId(i) } }] } },
        consuming: false,
        acting_parties: [ALICE],
        interface_id: null,
      },
      [`${id}:1`]: {
        event_type: 'created_event',
        event_id: `${id}:1`,
        contract_id: contractId(i),
        template_id: AMULET,
        package_name: 'splice-amulet',
        create_arguments: args,
        created_at: formatDateTime(effectiveAt),
        signatories: [DSO, ALICE],
        observers: [],
      },
    },
  };
}

function verdict(i: number, migrationId: number, recordTime: bigint, accepted: boolean): Verdict {
  return {
    update_id: updateId(i),
    migration_id: migrationId,
    domain_id: SYNC,
    record_time: formatRecordTime(recordTime),
    finalization_time: formatRecordTime(recordTime + 300_000n),
    submitting_parties: [ALICE],
    submitting_participant_uid: 'PAR::alice-validator::1220a1b2',
    verdict_result: accepted ? 'VERDICT_RESULT_ACCEPTED' : 'VERDICT_RESULT_REJECTED',
    mediator_group: 0,
    transaction_views: {
      views: [
        { view_id: 0, informees: [DSO, ALICE], confirming_parties: [{ parties: [DSO], threshold: 1 }], sub_views: [], view_hash: '' },
      ],
      root_views: [0],
    },
  };
}

export function makeScanItems(count: number): CanonicalItem[] {
  const half = Math.ceil(count / 2);
  return Array.from({ length: count }, (_, i): CanonicalItem => {
    const migrationId = i < half ? 0 : 1;
    const j = i < half ? i : i - half;
    const recordTime = T0 + BigInt(j * 1000 + (j % 3) * 7);
    const id = updateId(i);
    switch (i % 5) {
      case 0:
        return {
          update: transaction(i, migrationId, recordTime, 'compact'),
          verdict: verdict(i, migrationId, recordTime, true),
          traffic_summary: { total_traffic_cost: 1000 + i, envelope_traffic_summaries: [{ traffic_cost: 1000 + i, view_ids: [0] }] },
          app_activity_records: { round_number: 24513, records: [{ party: ALICE, weight: 1000 + i }] },
          update_protobuf_json: transaction(i, migrationId, recordTime, 'protobuf'),
        };
      case 1:
        return {
          update: transaction(i, migrationId, recordTime, 'compact'),
          verdict: null,
          traffic_summary: null,
          app_activity_records: null,
          update_protobuf_json: transaction(i, migrationId, recordTime, 'protobuf'),
        };
      case 2:
        return { update: null, verdict: verdict(i, migrationId, recordTime, false), traffic_summary: null, app_activity_records: null };
      case 3: {
        const created = transaction(i, migrationId, recordTime, 'compact').events_by_id[`${id}:1`];
        const createdProtobuf = transaction(i, migrationId, recordTime, 'protobuf').events_by_id[`${id}:1`];
        if (created?.event_type !== 'created_event' || createdProtobuf?.event_type !== 'created_event') throw new Error('unreachable');
        const assign = (event: typeof created) => ({
          update_id: id,
          offset: '000000000000000001',
          record_time: formatRecordTime(recordTime),
          event: {
            submitter: ALICE,
            source_synchronizer: OTHER_SYNC,
            target_synchronizer: SYNC,
            migration_id: migrationId,
            unassign_id: `0012${hex(i, 8)}`,
            created_event: { ...event, event_id: `${id}:0` },
            reassignment_counter: 1,
          },
        });
        return {
          update: assign(created),
          verdict: null,
          traffic_summary: null,
          app_activity_records: null,
          update_protobuf_json: assign(createdProtobuf),
        };
      }
      default: {
        const unassign = {
          update_id: id,
          offset: '000000000000000001',
          record_time: formatRecordTime(recordTime),
          event: {
            submitter: ALICE,
            source_synchronizer: SYNC,
            migration_id: migrationId,
            target_synchronizer: OTHER_SYNC,
            unassign_id: `0012${hex(i, 8)}`,
            reassignment_counter: 0,
            contract_id: contractId(i - 1),
          },
        };
        return { update: unassign, verdict: null, traffic_summary: null, app_activity_records: null, update_protobuf_json: unassign };
      }
    }
  });
}
