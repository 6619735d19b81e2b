import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium, pageTestSkip } from '../helpers/browser.js';
import { pngFile } from '../helpers/files.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  type TestMerchant,
  uniqueAmount,
} from '../helpers/merchant-client.js';

// The payment form in Chromium (docs/api.md "Payment form"): live states without reload, drag and drop upload with the
// browser-side checks, the crypto QR, the countdown, and screenshots at 360 px and 1280 px.
const jsQR = createRequire(import.meta.url)('jsqr') as typeof import('jsqr').default;

const ARTIFACTS = '.test-artifacts/form';
const ABANDON = `${'abandon '.repeat(11)}about`;
const MB = 1024 * 1024;
/** A RUB amount as the Russian page writes it (`12 345 ₽`), spaces normalised. */
const rub = (amount: number) => `${new Intl.NumberFormat('ru-RU').format(amount)} ₽`.replace(/\s+/g, ' ');
type Order = { id: string; payment_details: Record<string, string> };

/** Browser-side: drops a File (bytes from base64, or `size` zero bytes) on the drop zone. */
const dropScript = (file: { b64?: string; size?: number; name: string; type: string }) => `(() => {
  const f = ${JSON.stringify(file)};
  const bytes = f.b64 ? Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0)) : new Uint8Array(f.size);
  const dt = new DataTransfer();
  dt.items.add(new File([bytes], f.name, { type: f.type }));
  const drop = document.getElementById('drop');
  drop.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
  drop.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  return dt.files.length;
})()`;

/** "MM:SS" or "H:MM:SS" (an hour or more) -> seconds. */
const seconds = (text: string) => {
  const m = /^(?:(\d+):)?(\d\d):(\d\d)$/.exec(text.trim());
  assert.ok(m, `countdown ${JSON.stringify(text)} is not MM:SS or H:MM:SS`);
  return Number(m[1] ?? 0) * 3600 + Number(m[2]) * 60 + Number(m[3]);
};

