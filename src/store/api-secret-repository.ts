/**
 * Secrets shared by all API replicas (api_secrets), such as the HMAC key of
 * pagination tokens. A secret is created on first use; concurrent first uses
 * by several replicas agree on one value: each tries to insert its candidate,
 * the first insert wins (ON CONFLICT DO NOTHING) and everyone reads the winner.
 */
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';

export const getOrCreateApiSecret = repositoryOperation(
  'getOrCreateApiSecret',
  async function getOrCreateApiSecret(db: Db, name: string, candidate: () => Buffer): Promise<Buffer> {
    const existing = await readApiSecret(db, name);
    if (existing) return existing;
    await db
      .insertInto('api_secrets')
      .values({ name, secret: candidate() })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const stored = await readApiSecret(db, name);
    if (!stored) throw new Error(`api secret ${name} is missing right after it was created`);
    return stored;
  },
);

async function readApiSecret(db: Db, name: string): Promise<Buffer | undefined> {
  const row = await db.selectFrom('api_secrets').select('secret').where('name', '=', name).executeTakeFirst();
  return row?.secret;
}
