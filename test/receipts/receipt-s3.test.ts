import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { createS3Storage, type ReceiptStorage } from '../../src/rails/receipts/receipt-storage.js';
import { pdfFile } from '../helpers/files.js';

/**
 * A minimal S3-compatible server on loopback (path-style PutObject / GetObject), enough to prove the
 * S3 store talks the protocol over a real socket. Objects live in memory.
 */
async function startFakeS3() {
  const objects = new Map<string, Buffer>();
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = decodeURIComponent((req.url ?? '').split('?')[0] ?? '');
      requests.push(`${req.method} ${path}`);
      if (req.method === 'PUT') {
        objects.set(path, Buffer.concat(chunks));
        res.writeHead(200, { etag: '"x"' }).end();
      } else if (req.method === 'GET' && objects.has(path)) {
        const body = objects.get(path) as Buffer;
        res
          .writeHead(200, {
            'content-length': String(body.length),
            'content-type': 'application/octet-stream',
          })
          .end(body);
      } else {
        res
          .writeHead(404, { 'content-type': 'application/xml' })
          .end('<Error><Code>NoSuchKey</Code></Error>');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    objects,
    requests,
    close: () => new Promise((r) => server.close(r)),
  };
}

describe('S3-compatible receipt storage', () => {
  let s3: Awaited<ReturnType<typeof startFakeS3>>;
  let storage: ReceiptStorage;
  before(async () => {
    s3 = await startFakeS3();
    process.env.AWS_ACCESS_KEY_ID = 'test';
    process.env.AWS_SECRET_ACCESS_KEY = 'test';
    storage = await createS3Storage(
      { bucket: 'receipts-bucket', region: 'us-east-1', endpoint: s3.url, prefix: 'r/' },
      '/tmp/payment-orders-test/s3-spool',
    );
  });
  after(() => s3.close());

  it('keeps a spooled file as an object under the prefix and streams it back', async () => {
    const data = pdfFile('s3');
    const spooled = await storage.spool(Readable.from([data]), 5 * 1024 * 1024);
    assert.equal(spooled.size, data.length);
    await storage.keep(spooled, 'abc-123');
    assert.deepEqual(s3.objects.get('/receipts-bucket/r/abc-123'), data);
    const { stream, size } = await storage.open('abc-123');
    const chunks: Buffer[] = [];
    for await (const c of stream) chunks.push(c as Buffer);
    assert.equal(size, data.length);
    assert.deepEqual(Buffer.concat(chunks), data);
    assert.ok(s3.requests.includes('PUT /receipts-bucket/r/abc-123'), s3.requests.join(', '));
  });

  it('refuses keys that could escape the prefix', async () => {
    await assert.rejects(() => storage.open('../secret'), /bad storage key/);
  });
});