describe('payment form states in Chromium', {
  skip: pageTestSkip,
}, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let merchant: TestMerchant;
  let short: TestMerchant;

  const order = async (fields: Record<string, unknown>, m = merchant): Promise<Order> => {
    const res = await createOrder(t.app, m, fields);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const formStatus = async (id: string) => (await t.app.inject({ url: `/form/${id}/status` })).json();
  /** A fresh page at 360 px with a counter of requests to /receipt and of main-frame navigations. */
  const open = async (id: string, lang = '') => {
    const page = await browser.newPage({ viewport: { width: 360, height: 780 }, locale: 'ru-RU' });
    const seen = { receipt: 0, navigations: 0, errors: [] as string[] };
    page.on('request', (r) => {
      if (r.url().includes('/receipt')) seen.receipt++;
    });
    page.on('framenavigated', (f) => {
      if (f === page.mainFrame()) seen.navigations++;
    });
    page.on('pageerror', (e) => seen.errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) seen.errors.push(m.text());
    });
    page.on('response', (r) => {
      if (r.status() >= 400 && !r.url().endsWith('/favicon.ico'))
        seen.errors.push(`${r.status()} ${r.url()}`);
    });
    const res = await page.goto(`${base}/form/${id}${lang}`);
    assert.equal(res?.status(), 200, `GET /form/${id}`);
    return { page, seen };
  };
  const noHorizontalScroll = async (page: Page, what: string) => {
    const [scroll, client] = (await page.evaluate(
      '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
    )) as [number, number];
    assert.ok(scroll <= client, `${what}: content ${scroll}px wider than the ${client}px viewport`);
  };
  const shots = async (page: Page, name: string) => {
    await page.setViewportSize({ width: 360, height: 780 });
    await noHorizontalScroll(page, `${name} at 360`);
    await page.screenshot({ path: `${ARTIFACTS}/${name}-360.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: `${ARTIFACTS}/${name}-1280.png`, fullPage: true });
    await page.setViewportSize({ width: 360, height: 780 });
  };

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestApp({ config: { publicBaseUrl: 'http://127.0.0.1' } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const types = ['card_pdf', 'sbp_pdf', 'qr_smart', 'btc'];
    merchant = await createMerchant(t.app, { payment_types: types });
    short = await createMerchant(t.app, { payment_types: types, order_ttl_seconds: 10 });
    await addRequisite(t.app, { kind: 'card' });
    await addRequisite(t.app, { kind: 'phone' });
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(ABANDON));
    await admin(t.app, 'PUT', '/admin/crypto/xpubs', {
      network: 'btc',
      xpub: root.derive("m/84'/0'/0'").publicExtendedKey,
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('card form: grouped card number, the countdown is MM:SS and goes down; screenshots', async () => {
    const amount = uniqueAmount();
    const o = await order({ type: 'card_pdf', amount });
    const { page, seen } = await open(o.id);
    const address = o.payment_details.address as string;
    assert.equal((await page.getByTestId('amount').textContent())?.replace(/\s+/g, ' ').trim(), rub(amount));
    assert.equal(await page.getByTestId('address').textContent(), address.replace(/(\d{4})(?=\d)/g, '$1 '));
    const countdown = page.locator('#countdown');
    await page.waitForFunction('/^\\d\\d:\\d\\d$/.test(document.getElementById("countdown").textContent)');
    const first = seconds((await countdown.textContent()) ?? '');
    assert.ok(first > 880 && first <= 900, `countdown starts at ${first}s for a 900 s order`);
    await sleep(2500);
    const second = seconds((await countdown.textContent()) ?? '');
    assert.ok(second < first && second >= first - 4, `countdown went ${first}s -> ${second}s`);
    assert.equal(await page.locator('#drop').isVisible(), false, 'the upload shows before "I have paid"');
    await shots(page, 'card');
    await page.evaluate('window.__kept = "still here"');
    await page.getByTestId('i-paid').click();
    assert.equal(await page.locator('#drop').isVisible(), true);
    assert.equal(await page.getByTestId('address').isVisible(), false);
    assert.equal(await page.evaluate('window.__kept'), 'still here', 'the step change reloaded the page');
    assert.match(page.url(), /\?step=waiting$/);
    await shots(page, 'card-waiting');
    await page.getByTestId('back-to-pay').click();
    assert.equal(await page.getByTestId('address').isVisible(), true);
    assert.deepEqual(seen.errors, [], 'browser errors (CSP?)');
    await page.close();
  });

  it('an order expiring while open turns to "expired" without reload; reloaded, no requisites', async () => {
    const o = await order({ type: 'card_pdf' }, short);
    const { page, seen } = await open(o.id);
    await page.evaluate('window.__kept = "still here"');
    assert.equal(await page.getByTestId('address').isVisible(), true);
    await page.getByText('Время на оплату истекло').waitFor({ state: 'visible', timeout: 20_000 });
    assert.equal(await page.evaluate('window.__kept'), 'still here', 'the page was reloaded');
    assert.equal(seen.navigations, 1, 'navigated again');
    assert.equal(await page.locator('#requisites').isVisible(), false);
    for (let i = 0; i < 20 && (await t.services.orders.expireDue()) > 0; i++);
    assert.deepEqual([(await formStatus(o.id)).status, (await formStatus(o.id)).state], ['error', 'expired']);
    await page.reload();
    assert.equal(await page.locator('body').getAttribute('data-state'), 'expired');
    assert.equal(await page.getByTestId('address').count(), 0, 'an expired page still has the requisite');
    assert.ok(!(await page.content()).includes(o.payment_details.address as string), await page.content());
    assert.equal(await page.getByText('Время на оплату истекло').isVisible(), true);
    await shots(page, 'expired');
    await page.close();
  });

  it('a cancelled order turns to "failed" while the page is open, without reload', async () => {
    const o = await order({ type: 'sbp_pdf' });
    const { page, seen } = await open(o.id);
    await page.evaluate('window.__kept = "still here"');
    assert.match(
      (await page.getByTestId('address').textContent()) ?? '',
      /^\+7 \(\d{3}\) \d{3}-\d{2}-\d{2}$/,
    );
    await admin(t.app, 'POST', `/admin/orders/${o.id}/cancel`, { reason: 'payer gave up' });
    await page.getByText('Заказ отменён').waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal(await page.evaluate('window.__kept'), 'still here', 'the page was reloaded');
    assert.equal(seen.navigations, 1, 'navigated again');
    assert.equal(await page.locator('body').getAttribute('data-state'), 'failed');
    assert.equal(await page.locator('#requisites').isVisible(), false);
    assert.equal(await page.locator('#upload').isVisible(), false);
    await page.close();
  });

  it('drag and drop a PNG -> uploaded once, "receipt under review" shown', async () => {
    const o = await order({ type: 'card_pdf' });
    const { page, seen } = await open(o.id, '?step=waiting');
    const answer = page.waitForResponse((r) => r.url().endsWith(`/form/${o.id}/receipt`));
    const dropped = await page.evaluate(
      dropScript({ b64: pngFile().toString('base64'), name: 'receipt.png', type: 'image/png' }),
    );
    assert.equal(dropped, 1);
    const res = await answer;
    assert.equal(res.status(), 200, await res.text());
    await page.getByText('Чек на проверке').waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal(seen.receipt, 1, 'requests to /receipt');
    assert.equal(await page.locator('#upload-error').textContent(), '');
    assert.equal((await formStatus(o.id)).receiptStatus, 'under_review');
    await page.reload();
    await page.getByText('Чек на проверке').waitFor({ state: 'visible', timeout: 5000 });
    await page.close();
  });

  it('after the upload the drop zone is hidden', async () => {
    const o = await order({ type: 'card_pdf' });
    const { page } = await open(o.id, '?step=waiting');
    await page.evaluate(dropScript({ b64: pngFile().toString('base64'), name: 'r.png', type: 'image/png' }));
    await page.getByText('Чек на проверке').waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal(await page.locator('#drop').getAttribute('hidden'), '', 'form.js did not set hidden');
    assert.equal(await page.locator('#drop').isVisible(), false, 'the drop zone is still shown');
    await page.close();
  });

  it('an over-size or wrong-type file is refused in the browser with a message and no request', async () => {
    const o = await order({ type: 'card_pdf' });
    const { page, seen } = await open(o.id, '?step=waiting');
    const error = page.locator('#upload-error');
    await page.evaluate(dropScript({ size: 5 * MB + 1, name: 'big.pdf', type: 'application/pdf' }));
    await page.waitForFunction('document.getElementById("upload-error").textContent !== ""');
    assert.equal(await error.textContent(), 'Файл больше 5 МБ');
    assert.equal(await error.isVisible(), true);
    await page.evaluate(
      dropScript({ b64: Buffer.from('hello').toString('base64'), name: 'a.txt', type: 'text/plain' }),
    );
    await page.waitForFunction('document.getElementById("upload-error").textContent !== "Файл больше 5 МБ"');
    assert.equal(await error.textContent(), 'Нужен PDF, JPEG или PNG');
    await page
      .getByTestId('file')
      .setInputFiles({ name: 'page.html', mimeType: 'text/html', buffer: Buffer.from('<p>hi</p>') });
    await sleep(1000);
    assert.equal(await error.textContent(), 'Нужен PDF, JPEG или PNG');
    assert.equal(seen.receipt, 0, 'requests to /receipt');
    assert.equal((await formStatus(o.id)).receiptStatus, null);
    assert.equal(await page.getByTestId('receipt-status').textContent(), '');
    await page.close();
  });

  it('crypto btc: the QR decodes to the BIP21 URI with the exact amount; screenshots', async () => {
    const o = await order({ type: 'btc', amount: 0.01234567, currency: 'BTC' });
    const { address, cryptoAmount } = o.payment_details as { address: string; cryptoAmount: string };
    assert.equal(cryptoAmount, '0.01234567', JSON.stringify(o));
    const { page, seen } = await open(o.id);
    assert.equal(await page.getByTestId('address').textContent(), address);
    assert.match((await page.getByTestId('crypto-amount').textContent()) ?? '', /^0\.01234567\s+BTC$/);
    assert.match((await page.getByTestId('amount').textContent()) ?? '', /^0\.01234567\s+BTC$/);
    const png = PNG.sync.read(await page.getByTestId('qr').screenshot());
    const code = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
    assert.equal(code?.data, `bitcoin:${address}?amount=${cryptoAmount}`);
    const left = seconds((await page.locator('#countdown').textContent()) ?? '');
    assert.ok(left > 3500 && left <= 3600, `crypto countdown ${left}s for a 3600 s order`);
    assert.equal(await page.getByTestId('file').count(), 0, 'crypto offers a receipt upload');
    await shots(page, 'crypto');
    assert.deepEqual(seen.errors, [], 'browser errors');
    await page.close();
  });
});
