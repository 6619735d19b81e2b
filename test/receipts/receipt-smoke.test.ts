import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { jpegFile, multipartBody, padTo, pdfFile, pngFile } from '../helpers/files.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  merchantRequest,
  sign,
  type TestMerchant,
} from '../helpers/merchant-client.js';
import { startReceiver } from '../helpers/receiver.js';

describe('receipt upload: file and URL, moderation', () => {
  let t: TestApp;
  let merchant: TestMerchant;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app);
    await addRequisite(t.app);
    receiver = await startReceiver((req) =>
      req.url === '/r.pdf'
        ? { status: 200, body: pdfFile(), headers: { 'content-type': 'application/pdf' } }
        : { status: 404 },
    );
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  const upload = (orderId: string, file: { filename: string; contentType: string; data: Buffer }) => {
    const { body, contentType } = multipartBody({ orderId }, { field: 'receipt', ...file });
    return t.app.inject({
      method: 'POST',
      url: '/merchant/receipt/upload',
      headers: {
        'content-type': contentType,
        'client-api-key': merchant.apiKey,
        'x-api-key': sign(merchant.apiKey, ''),
      },
      payload: body,
    });
  };

  it('a PNG by file, then 409 while under review, accept, then a PDF by URL', async () => {
    const order = (await createOrder(t.app, merchant, { order_id: `r-${Date.now()}` })).json();
    const first = await upload(order.payment_id, {
      filename: 'r.png',
      contentType: 'image/png',
      data: pngFile(),
    });
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.json(), { success: true, purchaseId: order.payment_id, internalId: order.id });
    const second = await upload(order.id, { filename: 'r.jpg', contentType: 'image/jpeg', data: jpegFile() });
    assert.equal(second.json().message, 'MODERATION_IN_PROGRESS', second.body);
    const info = await merchantRequest(t.app, merchant, `/merchant/order/${order.id}`);
    assert.equal(info.json().receiptStatus, 'under_review');
    const queue = await admin<Array<{ id: string; order_id: string }>>(
      t.app,
      'GET',
      '/admin/receipts?status=under_review',
    );
    const mine = queue.find((r) => r.order_id === order.id);
    assert.ok(mine);
    const file = await t.app.inject({
      method: 'GET',
      url: `/admin/receipts/${mine.id}/file`,
      headers: { authorization: 'Bearer test-admin-token-0123456789abcdef' },
    });
    assert.equal(file.headers['content-type'], 'image/png');
    assert.equal(file.headers['x-content-type-options'], 'nosniff');
    assert.deepEqual(file.rawPayload, pngFile());
    await admin(t.app, 'POST', `/admin/receipts/${mine.id}/accept`);
    const byUrl = await merchantRequest(t.app, merchant, '/merchant/receipt/upload', {
      body: { orderId: order.id, receiptUrl: `${receiver.url}/r.pdf` },
    });
    assert.equal(byUrl.statusCode, 200, byUrl.body);
  });

  it('content rules: PNG named .pdf mismatch, HTML unsupported, 5 MB + 1 too large', async () => {
    const order = (await createOrder(t.app, merchant)).json();
    const mismatch = await upload(order.id, {
      filename: 'r.pdf',
      contentType: 'application/pdf',
      data: pngFile(),
    });
    assert.equal(mismatch.json().message, 'RECEIPT_CONTENT_MISMATCH', mismatch.body);
    const html = await upload(order.id, {
      filename: 'r.pdf',
      contentType: 'application/pdf',
      data: Buffer.from('<html><body>hi</body></html>'),
    });
    assert.equal(html.json().message, 'RECEIPT_UNSUPPORTED_FORMAT', html.body);
    const big = await upload(order.id, {
      filename: 'r.pdf',
      contentType: 'application/pdf',
      data: padTo(pdfFile(), 5 * 1024 * 1024 + 1),
    });
    assert.equal(big.json().message, 'RECEIPT_TOO_LARGE', big.body);
    const exact = await upload(order.id, {
      filename: 'r.pdf',
      contentType: 'application/pdf',
      data: padTo(pdfFile(), 5 * 1024 * 1024),
    });
    assert.equal(exact.statusCode, 200, exact.body);
  });
});
