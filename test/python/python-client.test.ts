import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { pdfFile } from '../helpers/files.js';
import {
  addRequisite,
  createMerchant,
  createOrder,
  sign,
  type TestMerchant,
} from '../helpers/merchant-client.js';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('./merchant_client.py', import.meta.url));

/** A Python with `requests` (Debian's python3-requests, or any python3 that has it), or undefined. */
async function pythonWithRequests(): Promise<string | undefined> {
  for (const candidate of ['/usr/bin/python3', 'python3']) {
    try {
      await run(candidate, ['-c', 'import requests'], { timeout: 20_000 });
      return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/**
 * The multipart body Python's `requests` sends for `data={"orderId": id}, files={"receipt": (name,
 * bytes)}` (urllib3's encode_multipart_formdata): fields first, then the file part with a
 * Content-Disposition and NO Content-Type line; CRLF line ends; a 32-hex-digit boundary.
 */
function requestsMultipart(boundary: string, orderId: string, filename: string, data: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="orderId"\r\n\r\n${orderId}\r\n`),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="receipt"; filename="${filename}"\r\n\r\n`,
    ),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
}

// docs/decisions.md section 16: a real third-party client, unmodified.
describe("a merchant's Python integration with requests (docs/decisions.md section 16)", () => {
  let t: TestApp;
  let merchant: TestMerchant;
  let python: string | undefined;
  let dir: string;

  before(async () => {
    t = await startTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    merchant = await createMerchant(t.app, { payment_types: ['sbp_pdf', 'sim'] });
    await addRequisite(t.app, { kind: 'phone' });
    python = await pythonWithRequests();
    dir = await mkdtemp(join(tmpdir(), 'pyclient-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
    await t.close();
  });

  it('the exact bytes requests sends (a file part without Content-Type) are a receipt: 200', async () => {
    const order = (await createOrder(t.app, merchant, { type: 'sbp_pdf' })).json();
    const boundary = randomUUID().replaceAll('-', '');
    const res = await t.app.inject({
      method: 'POST',
      url: '/merchant/receipt/upload',
      headers: {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'client-api-key': merchant.apiKey,
        'x-api-key': sign(merchant.apiKey),
        'user-agent': 'python-requests/2.28.1',
      },
      payload: requestsMultipart(boundary, order.id, 'receipt.pdf', pdfFile()),
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { success: true, purchaseId: order.payment_id, internalId: order.id });
  });

  it('those bytes are what requests really builds (checked against requests itself)', async (ctx) => {
    if (!python) return ctx.skip('no python3 with requests here (.ci/run installs python3-requests)');
    const script = [
      'import sys, requests',
      'body, ctype = requests.models.RequestEncodingMixin._encode_files(',
      '    {"receipt": ("receipt.pdf", b"%PDF-1.4 bytes")}, {"orderId": "lux-order"})',
      'sys.stdout.buffer.write(ctype.encode() + b"\\n" + body)',
    ].join('\n');
    const { stdout } = await run(python, ['-c', script], { encoding: 'buffer', timeout: 20_000 });
    const out = stdout as unknown as Buffer;
    const newline = out.indexOf(10);
    const ctype = out.subarray(0, newline).toString();
    const boundary = /boundary=([0-9a-f]{32})$/.exec(ctype)?.[1];
    assert.ok(boundary, ctype);
    const expected = requestsMultipart(boundary, 'lux-order', 'receipt.pdf', Buffer.from('%PDF-1.4 bytes'));
    assert.equal(out.subarray(newline + 1).toString('latin1'), expected.toString('latin1'));
  });

  it('create, status, balance and receipt upload from a real Python client against the running service', async (ctx) => {
    if (!python) return ctx.skip('no python3 with requests here (.ci/run installs python3-requests)');
    const receiptPath = join(dir, 'receipt.pdf');
    await writeFile(receiptPath, pdfFile('Paid 1500 RUB'));
    const orderId = `py-${randomUUID()}`;
    const { stdout } = await run(python, [SCRIPT], {
      timeout: 60_000,
      env: {
        PATH: process.env.PATH ?? '',
        BASE_URL: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`,
        API_KEY: merchant.apiKey,
        MERCHANT_ID: merchant.id,
        RECEIPT_PATH: receiptPath,
        ORDER_ID: orderId,
      },
    });
    const seen = JSON.parse(stdout.trim());
    assert.equal(seen.create?.[0], 200, stdout);
    assert.equal(seen.create[1].payment_id, orderId, stdout);
    assert.deepEqual(
      [seen.status, seen.balance],
      [
        [200, 'pending'],
        [200, 0],
      ],
      stdout,
    );
    assert.deepEqual(seen.upload, [
      200,
      { success: true, purchaseId: orderId, internalId: seen.create[1].id },
    ]);
    assert.equal(seen.receiptStatus, 'under_review', stdout);
  });
});
