/**
 * The contracts a batch creates, and their contract_stakeholders rows, encoded for COPY as they are
 * planned. A batch keeps its contracts until it ends, because a later item may archive or reassign
 * them; kept as objects with all their strings and arrays, they were most of what the garbage
 * collector copied while a batch was planned. Here each contract keeps its columns that never change
 * as COPY text outside the JavaScript heap, and on the heap only what may still change and what the
 * planner reads back (docs/performance.md).
 *
 * Both COPY statements name the columns that can change first, so that a row is those fields,
 * written when the batch is, followed by bytes encoded once.
 */
import type { Selectable } from 'kysely';
import { snapshotSlot } from '../domain/snapshot-schedule';
import { parseTimestamp, type Micros } from '../domain/time';
import { ChunkedBuffer } from './chunked-buffer';
import { copyField, copyFields, CopyRows } from './copy-text';
import type { ContractsTable } from './schema';

/**
 * A contracts row as the writer sends it (every column given, in the types the pool reads back),
 * derived from the table type; columns left to the database are omitted.
 */
export type ContractRow = Omit<Selectable<ContractsTable>, 'ingest_seq' | 'created_slot'>;

export const CONTRACT_COLUMNS = [
  'migration_id',
  'contract_id',
  'template_id',
  'package_name',
  'qualified_name',
  'create_arguments',
  'created_at',
  'signatories',
  'observers',
  'created_in_update_id',
  'created_event_id',
  'created_record_time',
  'archived_record_time',
  'archived_in_update_id',
  'synchronizer_id',
  'reassignment_counter',
  'dso_party',
  'amulet_owner',
  'amulet_initial_amount',
  'amulet_created_round',
  'amulet_rate_per_round',
  'amulet_locked',
  'lock_holders',
  'lock_expires_at',
  'round_number',
  'ans_name',
  'ans_user',
  'ans_expires_at',
] as const satisfies readonly (keyof ContractRow)[];

export const STAKEHOLDER_COLUMNS = [
  'migration_id',
  'party',
  'created_at',
  'contract_id',
  'package_name',
  'qualified_name',
  'created_record_time',
  'archived_record_time',
] as const;

/** What a later item of the batch may change on a contract the batch created. */
const CHANGING_COLUMNS = ['archived_record_time', 'archived_in_update_id', 'synchronizer_id', 'reassignment_counter'] as const;
type ChangingColumn = (typeof CHANGING_COLUMNS)[number];
const FIXED_COLUMNS = CONTRACT_COLUMNS.filter(
  (c): c is Exclude<typeof c, ChangingColumn> => !(CHANGING_COLUMNS as readonly string[]).includes(c),
);
const CONTRACT_COPY_COLUMNS = [...CHANGING_COLUMNS, ...FIXED_COLUMNS];

// A stakeholder row: the contract's archive time, then the party, then the contract's own columns.
const STAKEHOLDER_FIXED_COLUMNS = STAKEHOLDER_COLUMNS.filter(
  (c): c is Exclude<typeof c, 'party' | 'archived_record_time'> => c !== 'party' && c !== 'archived_record_time',
);
const STAKEHOLDER_COPY_COLUMNS = ['archived_record_time', 'party', ...STAKEHOLDER_FIXED_COLUMNS];

const NEWLINE = 0x0a;
const TAB = 0x09;
const COPY_ESCAPED = /\\[\\nrt]/g;
const COPY_UNESCAPED: Record<string, string> = { '\\\\': '\\', '\\n': '\n', '\\r': '\r', '\\t': '\t' };

/** A contract's template, as its row names it. */
export type TemplateOfRow = Pick<ContractRow, 'package_name' | 'qualified_name'>;

/** A contract the batch created, as the planner sees it afterwards. */
export type CreatedContract = Pick<
  ContractRow,
  'migration_id' | 'contract_id' | 'amulet_initial_amount' | 'amulet_locked' | ChangingColumn
>;

class Entry implements CreatedContract {
  archived_record_time = 'infinity';
  archived_in_update_id: string | null = null;

  constructor(
    readonly migration_id: number,
    readonly contract_id: string,
    readonly amulet_initial_amount: string | null,
    readonly amulet_locked: boolean | null,
    public synchronizer_id: string | null,
    public reassignment_counter: number,
    /** The first snapshot boundary at or after its creation: archived by then, it is in no snapshot. */
    readonly createdSlot: Micros,
    /** The chunk holding its fixed columns, then the rest of each stakeholder row (one a line). */
    readonly chunk: Buffer,
    readonly fixedStart: number,
    readonly stakeholdersStart: number,
    readonly end: number,
  ) {}
}

