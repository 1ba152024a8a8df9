/**
 * Where bulk storage objects live (docs/bulk-history.md): a local directory (BULK_STORAGE_DIR) or an
 * S3-compatible bucket (BULK_STORAGE_S3_BUCKET). The bulk writer uploads each object through `begin`,
 * and nothing is visible under its key until `finish`; the API reads objects back through `read`. Which
 * objects count is decided by the database (bulk_objects), never by listing the store, so an object
 * left by a crash between `finish` and the database commit is simply written again and never served.
 */
import { createHash, randomUUID, type Hash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { BulkStorageConfig, S3StoreConfig } from '../internal/config';
import type { Logger } from '../internal/logger';

/** One object being written: appended frame by frame, hashed as it goes. */
export interface ObjectUpload {
  /** Bytes appended so far. */
  readonly size: number;
  append(bytes: Buffer): Promise<void>;
  /** Makes the object visible under its key, durably; the base64 SHA-256 of its bytes. */
  finish(): Promise<string>;
  /** Drops what was written; nothing becomes visible. */
  abandon(): Promise<void>;
}

export interface BulkObjectStore {
  /** For logs: the directory or s3://bucket/prefix. */
  readonly where: string;
  /** Removes what an interrupted writer left half-written. */
  prepare(logger: Logger): Promise<void>;
  begin(key: string): Promise<ObjectUpload>;
  /** The object's bytes; undefined when the store has no such object. */
  read(key: string): Promise<Readable | undefined>;
}

const PARTIAL_DIR = '.partial';

abstract class HashedUpload implements ObjectUpload {
  private readonly hash: Hash = createHash('sha256');
  size = 0;

  async append(bytes: Buffer): Promise<void> {
    this.hash.update(bytes);
    this.size += bytes.length;
    await this.write(bytes);
  }

  protected digest(): string {
    return this.hash.digest('base64');
  }

  protected abstract write(bytes: Buffer): Promise<void>;
  abstract finish(): Promise<string>;
  abstract abandon(): Promise<void>;
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await fsp.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A file under `<dir>/.partial/`, fsynced and renamed to its key (and the folder fsynced) on finish. */
class FileUpload extends HashedUpload {
  constructor(
    private readonly dir: string,
    private readonly key: string,
    private readonly tempPath: string,
    private readonly handle: fsp.FileHandle,
  ) {
    super();
  }

  protected async write(bytes: Buffer): Promise<void> {
    await this.handle.write(bytes);
  }

  async finish(): Promise<string> {
    await this.handle.sync();
    await this.handle.close();
    const target = path.join(this.dir, this.key);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    await fsp.rename(this.tempPath, target);
    await fsyncDir(path.dirname(target));
    return this.digest();
  }

  async abandon(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await fsp.rm(this.tempPath, { force: true });
  }
}

export function directoryStore(dir: string): BulkObjectStore {
  return {
    where: dir,
    async prepare() {
      await fsp.mkdir(path.join(dir, PARTIAL_DIR), { recursive: true });
      for (const name of await fsp.readdir(path.join(dir, PARTIAL_DIR))) {
        await fsp.rm(path.join(dir, PARTIAL_DIR, name), { force: true });
      }
    },
    async begin(key) {
      const tempPath = path.join(dir, PARTIAL_DIR, `${randomUUID()}.zstd`);
      return new FileUpload(dir, key, tempPath, await fsp.open(tempPath, 'wx'));
    },
    async read(key) {
      const stream = fs.createReadStream(path.join(dir, key));
      const opened = await new Promise<boolean>((resolve) => {
        stream.once('open', () => resolve(true));
        stream.once('error', () => resolve(false));
      });
      return opened ? stream : undefined;
    },
  };
}

/**
 * An object up to one part is sent with one PutObject on finish; a larger one as a multipart upload
 * whose parts go as they fill. Either way it appears under its key only when S3 completes it.
 */
/** The AWS SDK, loaded on first use: most processes never configure S3, and it is large to load. */
type Sdk = typeof import('@aws-sdk/client-s3');
let sdk: Promise<Sdk> | undefined;
const loadSdk = (): Promise<Sdk> => (sdk ??= import('@aws-sdk/client-s3'));

class S3Upload extends HashedUpload {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private uploadId: string | undefined;
  private readonly parts: { ETag: string | undefined; PartNumber: number }[] = [];

  constructor(
    private readonly aws: Sdk,
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly key: string,
    private readonly partBytes: number,
  ) {
    super();
  }

  protected async write(bytes: Buffer): Promise<void> {
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.pendingBytes >= this.partBytes) await this.sendPart();
  }

  private async sendPart(): Promise<void> {
    if (this.uploadId === undefined) {
      const created = await this.client.send(new this.aws.CreateMultipartUploadCommand({ Bucket: this.bucket, Key: this.key }));
      this.uploadId = created.UploadId;
    }
    const PartNumber = this.parts.length + 1;
    const body = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    const sent = await this.client.send(
      new this.aws.UploadPartCommand({ Bucket: this.bucket, Key: this.key, UploadId: this.uploadId, PartNumber, Body: body }),
    );
    this.parts.push({ ETag: sent.ETag, PartNumber });
  }

  async finish(): Promise<string> {
    if (this.uploadId === undefined) {
      await this.client.send(new this.aws.PutObjectCommand({ Bucket: this.bucket, Key: this.key, Body: Buffer.concat(this.pending) }));
    } else {
      if (this.pendingBytes > 0) await this.sendPart();
      await this.client.send(
        new this.aws.CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: this.key,
          UploadId: this.uploadId,
          MultipartUpload: { Parts: this.parts },
        }),
      );
    }
    return this.digest();
  }

  async abandon(): Promise<void> {
    if (this.uploadId === undefined) return;
    await this.client
      .send(new this.aws.AbortMultipartUploadCommand({ Bucket: this.bucket, Key: this.key, UploadId: this.uploadId }))
      .catch(() => undefined);
  }
}

