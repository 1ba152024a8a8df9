/**
 * The start-up rule (prepareLedgerAuth, called by `serve`/`start`): no
 * ledger routes without authentication outside the demo, and a working
 * development token in the demo, signed with a secret kept in the database.
 */
import { decodeJwt } from 'jose';
import { DEMO_ADMIN_USER, prepareLedgerAuth } from '../../../src/api/auth/start-up';
import { ConfigError, loadConfig } from '../../../src/internal/config';
import { useTestDatabase } from '../../support/database/database';
import { request } from '../../support/http/http';
import { createApp } from '../../../src/api/app';
import { listen } from '../../../src/api/server';
import { createLogger } from '../../../src/internal/logger';
import { createMetrics } from '../../../src/internal/metrics';
import { readMigrationFiles } from '../../../src/store/migrator';
import type { Config } from '../../../src/internal/config';

describe('ledger authentication at start-up', () => {
  const t = useTestDatabase();

  async function participantIdWith(config: Config, token: string | undefined) {
    const app = createApp({
      config,
      db: t.db,
      pool: t.pool,
      logger: createLogger('silent'),
      metrics: createMetrics(),
      migrationFiles: readMigrationFiles(),
    });
    const server = await listen(app, '127.0.0.1', 0);
    try {
      return await request(server.url, 'GET', '/v2/parties/participant-id', undefined, token ? { authorization: `Bearer ${token}` } : {});
    } finally {
      await server.close(1000);
    }
  }

  it('refuses to serve the ledger routes without a verifier outside the demo', async () => {
    await expect(prepareLedgerAuth(loadConfig({}), { db: t.db, embedded: false })).rejects.toThrow(
      new ConfigError(
        'Invalid configuration: the ledger API (/v2) needs authentication: set LEDGER_AUTH_HS256_SECRET, ' +
          'LEDGER_AUTH_PUBLIC_KEY_FILE or LEDGER_AUTH_JWKS_URL, or LEDGER_AUTH_DISABLED=true to serve it without (never in production).',
      ),
    );
  });

  it('serves as configured when a key is set or authentication is disabled explicitly', async () => {
    for (const env of [{ LEDGER_AUTH_HS256_SECRET: 's3cret' }, { LEDGER_AUTH_DISABLED: 'true' }]) {
      const config = loadConfig(env);
      for (const embedded of [false, true]) expect(await prepareLedgerAuth(config, { db: t.db, embedded })).toEqual({ config });
    }
  });

  it('names an unreadable key file at start-up', async () => {
    await expect(
      prepareLedgerAuth(loadConfig({ LEDGER_AUTH_PUBLIC_KEY_FILE: '/nonexistent/key.pem' }), { db: t.db, embedded: false }),
    ).rejects.toThrow(/^Invalid configuration: LEDGER_AUTH_PUBLIC_KEY_FILE="\/nonexistent\/key.pem": ENOENT/);
  });

  it('the demo prints an admin token that works, signed with a secret that survives restarts', async () => {
    const first = await prepareLedgerAuth(loadConfig({}), { db: t.db, embedded: true });
    expect(first.devToken).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
    // No LEDGER_AUTH_AUDIENCE: the token is bound to this participant, as Canton's rule asks (verifier.ts).
    expect(decodeJwt(first.devToken!)).toMatchObject({
      sub: DEMO_ADMIN_USER,
      aud: `https://daml.com/jwt/aud/participant/${first.config.ledger.participantId}`,
    });
    expect(first.config.ledger.adminUsers).toEqual([DEMO_ADMIN_USER]);
    expect((await participantIdWith(first.config, first.devToken)).status).toBe(200);
    expect((await participantIdWith(first.config, undefined)).status).toBe(401);

    const second = await prepareLedgerAuth(loadConfig({}), { db: t.db, embedded: true });
    expect(second.config.ledger.hs256Secret).toBe(first.config.ledger.hs256Secret);
    expect((await participantIdWith(second.config, first.devToken)).status).toBe(200);
  });
});
