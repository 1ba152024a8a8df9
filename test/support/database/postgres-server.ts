/**
 * Resolves the PostgreSQL server the tests use, the same way everywhere:
 * DATABASE_URL if set; otherwise a testcontainers PostgreSQL when a Docker
 * engine answers; otherwise the embedded PostgreSQL.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../src/internal/config';
import { startEmbeddedPostgres } from '../../../src/store/embedded-postgres';

export interface TestServer {
  /** Admin URL: a user allowed to create databases. */
  adminUrl: string;
  kind: 'DATABASE_URL' | 'testcontainers' | 'embedded';
  stop(): Promise<void>;
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function dockerAnswers(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    const client = await withTimeout(getContainerRuntimeClient(), 10_000);
    return client !== undefined;
  } catch {
    return false;
  }
}

export async function resolveTestServer(log: (line: string) => void): Promise<TestServer> {
  const { databaseUrl } = loadConfig();
  if (databaseUrl) {
    log(`tests use the PostgreSQL server of DATABASE_URL`);
    return { adminUrl: databaseUrl, kind: 'DATABASE_URL', stop: async () => undefined };
  }
  if (await dockerAnswers()) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const container = await new PostgreSqlContainer('postgres:16-alpine').start();
    log(`tests use a testcontainers PostgreSQL`);
    return {
      adminUrl: container.getConnectionUri(),
      kind: 'testcontainers',
      stop: async () => {
        await container.stop();
      },
    };
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-indexer-test-pg-'));
  const embedded = await startEmbeddedPostgres({ dataDir, port: 0, ephemeral: true });
  log(`tests use an embedded PostgreSQL on port ${embedded.port}`);
  return { adminUrl: embedded.url, kind: 'embedded', stop: () => embedded.stop() };
}
