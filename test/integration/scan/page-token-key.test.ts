/**
 * The page-token key is shared by every API replica: created once in
 * api_secrets, even when replicas race on first use, so a token issued by one
 * replica is accepted by another.
 */
import { z } from 'zod';
import { pageTokensFor } from '../../../src/api/page-token';
import { getOrCreateApiSecret } from '../../../src/store/api-secret-repository';
import { createDb, createPool, type Db } from '../../../src/store/pool';
import { useTestDatabase } from '../../support/database/database';

describe('page-token key', () => {
  const t = useTestDatabase();
  const replicas: Db[] = [];
  beforeAll(() => {
    for (let i = 0; i < 3; i++) replicas.push(createDb(createPool({ connectionString: t.url, max: 4 })));
  });
  afterAll(async () => {
    await Promise.all(replicas.map((db) => db.destroy()));
  });

  it('is created once when replicas race on first use', async () => {
    const keys = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        getOrCreateApiSecret(replicas[i % replicas.length]!, 'race-test', () => Buffer.from(`candidate-${i}`)),
      ),
    );
    expect(new Set(keys.map((k) => k.toString('hex'))).size).toBe(1);
    const rows = await t.db.selectFrom('api_secrets').selectAll().where('name', '=', 'race-test').execute();
    expect(rows).toHaveLength(1);
  });

  it('lets one replica verify the tokens of another', async () => {
    const scope = { operation: 'test', request: { m: 0 } };
    const [a, b] = [pageTokensFor(replicas[0]!), pageTokensFor(replicas[1]!)];
    const [tokenA, tokenB] = await Promise.all([a.encode(scope, { n: 1 }), b.encode(scope, { n: 1 })]);
    expect(tokenA).toBe(tokenB);
    await expect(b.verify(scope, tokenA, z.object({ n: z.number() }))).resolves.toEqual({ n: 1 });
    const stored = await t.db.selectFrom('api_secrets').select(['name']).execute();
    expect(stored.map((r) => r.name)).toContain('page-token-hmac-sha256');
  });
});
