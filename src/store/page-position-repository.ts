/**
 * Positions behind numeric page tokens (page_positions): a token is a row id,
 * bound to the operation and request digest that issued it. Rows older than
 * the retention are deleted as new ones are issued.
 */
import { sql } from 'kysely';
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';

export interface StoredPagePosition {
  operation: string;
  requestDigest: string;
  /** JSON text. */
  position: string;
}

export const insertPagePosition = repositoryOperation(
  'insertPagePosition',
  async function insertPagePosition(db: Db, p: StoredPagePosition): Promise<number> {
    const { rows } = await sql<{ id: number }>`
      insert into page_positions (operation, request_digest, position)
      values (${p.operation}, ${p.requestDigest}, ${p.position}::jsonb)
      returning id`.execute(db);
    return rows[0]!.id;
  },
);

export const readPagePosition = repositoryOperation(
  'readPagePosition',
  async function readPagePosition(db: Db, id: number, retentionSeconds: number): Promise<StoredPagePosition | undefined> {
    const { rows } = await sql<{ operation: string; request_digest: string; position: string }>`
      select operation, request_digest, position::text as position from page_positions
      where id = ${id} and issued_at > now() - make_interval(secs => ${retentionSeconds})`.execute(db);
    const row = rows[0];
    return row && { operation: row.operation, requestDigest: row.request_digest, position: row.position };
  },
);

export const deleteExpiredPagePositions = repositoryOperation(
  'deleteExpiredPagePositions',
  async function deleteExpiredPagePositions(db: Db, retentionSeconds: number): Promise<number> {
    const result = await sql`delete from page_positions where issued_at <= now() - make_interval(secs => ${retentionSeconds})`.execute(db);
    return Number(result.numAffectedRows ?? 0n);
  },
);
