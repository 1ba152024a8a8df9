/**
 * PostgreSQL failures of the ingestion writer as typed errors, so that the
 * writer names the offending item from the error's fields rather than from
 * PostgreSQL's message text. The parsing of PostgreSQL's `detail` stays here.
 */

/** A create of a contract id the migration already has. */
export class DuplicateContractError extends Error {
  constructor(
    readonly migrationId: number,
    readonly contractId: string,
  ) {
    super(`contract ${contractId} already exists in migration ${migrationId}`);
    this.name = 'DuplicateContractError';
  }
}

/** A row whose key another row of the table already has (an update, verdict or traffic summary twice). */
export class DuplicateKeyError extends Error {
  constructor(
    readonly table: string,
    readonly key: string,
  ) {
    super(`${table} already has a row with key ${key}`);
    this.name = 'DuplicateKeyError';
  }
}

interface PgError {
  code?: string;
  constraint?: string;
  table?: string;
  detail?: string;
}

/** "Key (migration_id, contract_id)=(0, 00ab…) already exists." → the values, "0, 00ab…". */
function keyValues(detail: string | undefined): string | undefined {
  return /^Key \(.*?\)=\((.*)\) already exists\.$/s.exec(detail ?? '')?.[1];
}

/** The typed error for a unique violation, or the error unchanged. */
export function typedStorageError(err: unknown): unknown {
  const e = err as PgError;
  if (e?.code !== '23505') return err;
  const values = keyValues(e.detail);
  // The key of a contract includes its archive time (the partition key): among the active
  // contracts, where a second create collides, it is 'infinity'.
  if (e.constraint !== undefined && /^contracts(_\w+)?_pkey$/.test(e.constraint) && values) {
    const comma = values.indexOf(', ');
    const last = values.lastIndexOf(', ');
    const migrationId = Number(values.slice(0, comma));
    if (comma > 0 && last > comma && Number.isSafeInteger(migrationId))
      return new DuplicateContractError(migrationId, values.slice(comma + 2, last));
  }
  return new DuplicateKeyError(e.table ?? 'a table', values ?? '(unknown)');
}
