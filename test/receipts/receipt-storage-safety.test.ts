import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { buildApp, type Services } from '../../src/app.js';
import type { App } from '../../src/http/schemas.js';
import { startJobs } from '../../src/jobs.js';
import { createDirectoryStorage, type ReceiptStorage } from '../../src/rails/receipts/receipt-storage.js';
import { testConfig } from '../helpers/app.js';
import { closeTestDatabase, isolateDatabase, testDatabase } from '../helpers/database.js';
import { multipartBody, pngFile } from '../helpers/files.js';
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

// docs/decisions.md section 16.
describe('receipts: a storage failure leaves nothing behind; credentials in URLs refused (docs/decisions.md section 16)', () => {
  let app: App;
  let services: Services;
  let dir: string;
  let merchant: TestMerchant;
  let failNextKeep = false;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let dropDatabase: () => Promise<void>;

  before(async () => {
    // A database of its own: this file starts the jobs (their dispatcher would claim others' rows).
    dropDatabase = await isolateDatabase('receipt_safety');
    dir = await mkdtemp(join(tmpdir(), 'receipts-safety-'));
    const real = createDirectoryStorage(dir);
    // The real directory store, whose next keep() fails as a full disk or a lost bucket would.
    const storage: ReceiptStorage = {
      ...real,
      async keep(spooled, key) {
        if (failNextKeep) {
          failNextKeep = false;
          throw new Error('ENOSPC: no space left on device');
        }
        return real.keep(spooled, key);
      },
    };
    const built = await buildApp({
      config: testConfig({ receiptsDir: dir }),
      database: await testDatabase(),
      receiptStorage: storage,
    });
    app = built.app;
    services = built.services;
    await app.ready();
    merchant = await createMerchant(app, { payment_types: ['sbp_pdf'] });
    await addRequisite(app, { kind: 'phone' });
    receiver = await startReceiver(() => ({
      status: 200,
      body: pngFile(),
      headers: { 'content-type': 'image/png' },
    }));
  });
  after(async () => {
    await receiver.close();
    await app.close();
    await closeTestDatabase();
    await dropDatabase();
    await rm(dir, { recursive: true, force: true });
  });

  const upload = (orderId: string) => {
    const { body, contentType } = multipartBody(
      { orderId },
      { field: 'receipt', filename: 'r.png', contentType: 'image/png', data: pngFile() },
    );
    return app.inject({
      method: 'POST',
      url: '/merchant/receipt/upload',
      headers: {
        'content-type': contentType,
        'client-api-key': merchant.apiKey,
        'x-api-key': sign(merchant.apiKey),
      },
      payload: body,
    });
  };

  it('item 6: storing fails -> no receipt under review is left; the next upload is taken', async () => {
    const order = (await createOrder(app, merchant, { type: 'sbp_pdf' })).json();
    failNextKeep = true;
    const failed = await upload(order.id);
    assert.equal(failed.statusCode, 500, failed.body);
    assert.equal(failed.json().message, 'INTERNAL_ERROR');
    const read = await merchantRequest(app, merchant, `/merchant/order/${order.id}`);
    assert.equal(read.json().receiptStatus, null, 'no receipt row without its file');
    const rows = await admin<Array<{ order_id: string }>>(
      app,
      'GET',
      '/admin/receipts?status=under_review&limit=1000',
    );
    assert.equal(rows.filter((r) => r.order_id === order.id).length, 0);
    assert.deepEqual(await readdir(join(dir, '.tmp')), [], 'the spooled file is gone too');
    const again = await upload(order.id);
    assert.equal(again.statusCode, 200, again.body);
  });

  it('item 6: spool files left by a crash are swept at start (older than an hour), young ones kept', async () => {
    const tmp = join(dir, '.tmp');
    const old = join(tmp, 'left-by-a-crash');
    const young = join(tmp, 'upload-in-flight');
    await writeFile(old, 'x');
    await writeFile(young, 'y');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    await utimes(old, twoHoursAgo, twoHoursAgo);
    const jobs = startJobs(
      services,
      testConfig({ receiptsDir: dir, expiryIntervalMs: 5000 }),
      pino({ level: 'silent' }),
    );
    await jobs.stop();
    assert.deepEqual(await readdir(tmp), ['upload-in-flight']);
  });

  it('item 7: a receipt URL with user:secret@ is 400 RECEIPT_URL_INVALID, nothing fetched or stored', async () => {
    const order = (await createOrder(app, merchant, { type: 'sbp_pdf' })).json();
    const host = new URL(receiver.url).host;
    for (const receiptUrl of [
      `http://user:secret@${host}/r.png`,
      `http://user@${host}/r.png`,
      `http://:secret@${host}/r.png`,
    ]) {
      const res = await merchantRequest(app, merchant, '/merchant/receipt/upload', {
        body: { orderId: order.id, receiptUrl },
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().message, 'RECEIPT_URL_INVALID', receiptUrl);
    }
    assert.equal(receiver.received.length, 0);
    const read = await merchantRequest(app, merchant, `/merchant/order/${order.id}`);
    assert.equal(read.json().receiptStatus, null);
    const ok = await merchantRequest(app, merchant, '/merchant/receipt/upload', {
      body: { orderId: order.id, receiptUrl: `http://${host}/r.png` },
    });
    assert.equal(ok.statusCode, 200, ok.body);
  });
});