/** The parties of contract_stakeholders rows: each signatory or observer once. */
function stakeholdersOf(c: Pick<ContractRow, 'signatories' | 'observers'>): string[] {
  return c.observers.length === 0 ? [...new Set(c.signatories)] : [...new Set([...c.signatories, ...c.observers])];
}

export class CreatedContracts {
  private readonly encoded = new ChunkedBuffer();
  private readonly entries: Entry[] = [];
  /** The templates of the contracts, each once (what the answer cache's families need). */
  private readonly templateKeys = new Map<string, TemplateOfRow>();

  /**
   * Encodes a new contract, not archived yet; returns what the planner may change on it later. The
   * row itself is not kept.
   */
  add(row: ContractRow): CreatedContract {
    const template = `${row.package_name}\u0000${row.qualified_name}`;
    if (!this.templateKeys.has(template)) {
      this.templateKeys.set(template, { package_name: row.package_name, qualified_name: row.qualified_name });
    }
    const fixed = copyFields(FIXED_COLUMNS.map((k) => row[k]));
    const shared = copyFields(STAKEHOLDER_FIXED_COLUMNS.map((k) => row[k]));
    let stakeholders = '';
    for (const party of stakeholdersOf(row)) stakeholders += `${copyField(party)}\t${shared}\n`;
    const out = this.encoded;
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    out.room((fixed.length + stakeholders.length) * 3);
    const fixedStart = out.used;
    out.used += out.chunk.write(fixed, out.used, 'utf8');
    const stakeholdersStart = out.used;
    out.used += out.chunk.write(stakeholders, out.used, 'utf8');
    const entry = new Entry(
      row.migration_id,
      row.contract_id,
      row.amulet_initial_amount,
      row.amulet_locked,
      row.synchronizer_id,
      row.reassignment_counter,
      snapshotSlot(parseTimestamp(row.created_record_time)),
      out.chunk,
      fixedStart,
      stakeholdersStart,
      out.used,
    );
    this.entries.push(entry);
    return entry;
  }

  get size(): number {
    return this.entries.length;
  }

  /**
   * The signatories and observers of a contract of the batch, read back from its encoded stakeholder
   * rows (the first field of each line), so that the batch keeps no second copy of them.
   */
  stakeholdersOf(contract: CreatedContract): string[] {
    const e = contract as Entry;
    const parties: string[] = [];
    for (let at = e.stakeholdersStart; at < e.end;) {
      const end = e.chunk.indexOf(NEWLINE, at);
      const field = e.chunk.toString('utf8', at, e.chunk.indexOf(TAB, at));
      // A party id holds no backslash, so nothing to unescape: the pattern runs only where there is one.
      parties.push(field.includes('\\') ? field.replace(COPY_ESCAPED, (c) => COPY_UNESCAPED[c]!) : field);
      at = end + 1;
    }
    return parties;
  }

  /** The templates of the contracts, each once. */
  templates(): TemplateOfRow[] {
    return [...this.templateKeys.values()];
  }

  /** Bytes encoded so far. */
  get bytes(): number {
    return this.encoded.bytes;
  }

  /**
   * The COPY rows of the contracts as they stand now, and the stakeholder rows of those in some ACS
   * snapshot: archived after the first snapshot boundary at or after their creation (migration
   * 20261123_002). The stakeholder rows of others are never read.
   */
  copies(): { contracts: CopyRows; stakeholders: CopyRows } {
    const contracts = new CopyRows('contracts', CONTRACT_COPY_COLUMNS);
    const stakeholders = new CopyRows('contract_stakeholders', STAKEHOLDER_COPY_COLUMNS);
    for (const e of this.entries) {
      contracts.addEncoded(copyFields(CHANGING_COLUMNS.map((k) => e[k])), e.chunk.subarray(e.fixedStart, e.stakeholdersStart));
      const archived = e.archived_record_time;
      if (archived !== 'infinity' && parseTimestamp(archived) <= e.createdSlot) continue;
      const archivedField = copyField(archived);
      for (let at = e.stakeholdersStart; at < e.end;) {
        const end = e.chunk.indexOf(NEWLINE, at);
        stakeholders.addEncoded(archivedField, e.chunk.subarray(at, end));
        at = end + 1;
      }
    }
    return { contracts, stakeholders };
  }
}