/**
 * `partBytes`: the size of a multipart upload's parts (S3 refuses parts below 5 MiB but the last); the
 * tests make it small, to upload small objects in parts.
 */
export function s3Store(config: S3StoreConfig, partBytes = 16 * 2 ** 20): BulkObjectStore {
  const connect = async () => {
    const aws = await loadSdk();
    const client = new aws.S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      credentials:
        config.accessKeyId !== undefined && config.secretAccessKey !== undefined
          ? { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey }
          : undefined,
      // Checksums only where S3 requires them: S3-compatible servers do not all take the newer ones.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    return { aws, client };
  };
  let connection: ReturnType<typeof connect> | undefined;
  const connected = () => (connection ??= connect());
  const keyOf = (key: string) => `${config.prefix}${key}`;
  return {
    where: `s3://${config.bucket}/${config.prefix}`,
    async prepare(logger) {
      // Multipart uploads an interrupted writer began hold storage until aborted.
      const { aws, client } = await connected();
      try {
        const listed = await client.send(new aws.ListMultipartUploadsCommand({ Bucket: config.bucket, Prefix: config.prefix }));
        for (const u of listed.Uploads ?? []) {
          await client.send(new aws.AbortMultipartUploadCommand({ Bucket: config.bucket, Key: u.Key, UploadId: u.UploadId }));
        }
      } catch (err) {
        logger.warn({ err }, 'bulk storage: could not list unfinished multipart uploads to abort them');
      }
    },
    async begin(key) {
      const { aws, client } = await connected();
      return new S3Upload(aws, client, config.bucket, keyOf(key), partBytes);
    },
    async read(key) {
      const { aws, client } = await connected();
      try {
        const got = await client.send(new aws.GetObjectCommand({ Bucket: config.bucket, Key: keyOf(key) }));
        return got.Body as Readable | undefined;
      } catch (err) {
        if (
          (err as { name?: string }).name === 'NoSuchKey' ||
          (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404
        )
          return undefined;
        throw err;
      }
    },
  };
}

/** The configured store (one per configuration object, so that its S3 client is shared); undefined: bulk storage is off. */
const stores = new WeakMap<BulkStorageConfig, BulkObjectStore>();
export function bulkObjectStore(config: BulkStorageConfig): BulkObjectStore | undefined {
  if (config.dir === undefined && config.s3 === undefined) return undefined;
  let store = stores.get(config);
  if (!store) {
    store = config.s3 !== undefined ? s3Store(config.s3) : directoryStore(config.dir!);
    stores.set(config, store);
  }
  return store;
}
