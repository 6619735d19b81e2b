import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { receipts } from '../../src/db/tables/receipts.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/app.js';
import { jpegFile, multipartBody, padTo, pdfFile, pngFile } from '../helpers/files.js';
import {
  addRequisite,
  admin,
  adminRaw,
  createMerchant,
  createOrder,
  merchantRequest,
  sign,
  type TestMerchant,
} from '../helpers/merchant-client.js';

// POST /merchant/receipt/upload, multipart form (docs/api.md; docs/decisions.md sections 1, 3, 9).
const MB = 1024 * 1024;
const URL_ = '/merchant/receipt/upload';
const PDF_UP = { filename: 'r.pdf', contentType: 'application/pdf', data: pdfFile() };
const PNG_UP = { filename: 'r.png', contentType: 'image/png', data: pngFile() };

type Part = { name: string; value: string } | { name: string; filename: string; type: string; data: Buffer };

/** A multipart body with its parts in the given order (the helper always puts fields first). */
function form(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = `----order${Math.random().toString(16).slice(2)}`;
  const out: Buffer[] = [];
  for (const p of parts) {
    const head =
      'value' in p
        ? `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n`
        : `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: ${p.type}\r\n\r\n`;
    out.push(Buffer.from(head), 'value' in p ? Buffer.from(p.value) : p.data, Buffer.from('\r\n'));
  }
  out.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(out), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A multipart upload of a `fileBytes` PDF produced chunk by chunk: the test never holds it whole. */
function streamedForm(orderId: string, fileBytes: number) {
  const boundary = `----stream${Math.random().toString(16).slice(2)}`;
  const zeros = Buffer.alloc(64 * 1024);
  const pdf = pdfFile();
  const produced = { bytes: 0 };
  async function* gen() {
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="orderId"\r\n\r\n${orderId}\r\n--${boundary}\r\nContent-Disposition: form-data; name="receipt"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n`;
    yield Buffer.from(head);
    yield pdf;
    produced.bytes += pdf.length;
    for (let left = fileBytes - pdf.length; left > 0; left -= zeros.length) {
      const chunk = left >= zeros.length ? zeros : zeros.subarray(0, left);
      produced.bytes += chunk.length;
      yield chunk;
    }
    yield Buffer.from(`\r\n--${boundary}--\r\n`);
  }
  return {
    stream: Readable.from(gen(), { objectMode: false }),
    contentType: `multipart/form-data; boundary=${boundary}`,
    produced,
  };
}

describe('receipt upload by file (multipart)', () => {
  let t: TestApp;
  let dir: string;
  let merchant: TestMerchant;
  let other: TestMerchant;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'receipt-file-test-'));
    t = await startTestApp({ config: { receiptsDir: dir } });
    merchant = await createMerchant(t.app);
    other = await createMerchant(t.app);
    await addRequisite(t.app);
  });
  after(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  type SendOptions = { as?: TestMerchant; signed?: string | Buffer; headers?: Record<string, string> };
  const send = (payload: Buffer | Readable, contentType: string, opts: SendOptions = {}) => {
    const m = opts.as ?? merchant;
    const auth = { 'client-api-key': m.apiKey, 'x-api-key': sign(m.apiKey, opts.signed ?? '') };
    const headers = { 'content-type': contentType, ...auth, ...opts.headers };
    return t.app.inject({ method: 'POST', url: URL_, headers, payload });
  };
  const upload = (
    orderId: string,
    file: { filename: string; contentType: string; data: Buffer },
    as?: TestMerchant,
  ) => {
    const { body, contentType } = multipartBody({ orderId }, { field: 'receipt', ...file });
    return send(body, contentType, as ? { as } : {});
  };
  const newOrder = async (m: TestMerchant = merchant, fields: Record<string, unknown> = {}) => {
    const res = await createOrder(t.app, m, fields);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { id: string; payment_id: string };
  };
  const withOrderId = (m: TestMerchant = merchant) =>
    newOrder(m, { order_id: `rf-${Math.random().toString(36).slice(2)}` });
  const rows = (orderId: string) =>
    t.database.db.select().from(receipts).where(eq(receipts.orderId, orderId));
  const spoolLeft = async () => (await readdir(join(dir, '.tmp'))).length;
  const receiptStatus = async (orderId: string) => {
    const res = await merchantRequest(t.app, merchant, `/merchant/order/${orderId}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().receiptStatus as string | null;
  };
  const adminFile = (id: string, headers = { authorization: `Bearer ${ADMIN_TOKEN}` }) =>
    t.app.inject({ method: 'GET', url: `/admin/receipts/${id}/file`, headers });
  const refused = async (res: { statusCode: number; body: string }, status: number, code: string) => {
    assert.equal(res.statusCode, status, res.body);
    assert.equal(JSON.parse(res.body).message, code, res.body);
    assert.equal(JSON.parse(res.body).success, false, res.body);
  };

  // [name, content, file name, declared type, sniffed type, served extension]
  const formats: Array<[string, Buffer, string, string, string, string]> = [
    ['PDF', pdfFile('Paid 1000 RUB'), 'r.pdf', 'application/pdf', 'application/pdf', 'pdf'],
    ['JPEG', jpegFile(), 'photo.jpg', 'image/jpeg', 'image/jpeg', 'jpg'],
    ['PNG', pngFile(), 'shot.png', 'image/png', 'image/png', 'png'],
    ['PNG, generic type, no extension', pngFile(), 'receipt', 'application/octet-stream', 'image/png', 'png'],
  ];
  for (const [name, data, filename, declared, mime, ext] of formats) {
    const f = { data, filename, declared, mime, ext };
    it(`${name}: accepted, stored under review, served back byte-identical`, async () => {
      const order = await withOrderId();
      const res = await upload(order.payment_id, {
        filename: f.filename,
        contentType: f.declared,
        data: f.data,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { success: true, purchaseId: order.payment_id, internalId: order.id });
      const stored = await rows(order.id);
      assert.equal(stored.length, 1, JSON.stringify(stored));
      const row = stored[0];
      assert.ok(row);
      assert.equal(row.status, 'under_review');
      assert.equal(row.contentType, f.mime);
      assert.equal(row.sizeBytes, f.data.length);
      assert.equal(row.source, 'file');
      const file = await adminFile(row.id);
      assert.equal(file.statusCode, 200, file.body);
      assert.equal(file.headers['content-type'], f.mime);
      assert.equal(file.headers['content-disposition'], `attachment; filename="receipt-${row.id}.${f.ext}"`);
      assert.equal(file.headers['x-content-type-options'], 'nosniff');
      assert.equal(Number(file.headers['content-length']), f.data.length);
      assert.ok(file.rawPayload.equals(f.data), 'served bytes differ from the upload');
    });
  }

  it('content rules: mismatch and unsupported, nothing stored, no spool left', async () => {
    const order = await withOrderId();
    const html = Buffer.from('<!doctype html><html><body><script>alert(1)</script></body></html>');
    const cases: Array<[string, string, Buffer, string]> = [
      ['r.pdf', 'image/png', pngFile(), 'RECEIPT_CONTENT_MISMATCH'],
      ['r.png', 'application/pdf', pngFile(), 'RECEIPT_CONTENT_MISMATCH'],
      ['r.pdf', 'application/pdf', pngFile(), 'RECEIPT_CONTENT_MISMATCH'],
      ['r.png', 'image/png', jpegFile(), 'RECEIPT_CONTENT_MISMATCH'],
      ['r.pdf', 'application/pdf', html, 'RECEIPT_UNSUPPORTED_FORMAT'],
      ['r.html', 'text/html', html, 'RECEIPT_UNSUPPORTED_FORMAT'],
      ['r.pdf', 'application/pdf', Buffer.alloc(0), 'RECEIPT_UNSUPPORTED_FORMAT'],
    ];
    for (const [filename, contentType, data, code] of cases) {
      const res = await upload(order.id, { filename, contentType, data });
      await refused(res, 400, code);
    }
    assert.deepEqual(await rows(order.id), []);
    assert.equal(await receiptStatus(order.id), null);
    assert.equal(await spoolLeft(), 0, 'a refused upload left its spooled file');
  });

  it('5 MB + 1 byte is RECEIPT_TOO_LARGE; exactly 5 MB is accepted and kept whole', async () => {
    const order = await withOrderId();
    const big = await upload(order.id, {
      filename: 'r.pdf',
      contentType: 'application/pdf',
      data: padTo(pdfFile(), 5 * MB + 1),
    });
    await refused(big, 400, 'RECEIPT_TOO_LARGE');
    assert.deepEqual(await rows(order.id), []);
    const exactData = padTo(pdfFile(), 5 * MB);
    const exact = await upload(order.id, {
      filename: 'r.pdf',
      contentType: 'application/pdf',
      data: exactData,
    });
    assert.equal(exact.statusCode, 200, exact.body);
    const [row] = await rows(order.id);
    assert.equal(row?.sizeBytes, 5 * MB);
    const file = await adminFile(row?.id ?? '');
    assert.ok(file.rawPayload.equals(exactData), 'the 5 MB file was not stored byte-identical');
    assert.equal(await spoolLeft(), 0);
  });

  it('a 50 MB upload is cut off as RECEIPT_TOO_LARGE with bounded memory', async () => {
    const order = await withOrderId();
    const warm = streamedForm(order.id, 6 * MB);
    await refused(await send(warm.stream, warm.contentType), 400, 'RECEIPT_TOO_LARGE');
    const upload50 = streamedForm(order.id, 50 * MB);
    // RSS and the memory of Buffers (arrayBuffers), sampled every 5 ms while the upload runs.
    const before = process.memoryUsage();
    const peak = { rss: before.rss, buffers: before.arrayBuffers };
    const sample = () => {
      const now = process.memoryUsage();
      peak.rss = Math.max(peak.rss, now.rss);
      peak.buffers = Math.max(peak.buffers, now.arrayBuffers);
    };
    const sampler = setInterval(sample, 5);
    let res: Awaited<ReturnType<typeof send>>;
    try {
      res = await send(upload50.stream, upload50.contentType);
    } finally {
      clearInterval(sampler);
    }
    sample();
    const rssGrowth = (peak.rss - before.rss) / MB;
    const bufferGrowth = (peak.buffers - before.arrayBuffers) / MB;
    const measured = `RSS +${rssGrowth.toFixed(1)} MB, Buffers +${bufferGrowth.toFixed(1)} MB`;
    console.log(`# 50 MB upload: peak ${measured} (RSS before ${(before.rss / MB).toFixed(0)} MB)`);
    await refused(res, 400, 'RECEIPT_TOO_LARGE');
    assert.equal(upload50.produced.bytes, 50 * MB, 'the whole upload was offered');
    assert.ok(rssGrowth < 30, `memory not bounded during a 50 MB upload: ${measured}`);
    assert.ok(bufferGrowth < 30, `memory not bounded during a 50 MB upload: ${measured}`);
    assert.deepEqual(await rows(order.id), []);
    assert.equal(await spoolLeft(), 0);
  });

  it('orderId after the file part still works', async () => {
    const order = await withOrderId();
    const { body, contentType } = form([
      { name: 'receipt', filename: 'r.png', type: 'image/png', data: pngFile() },
      { name: 'orderId', value: order.payment_id },
    ]);
    const res = await send(body, contentType);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { success: true, purchaseId: order.payment_id, internalId: order.id });
  });

  it('missing parts: ORDER_ID_REQUIRED / RECEIPT_REQUIRED', async () => {
    const order = await withOrderId();
    const png = { name: 'receipt', filename: 'r.png', type: 'image/png', data: pngFile() };
    const id = { name: 'orderId', value: order.id };
    const cases: Array<[Part[], string]> = [
      [[png], 'ORDER_ID_REQUIRED'],
      [[{ name: 'orderId', value: '   ' }, png], 'ORDER_ID_REQUIRED'],
      [[id], 'RECEIPT_REQUIRED'],
      [[id, { ...png, name: 'file' }], 'RECEIPT_REQUIRED'],
      [[], 'ORDER_ID_REQUIRED'],
    ];
    for (const [parts, code] of cases) {
      const { body, contentType } = form(parts);
      await refused(await send(body, contentType), 400, code);
    }
    assert.deepEqual(await rows(order.id), []);
    assert.equal(await spoolLeft(), 0);
  });

  it('signature: multipart is signed as an empty body; anything else is 401', async () => {
    const order = await withOrderId();
    const { body, contentType } = multipartBody({ orderId: order.id }, { field: 'receipt', ...PNG_UP });
    const wrong: SendOptions[] = [
      { signed: body },
      { signed: `orderId=${order.id}` },
      { headers: { 'x-api-key': sign(other.apiKey, '') } },
      { headers: { 'client-api-key': 'nope' } },
    ];
    for (const opts of wrong) await refused(await send(body, contentType, opts), 401, 'INVALID_API_KEY');
    assert.deepEqual(await rows(order.id), []);
    const ok = await send(body, contentType);
    assert.equal(ok.statusCode, 200, ok.body);
  });

  it("ownership: another merchant's order is 403 by internal id, unknown ids are 404", async () => {
    const theirs = await withOrderId(other);
    await refused(await upload(theirs.id, PNG_UP), 403, 'ORDER_FORBIDDEN');
    // Their external id names nothing among this merchant's orders.
    await refused(await upload(theirs.payment_id, PNG_UP), 404, 'ORDER_NOT_FOUND');
    await refused(await upload('lux01993328-a828-7581-b3a9-e712a6a0e88c', PNG_UP), 404, 'ORDER_NOT_FOUND');
    await refused(await upload(`missing-${Date.now()}`, PNG_UP), 404, 'ORDER_NOT_FOUND');
    assert.deepEqual(await rows(theirs.id), []);
    assert.equal(await spoolLeft(), 0);
    // The owner still can.
    const own = await upload(theirs.id, PNG_UP, other);
    assert.equal(own.statusCode, 200, own.body);
  });

  it('moderation: 409 while under review; after reject or accept a new upload is taken', async () => {
    const order = await withOrderId();
    assert.equal(await receiptStatus(order.id), null);
    const first = await upload(order.payment_id, PNG_UP);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(await receiptStatus(order.id), 'under_review');
    await refused(await upload(order.id, PDF_UP), 409, 'MODERATION_IN_PROGRESS');
    assert.equal((await rows(order.id)).length, 1);
    assert.equal(await spoolLeft(), 0, 'the 409 upload left its spooled file');

    type View = { id: string; order_id: string; status: string; reason: string | null };
    const queue = await admin<View[]>(t.app, 'GET', '/admin/receipts?status=under_review&limit=1000');
    assert.ok(
      queue.every((r) => r.status === 'under_review'),
      JSON.stringify(queue.slice(0, 3)),
    );
    const mine = queue.find((r) => r.order_id === order.id);
    assert.ok(mine, 'the receipt is not in the under_review queue');

    const noReason = await adminRaw(t.app, 'POST', `/admin/receipts/${mine.id}/reject`, {});
    assert.equal(noReason.statusCode, 400, noReason.body);
    const rejected = await admin<View>(t.app, 'POST', `/admin/receipts/${mine.id}/reject`, {
      reason: 'blurry',
    });
    assert.equal(rejected.status, 'rejected');
    assert.equal(rejected.reason, 'blurry');
    assert.equal(await receiptStatus(order.id), 'rejected');
    const again = await adminRaw(t.app, 'POST', `/admin/receipts/${mine.id}/accept`);
    assert.equal(again.statusCode, 409, `a decided receipt was decided again: ${again.body}`);
    const rejectedList = await admin<View[]>(t.app, 'GET', '/admin/receipts?status=rejected&limit=1000');
    assert.ok(
      rejectedList.some((r) => r.id === mine.id),
      'not listed as rejected',
    );

    const second = await upload(order.id, PDF_UP);
    assert.equal(second.statusCode, 200, second.body);
    assert.equal(await receiptStatus(order.id), 'under_review');
    const open = (await rows(order.id)).filter((r) => r.status === 'under_review');
    assert.equal(open.length, 1);
    const secondId = open[0]?.id ?? '';
    const accepted = await admin<View>(t.app, 'POST', `/admin/receipts/${secondId}/accept`);
    assert.equal(accepted.status, 'accepted');
    assert.equal(await receiptStatus(order.id), 'accepted');

    const third = await upload(order.id, { filename: 'r.jpg', contentType: 'image/jpeg', data: jpegFile() });
    assert.equal(third.statusCode, 200, third.body);
    assert.equal(await receiptStatus(order.id), 'under_review');
    const all = await rows(order.id);
    assert.deepEqual(all.map((r) => r.status).sort(), ['accepted', 'rejected', 'under_review']);
  });

  it('purchaseId is the internal id when the order was created without order_id', async () => {
    const order = await newOrder();
    assert.equal(order.payment_id, order.id, JSON.stringify(order));
    const res = await upload(order.id, PDF_UP);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { success: true, purchaseId: order.id, internalId: order.id });
    assert.match(order.id, /^lux[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('concurrent uploads for one order: exactly one is taken, the rest are 409', async () => {
    const order = await withOrderId();
    const { body, contentType } = multipartBody({ orderId: order.id }, { field: 'receipt', ...PNG_UP });
    const answers = await Promise.all(Array.from({ length: 5 }, () => send(body, contentType)));
    const codes = answers.map((r) => `${r.statusCode} ${r.json().message ?? ''}`.trim()).sort();
    assert.deepEqual(codes, ['200', ...Array(4).fill('409 MODERATION_IN_PROGRESS')]);
    assert.equal((await rows(order.id)).length, 1);
    assert.equal(await spoolLeft(), 0);
  });

  it('admin file viewer: unknown receipt 404, no token 401', async () => {
    const unknown = await adminFile('00000000-0000-4000-8000-000000000000');
    assert.equal(unknown.statusCode, 404, unknown.body);
    const anonymous = await adminFile('00000000-0000-4000-8000-000000000000', { authorization: '' });
    assert.equal(anonymous.statusCode, 401, anonymous.body);
  });

  // Last: these leave spooled files behind, removed in `finally` so that they do not leak into others.
  const clearSpool = async () => {
    for (const name of await readdir(join(dir, '.tmp'))) await rm(join(dir, '.tmp', name), { force: true });
  };

  it('a second file part is refused and leaves no spooled file', async () => {
    const order = await withOrderId();
    const png = { name: 'receipt', filename: 'r.png', type: 'image/png', data: pngFile() };
    const { body, contentType } = form([
      { name: 'orderId', value: order.id },
      png,
      { ...png, filename: 's.png' },
    ]);
    try {
      const res = await send(body, contentType);
      assert.ok(res.statusCode >= 400 && res.statusCode < 500, res.body);
      assert.deepEqual(await rows(order.id), []);
      assert.equal(await spoolLeft(), 0, 'the first file of a refused upload stays in the spool');
    } finally {
      await clearSpool();
    }
  });

  it('a malformed multipart body is a 4xx, not a 500', async () => {
    const order = await withOrderId();
    const { body, contentType } = form([
      { name: 'orderId', value: order.id },
      { name: 'receipt', filename: 'r.pdf', type: 'application/pdf', data: pdfFile() },
    ]);
    try {
      const noBoundary = await send(body, 'multipart/form-data');
      assert.ok(noBoundary.statusCode >= 400 && noBoundary.statusCode < 500, noBoundary.body);
      const cut = await send(body.subarray(0, body.length - 20), contentType);
      assert.ok(cut.statusCode >= 400 && cut.statusCode < 500, cut.body);
      assert.deepEqual(await rows(order.id), []);
    } finally {
      await clearSpool();
    }
  });
});
