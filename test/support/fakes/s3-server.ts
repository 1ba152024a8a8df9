/**
 * An S3-compatible server for the tests (s3rver, files in a temporary directory), with one bucket: what
 * BULK_STORAGE_S3_* points at in the bulk storage tests. s3rver takes the fixed credentials below.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { S3StoreConfig } from '../../../src/internal/config';

interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}
// s3rver ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => S3rverInstance;

export interface TestS3Server {
  config: S3StoreConfig;
  /** The BULK_STORAGE_S3_* variables for a server or worker process. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startS3Server(bucket = 'bulk', prefix = 'net/'): Promise<TestS3Server> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 's3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const config: S3StoreConfig = {
    bucket,
    prefix,
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
  };
  return {
    config,
    env: {
      BULK_STORAGE_S3_BUCKET: bucket,
      BULK_STORAGE_S3_PREFIX: prefix,
      BULK_STORAGE_S3_ENDPOINT: endpoint,
      BULK_STORAGE_S3_FORCE_PATH_STYLE: 'true',
      BULK_STORAGE_S3_ACCESS_KEY_ID: 'S3RVER',
      BULK_STORAGE_S3_SECRET_ACCESS_KEY: 'S3RVER',
    },
    async close() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
