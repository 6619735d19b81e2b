import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Spooled } from '../../http/multipart.js';
import { SNIFF_BYTES } from './receipt-content.js';

/**
 * Where receipt files live. The directory store keeps them under `<dir>/<key>`; keys come from our
 * ids, never from the upload. (An S3-compatible store would implement the same three calls.)
 */
export interface ReceiptStorage {
  /**
   * Writes a stream to a temporary file, never more than `maxBytes` to disk and never more than a
   * chunk in memory; the rest of an oversized stream is read and dropped (or the caller aborts it).
   */
  spool(source: AsyncIterable<Uint8Array>, maxBytes: number, stopOnOverflow?: boolean): Promise<Spooled>;
  /** Moves a spooled file into the store under `key`. */
  keep(spooled: Spooled, key: string): Promise<void>;
  discard(spooled: Spooled): Promise<void>;
  open(key: string): Promise<{ stream: Readable; size: number }>;
  /** Deletes a kept file (a receipt whose row could not be written); nothing when it is gone. */
  remove(key: string): Promise<void>;
  /**
   * Deletes spool files older than `olderThanMs` (left by a crash between spooling and keeping or
   * discarding). Returns how many. Young files may be uploads in flight, of this or another process.
   */
  sweepSpool(olderThanMs: number, nowMs?: number): Promise<number>;
}

export function createDirectoryStorage(dir: string): ReceiptStorage {
  const tmp = join(dir, '.tmp');
  // Receipts are payers' documents: readable by the service's user only.
  const ready = Promise.all([
    mkdir(dir, { recursive: true, mode: 0o700 }),
    mkdir(tmp, { recursive: true, mode: 0o700 }),
  ]);
  const safeKey = (key: string) => {
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(key)) throw new Error('bad storage key');
    return join(dir, key);
  };
  return {
    async spool(source, maxBytes, stopOnOverflow = false) {
      await ready;
      const path = join(tmp, randomUUID());
      let size = 0;
      let overflow = false;
      const headParts: Buffer[] = [];
      let headSize = 0;
      const out = createWriteStream(path, { mode: 0o600 });
      async function* bounded() {
        for await (const raw of source) {
          const chunk = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
          if (headSize < SNIFF_BYTES) {
            headParts.push(chunk.subarray(0, SNIFF_BYTES - headSize));
            headSize += Math.min(chunk.length, SNIFF_BYTES - headSize);
          }
          if (overflow) continue;
          if (size + chunk.length > maxBytes) {
            overflow = true;
            yield chunk.subarray(0, maxBytes - size);
            size = maxBytes;
            if (stopOnOverflow) return;
            continue;
          }
          size += chunk.length;
          yield chunk;
        }
      }
      try {
        await pipeline(bounded, out);
      } catch (err) {
        await rm(path, { force: true });
        throw err;
      }
      return { path, size, head: Buffer.concat(headParts), overflow };
    },
    async keep(spooled, key) {
      await rename(spooled.path, safeKey(key));
    },
    async discard(spooled) {
      await rm(spooled.path, { force: true });
    },
    async open(key) {
      const path = safeKey(key);
      const { size } = await stat(path);
      return { stream: createReadStream(path), size };
    },
    async remove(key) {
      await rm(safeKey(key), { force: true });
    },
    async sweepSpool(olderThanMs, nowMs = Date.now()) {
      await ready;
      let removed = 0;
      for (const name of await readdir(tmp)) {
        const path = join(tmp, name);
        const info = await stat(path).catch(() => undefined);
        if (info?.isFile() && nowMs - info.mtimeMs > olderThanMs) {
          await rm(path, { force: true });
          removed++;
        }
      }
      return removed;
    },
  };
}

/** Where an S3-compatible bucket is (RECEIPTS_S3_* settings). Credentials come from the AWS default chain. */
export interface S3Location {
  bucket: string;
  region: string;
  /** For S3-compatible services (MinIO, Ceph, Yandex Object Storage...): their URL; path-style addressing. */
  endpoint?: string | undefined;
  prefix: string;
}

/**
 * Receipts in an S3-compatible bucket. Uploads are spooled and checked locally first (the same
 * `spool` as the directory store, in `tmpDir`), then put under `<prefix><key>`; reads stream back.
 */
export async function createS3Storage(location: S3Location, tmpDir: string): Promise<ReceiptStorage> {
  const { S3Client, PutObjectCommand, GetObjectCommand, DeleteObjectCommand } = await import(
    '@aws-sdk/client-s3'
  );
  const client = new S3Client({
    region: location.region,
    ...(location.endpoint ? { endpoint: location.endpoint, forcePathStyle: true } : {}),
    // Plain bodies with a known length; no aws-chunked trailers (some S3-compatible stores lack them).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const local = createDirectoryStorage(tmpDir);
  const objectKey = (key: string) => {
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(key)) throw new Error('bad storage key');
    return `${location.prefix}${key}`;
  };
  return {
    spool: (source, maxBytes, stopOnOverflow) => local.spool(source, maxBytes, stopOnOverflow),
    discard: (spooled) => local.discard(spooled),
    sweepSpool: (olderThanMs, nowMs) => local.sweepSpool(olderThanMs, nowMs),
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket: location.bucket, Key: objectKey(key) }));
    },
    async keep(spooled, key) {
      await client.send(
        new PutObjectCommand({
          Bucket: location.bucket,
          Key: objectKey(key),
          Body: createReadStream(spooled.path),
          ContentLength: spooled.size,
        }),
      );
      await local.discard(spooled);
    },
    async open(key) {
      const out = await client.send(new GetObjectCommand({ Bucket: location.bucket, Key: objectKey(key) }));
      return { stream: out.Body as Readable, size: Number(out.ContentLength ?? 0) };
    },
  };
}

/** The receipt store the configuration selects: the S3 bucket when set, else the directory. */
export async function openReceiptStorage(config: {
  receiptsDir: string;
  receiptsS3: S3Location | undefined;
}): Promise<ReceiptStorage> {
  return config.receiptsS3
    ? createS3Storage(config.receiptsS3, config.receiptsDir)
    : createDirectoryStorage(config.receiptsDir);
}
