/** Jest global setup of the integration project: one server and one migrated template per run. */
import { resolveTestServer, type TestServer } from './postgres-server';
import { ensureTemplateDatabase } from './template-database';

declare global {
  var __scanIndexerTestServer: TestServer | undefined;
}

export default async function globalSetup(): Promise<void> {
  const server = await resolveTestServer((line) => process.stderr.write(`\n[test database] ${line}\n`));
  globalThis.__scanIndexerTestServer = server;
  const template = await ensureTemplateDatabase(server.adminUrl);
  // Test workers are started after global setup and inherit these.
  process.env.SCAN_INDEXER_TEST_ADMIN_URL = server.adminUrl;
  process.env.SCAN_INDEXER_TEST_TEMPLATE = template;
}
