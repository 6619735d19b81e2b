import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { PNG } from 'pngjs';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium, pageTestSkip } from '../helpers/browser.js';
import { pdfFile } from '../helpers/files.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  type TestMerchant,
  uniqueAmount,
} from '../helpers/merchant-client.js';

// jsqr is CommonJS whose typings declare an ES default export: load it the CommonJS way.
const jsQR = createRequire(import.meta.url)('jsqr') as typeof import('jsqr').default;

const ARTIFACTS = '.test-artifacts/form';

describe('payment form in Chromium', { skip: pageTestSkip }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let merchant: TestMerchant;

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestApp({ config: { publicBaseUrl: 'http://127.0.0.1' } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    merchant = await createMerchant(t.app);
    await addRequisite(t.app, { kind: 'phone', bank: 'Sberbank', address: '79001234567' });
    await addRequisite(t.app, {
      kind: 'qr',
      bank: 'Sberbank',
      address: 'https://qr.nspk.ru/AS1000670LSS7DN18SJQDNP4B05KLJL2?type=01&bank=100000000111',
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t.close();
  });

  it('sbp_pdf: shows amount, phone and bank; copy puts the phone on the clipboard; upload -> under review; confirm -> success', async () => {
    const amount = uniqueAmount();
    const order = (await createOrder(t.app, merchant, { type: 'sbp_pdf', amount })).json();
    const context = await browser.newContext({ viewport: { width: 360, height: 780 }, locale: 'ru-RU' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const page = await context.newPage();
    await page.goto(`${base}/form/${order.id}`);
    assert.equal(
      (await page.getByTestId('amount').textContent())?.replace(/\s+/g, ' ').trim(),
      `${new Intl.NumberFormat('ru-RU').format(amount)} ₽`.replace(/\s+/g, ' '),
    );
    assert.match(
      (await page.getByTestId('address').textContent()) ?? '',
      /^\+7 \(\d{3}\) \d{3}-\d{2}-\d{2}$/,
    );
    assert.equal(await page.getByTestId('bank').textContent(), 'Sberbank');
    await page.getByTestId('copy-address').click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), order.payment_details.address);
    await page.screenshot({ path: `${ARTIFACTS}/sbp-360.png`, fullPage: true });
    await page.getByTestId('i-paid').click();
    await page
      .getByTestId('file')
      .setInputFiles({ name: 'receipt.pdf', mimeType: 'application/pdf', buffer: pdfFile() });
    await page.getByText('Чек на проверке').waitFor({ timeout: 10_000 });
    await admin(t.app, 'POST', `/admin/orders/${order.id}/confirm`, {});
    await page.getByText('Оплата получена').waitFor({ timeout: 10_000 });
    assert.equal(await page.locator('#requisites').isVisible(), false);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: `${ARTIFACTS}/sbp-success-1280.png`, fullPage: true });
    await context.close();
  });

  it('qr_smart: the QR image decodes to the order address', async () => {
    const order = (await createOrder(t.app, merchant, { type: 'qr_smart' })).json();
    const page = await browser.newPage({ viewport: { width: 360, height: 780 } });
    await page.goto(`${base}/form/${order.id}?lang=en`);
    const shot = await page.getByTestId('qr').screenshot();
    const png = PNG.sync.read(shot);
    const code = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
    assert.equal(code?.data, order.payment_details.address);
    await page.screenshot({ path: `${ARTIFACTS}/qr-360-en.png`, fullPage: true });
    await page.close();
  });
});
