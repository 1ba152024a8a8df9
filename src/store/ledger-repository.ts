/** SQL of the ledger interface: a transaction or a reassignment by update id and the contracts it touches. */
import { sql } from 'kysely';
import type { ReassignmentUpdate, TransactionUpdate } from '../domain/items';
import type { StoredReassignment } from '../domain/ledger-reassignment';
import type { StoredContract, StoredTransaction } from '../domain/ledger-transaction';
import { contractIdsToLookUp } from '../domain/ledger-transaction';
import type { Db } from './pool';
import { storedJson } from './update-repository';
import { repositoryOperation } from './query-operation';

/**
 * The transaction with this update id and what its conversion needs, or
 * undefined when there is none (reassignments are not transactions).
 */
export const findStoredTransaction = repositoryOperation(
  'findStoredTransaction',
  async function findStoredTransaction(db: Db, updateId: string): Promise<StoredTransaction | undefined> {
    const row = await db
      .selectFrom('updates')
      .leftJoin('verdicts', (join) =>
        join
          .onRef('verdicts.update_id', '=', 'updates.update_id')
          .onRef('verdicts.migration_id', '=', 'updates.migration_id')
          .onRef('verdicts.record_time', '=', 'updates.record_time'),
      )
      .select([
        'updates.migration_id',
        'updates.ingest_seq',
        'updates.command_id',
        'updates.external_transaction_hash',
        'updates.kind',
        'updates.payload',
        'updates.payload_compact_length',
        'updates.json_compact',
        'updates.json_protobuf',
        'verdicts.submitting_parties',
      ])
      .where('updates.update_id', '=', updateId)
      .where('updates.kind', '=', 'transaction')
      .executeTakeFirst();
    if (!row) return undefined;
    const update = JSON.parse(storedJson(row, 'compact_json')!) as TransactionUpdate;
    const ids = contractIdsToLookUp(update);
    const contracts = new Map<string, StoredContract>();
    if (ids.length > 0) {
      const rows = await sql<{ contract_id: string; signatories: string[]; observers: string[]; created_event_blob: string }>`
      select c.contract_id, c.signatories, c.observers, coalesce(b.blob, '') as created_event_blob
      from contracts c left join contract_blobs b on b.contract_id = c.contract_id
      where c.migration_id = ${row.migration_id} and c.contract_id = any(${ids}::text[])`.execute(db);
      for (const c of rows.rows) {
        contracts.set(c.contract_id, { signatories: c.signatories, observers: c.observers, createdEventBlob: c.created_event_blob });
      }
    }
    return {
      update,
      offset: row.ingest_seq,
      commandId: row.command_id,
      externalTransactionHash: row.external_transaction_hash,
      submitters: row.submitting_parties ?? [],
      contracts,
    };
  },
);

/**
 * The reassignment with this update id and the contract it moves (template and stakeholders for an
 * unassignment, which names only the contract id; the created-event blob for an assignment), or
 * undefined when the id is no reassignment.
 */
export const findStoredReassignment = repositoryOperation(
  'findStoredReassignment',
  async function findStoredReassignment(db: Db, updateId: string): Promise<StoredReassignment | undefined> {
    const row = await db
      .selectFrom('updates')
      .select(['migration_id', 'ingest_seq', 'kind', 'payload', 'payload_compact_length', 'json_compact', 'json_protobuf'])
      .where('update_id', '=', updateId)
      .where('kind', 'in', ['assignment', 'unassignment'])
      .executeTakeFirst();
    if (!row) return undefined;
    const update = JSON.parse(storedJson(row, 'compact_json')!) as ReassignmentUpdate;
    const contractId = 'created_event' in update.event ? update.event.created_event.contract_id : update.event.contract_id;
    // The newest row of the contract up to this migration: a reassigned contract has one per migration it lived in.
    const contract = await sql<{
      template_id: string;
      package_name: string;
      signatories: string[];
      observers: string[];
      created_event_blob: string;
    }>`
      select c.template_id, c.package_name, c.signatories, c.observers, coalesce(b.blob, '') as created_event_blob
      from contracts c left join contract_blobs b on b.contract_id = c.contract_id
      where c.contract_id = ${contractId} and c.migration_id <= ${row.migration_id}
      order by c.migration_id desc
      limit 1`.execute(db);
    const c = contract.rows[0];
    return {
      update,
      offset: row.ingest_seq,
      contract: c && {
        templateId: c.template_id,
        packageName: c.package_name,
        signatories: c.signatories,
        observers: c.observers,
        createdEventBlob: c.created_event_blob,
      },
    };
  },
);
