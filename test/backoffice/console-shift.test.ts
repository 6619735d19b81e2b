import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { parse } from 'csv-parse/sync';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CHAIN_WATCHER_TOKEN, startTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium, pageTestSkip, seriousViolations } from '../helpers/browser.js';
import { consoleLogin, nextCode, operatorSecrets } from '../helpers/console.js';
import { multipartBody, pngFile } from '../helpers/files.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  merchantRequest,
  type TestMerchant,
} from '../helpers/merchant-client.js';
import { gatewaySms, pairDevice } from '../helpers/phones.js';

// A shift in Chromium. Log in with TOTP, the dashboard's figures
// against the data made here (and live over SSE), search by each kind of key, a receipt judged from
// the queue with the expected amount beside it, a payout taken and sent with a proof, a destructive
// action cancelled at the confirmation and then done, one token revoked while the other works, the
// CSV parsed back; screenshots at 360 and 1280 px and axe-core. Embedded database only: the figures
// are exact when no other file shares the database.
const ARTIFACTS = '.test-artifacts/console';
const PASSWORD = 'a long enough password 23';
const rub = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
type Order = { id: string; payment_id: string; payment_details: Record<string, string> };

describe('console shift in Chromium (docs/decisions.md section 32)', {
  skip: pageTestSkip,
}, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let merchant: TestMerchant;
  const users = {
    admin: `admin-${randomUUID().slice(0, 6)}`,
    payouts: `payouts-${randomUUID().slice(0, 6)}`,
  };
  const data: Record<string, Order> = {};
  const txHash = randomBytes(32).toString('hex');
  const smsText = `Пополнение, счет RUB. ${rub(43_211)} ₽. Анна К. Доступно ${rub(90_000)} ₽`;

  const order = async (fields: Record<string, unknown>): Promise<Order> => {
    const res = await createOrder(t.app, merchant, fields);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const uploadReceipt = async (id: string) => {
    const { body, contentType } = multipartBody(
      {},
      { field: 'receipt', filename: 'r.png', contentType: 'image/png', data: pngFile() },
    );
    const res = await t.app.inject({
      method: 'POST',
      url: `/form/${id}/receipt`,
      headers: { 'content-type': contentType },
      payload: body,
    });
    assert.equal(res.statusCode, 200, res.body);
  };
  /** Signed-in browser contexts, one per role: a TOTP code is good once, so each role signs in once. */
  const contexts = new Map<string, BrowserContext>();
  async function login(role: keyof typeof users): Promise<Page> {
    const known = contexts.get(role);
    if (known) {
      const page = await known.newPage();
      await page.goto(`${base}/backoffice`);
      return page;
    }
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${base}/backoffice/login`);
    await page.fill('input[name=username]', users[role]);
    await page.fill('input[name=password]', PASSWORD);
    await page.getByTestId('code').fill(await nextCode(operatorSecrets.get(users[role]) ?? ''));
    await page.click('button[type=submit]');
    await page.waitForURL(/\/backoffice\/(dashboard|payouts)/);
    contexts.set(role, context);
    return page;
  }
  /**
   * Both widths and (for a page reached by a link) both languages: no page-wide horizontal scroll, no
   * serious axe violation, a screenshot each. The language links keep the page's query.
   */
  async function shots(page: Page, name: string, languages = true) {
    for (const lang of languages ? (['en', 'ru'] as const) : (['en'] as const)) {
      if (languages) {
        await page.getByTestId(`lang-${lang}`).click();
        await page.waitForURL(new RegExp(`lang=${lang}`));
        assert.equal(await page.locator('html').getAttribute('lang'), lang, name);
      }
      for (const width of [1280, 360]) {
        await page.setViewportSize({ width, height: 900 });
        const [scroll, client] = (await page.evaluate(
          '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
        )) as [number, number];
        assert.ok(scroll <= client, `${name} ${lang} at ${width}: ${scroll}px in ${client}px`);
        assert.deepEqual(await seriousViolations(page), [], `${name} ${lang} at ${width}`);
        await page.screenshot({ path: `${ARTIFACTS}/${name}-${lang}-${width}.png`, fullPage: true });
      }
    }
    if (languages) await page.getByTestId('lang-en').click();
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    merchant = await createMerchant(t.app, { payment_types: ['card_pdf', 'tbank', 'btc', 'sim'] });
    await addRequisite(t.app, { kind: 'card', address: '2200123456789010' });
    const tbank = await addRequisite(t.app, { kind: 'card', bank: 'T-Bank', address: '2200701234564821' });
    const device = await pairDevice(t.app, [tbank.id]);
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(`${'abandon '.repeat(11)}about`));
    await admin(t.app, 'PUT', '/admin/crypto/xpubs', {
      network: 'btc',
      xpub: root.derive("m/84'/0'/0'").publicExtendedKey,
    });
    await admin(t.app, 'PUT', '/admin/rates', { base: 'BTC', quote: 'RUB', rate: '3000000' });
    for (const role of ['admin', 'payouts'] as const) {
      await admin(t.app, 'POST', '/admin/operators', { username: users[role], role, password: PASSWORD });
      await consoleLogin(t.app, users[role], PASSWORD); // enrols two-factor
    }
    data.receipt = await order({
      type: 'card_pdf',
      amount: 12_345,
      client_id: 'client-777',
      order_id: `shop-${randomUUID().slice(0, 6)}`,
    });
    await uploadReceipt(data.receipt.id);
    data.btc = await order({ type: 'btc', amount: 0.002, currency: 'BTC' });
    const paid = await t.app.inject({
      method: 'POST',
      url: '/chain/notifications',
      headers: { authorization: `Bearer ${CHAIN_WATCHER_TOKEN}`, 'content-type': 'application/json' },
      payload: {
        network: 'BTC',
        address: data.btc.payment_details.address,
        tx_hash: txHash,
        amount: '0.002',
        confirmations: 6,
      },
    });
    assert.equal(paid.statusCode, 200, paid.body);
    data.sms = await order({ type: 'tbank', amount: 43_211 });
    const sms = await gatewaySms(
      t.app,
      device,
      { sender: 'T-Bank', text: smsText, receivedAt: new Date() },
      Date.now(),
    );
    assert.equal(sms.json().data.status, 'confirmed', sms.body);
    await admin(t.app, 'POST', `/admin/merchants/${merchant.id}/ledger-adjustments`, {
      currency: 'RUB',
      amount: 50_000,
      reason: 'float',
    });
    const payout = await merchantRequest(t.app, merchant, '/merchant/createOrder', {
      body: {
        merchant_id: merchant.id,
        direction: 'PAYOUT',
        type: 'sim',
        amount: 1000,
        order_id: `po-${randomUUID().slice(0, 6)}`,
        payout_details: { holderAccount: '79007654321', holderName: 'Petr P.', methodName: 'Sberbank' },
      },
    });
    assert.equal(payout.statusCode, 200, payout.body);
    data.payout = payout.json();
    data.cancel = await order({ type: 'card_pdf', amount: 777 });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('logs in with TOTP onto the dashboard; its figures match the data and follow new work live', async () => {
    const page = await login('admin');
    assert.match(page.url(), /\/backoffice\/dashboard$/);
    const count = (key: string) => page.locator(`[data-figure="${key}.count"]`).first().textContent();
    assert.equal(await count('receipts'), '1');
    assert.equal(await count('payouts'), '1');
    assert.equal(await page.getByTestId('today-created').textContent(), '4', 'PAYIN orders created today');
    assert.equal(
      await page.getByTestId('today-paid').textContent(),
      '2',
      'the BTC and the SMS-confirmed order',
    );
    assert.equal(
      await page.getByTestId('queue-receipts').getAttribute('href'),
      '/backoffice/receipts?status=under_review',
    );
    await page.waitForFunction(() => document.body.dataset.live === 'yes', undefined, { timeout: 10_000 });
    const second = await order({ type: 'card_pdf', amount: 2_222 });
    await uploadReceipt(second.id);
    await page.waitForFunction(
      () => document.querySelector('[data-figure="receipts.count"]')?.textContent === '2',
      undefined,
      { timeout: 15_000 },
    );
    await shots(page, 'dashboard');
    await page.close();
  });

  it('finds an order by each kind of key; the CSV of the search parses back', async () => {
    const page = await login('admin');
    const keys: Array<[string, string, Order]> = [
      ['internal id', data.receipt?.id ?? '', data.receipt as Order],
      ['merchant order id', data.receipt?.payment_id ?? '', data.receipt as Order],
      ['amount', '12345', data.receipt as Order],
      ['card as shown', '2200 7012 3456 4821', data.sms as Order],
      ['client id', 'client-777', data.receipt as Order],
      ['tx hash', `0x${txHash.toUpperCase()}`, data.btc as Order],
      ['bank message', 'Анна К. Доступно', data.sms as Order],
    ];
    for (const [what, q, expected] of keys) {
      await page.goto(`${base}/backoffice/orders?q=${encodeURIComponent(q)}`);
      const links = await page
        .locator('[data-testid=orders] tbody a')
        .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      assert.ok(links.includes(`/backoffice/orders/${expected.id}`), `${what}: ${links.join(' ')}`);
    }
    await page.goto(`${base}/backoffice/orders`);
    await page.getByTestId('search').fill('client-777');
    await page.getByTestId('search').press('Enter');
    await page.waitForURL(/q=client-777/);
    await shots(page, 'orders-search');
    // At phone width each order is a card: its state and amount stay on screen, not off to the right.
    await page.setViewportSize({ width: 360, height: 900 });
    for (const id of ['order-state', 'order-amount']) {
      const box = await page.getByTestId(id).first().boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= 360, `${id} visible at 360 px`);
    }
    assert.equal(await page.locator('select[name=type]').count(), 1, 'the payment type is a choice');
    await page.setViewportSize({ width: 1280, height: 900 });
    const csvHref = await page.getByTestId('csv').getAttribute('href');
    const csv = await page.request.get(`${base}${csvHref}`);
    assert.equal(csv.status(), 200);
    assert.match(csv.headers()['content-type'] ?? '', /^text\/csv/);
    const rows = parse(await csv.text(), { columns: true }) as Array<Record<string, string>>;
    assert.deepEqual(
      rows.map((r) => [r.id, r.client_id, r.amount]),
      [[data.receipt?.id, 'client-777', '12345']],
    );
    await page.close();
  });

  it('judges a receipt from the queue beside the expected amount (keyboard A accepts)', async () => {
    const page = await login('admin');
    await page.goto(`${base}/backoffice/receipts`);
    const item = page.getByTestId('receipt').filter({ hasText: data.receipt?.payment_id ?? '' });
    assert.equal(await item.getByTestId('expected-amount').textContent(), '12345 RUB');
    await shots(page, 'receipts');
    await page.goto(`${base}/backoffice/receipts`);
    const first = await page.getByTestId('receipt').first().textContent();
    assert.ok(first?.includes(data.receipt?.payment_id ?? ''), 'the oldest first');
    await page.keyboard.press('a');
    await page.getByTestId('flash').waitFor();
    const status = (await t.app.inject({ url: `/form/${data.receipt?.id}/status` })).json();
    assert.equal(status.receiptStatus, 'accepted', 'the A key accepted the current receipt');
    await page.close();
  });

  it('a payout is taken and sent with a proof; the account shows grouped', async () => {
    const page = await login('payouts');
    await page.goto(`${base}/backoffice/payouts`);
    const row = page.getByTestId('payout-row').filter({ hasText: data.payout?.payment_id ?? '' });
    assert.equal(await row.getByTestId('account').textContent(), '+7 (900) 765-43-21');
    await row.getByTestId('take').click();
    await page.getByTestId('flash').waitFor();
    await shots(page, 'payouts');
    const taken = page.getByTestId('payout-row').filter({ hasText: data.payout?.payment_id ?? '' });
    await taken
      .getByTestId('proof')
      .setInputFiles({ name: 'proof.png', mimeType: 'image/png', buffer: pngFile() });
    await taken.getByTestId('mark-sent').click();
    await page.getByTestId('flash').waitFor();
    const done = await admin<{ status: string }>(t.app, 'GET', `/admin/orders/${data.payout?.id}`);
    assert.equal(done.status, 'success');
    await page.close();
  });

  it('a cancel is stopped at its confirmation, then done; one token revoked while the other works', async () => {
    const page = await login('admin');
    await page.goto(`${base}/backoffice/orders/${data.cancel?.id}`);
    await shots(page, 'order');
    await page.fill('form[action$="/cancel"] input[name=reason]', 'payer asked');
    await page.click('form[action$="/cancel"] button');
    assert.match((await page.getByTestId('confirm-changes').textContent()) ?? '', /payer asked/);
    await shots(page, 'confirm', false);
    await page.getByTestId('confirm-cancel').click();
    assert.equal(
      (await admin<{ status: string }>(t.app, 'GET', `/admin/orders/${data.cancel?.id}`)).status,
      'pending',
    );
    await page.fill('form[action$="/cancel"] input[name=reason]', 'payer asked');
    await page.click('form[action$="/cancel"] button');
    await page.getByTestId('confirm-yes').click();
    await page.getByTestId('flash').waitFor();
    assert.equal(
      (await admin<{ status: string }>(t.app, 'GET', `/admin/orders/${data.cancel?.id}`)).status,
      'error',
    );
    await page.goto(`${base}/backoffice/orders?q=${data.cancel?.id}&lang=ru`);
    assert.equal(
      await page.locator('[data-testid=orders] tbody .badge').first().textContent(),
      `отменён: operator:${users.admin}: payer asked`,
      'the list names who cancelled it',
    );
    await page.goto(`${base}/backoffice/orders?lang=en`);

    await page.goto(`${base}/backoffice/operators/${users.payouts}`);
    const tokens: Record<string, string> = {};
    for (const name of ['keep', 'drop']) {
      await page.fill('form[action$="/tokens"] input[name=name]', name);
      await page.click('form[action$="/tokens"] button');
      tokens[name] = (await page.getByTestId('new-token').textContent()) ?? '';
    }
    await page.getByTestId('revoke-drop').click();
    await page.getByTestId('flash').waitFor();
    await shots(page, 'operator');
    const call = (token: string) =>
      t.app.inject({ url: '/admin/payouts', headers: { authorization: `Bearer ${token}` } });
    assert.equal((await call(tokens.drop ?? '')).statusCode, 401);
    assert.equal((await call(tokens.keep ?? '')).statusCode, 200);
    await page.goto(`${base}/backoffice/account`);
    await shots(page, 'account');
    await page.close();
  });

  it('the set-up pages read in both languages; merchant limits are fields, saved with a message', async () => {
    const page = await login('admin');
    await page.goto(`${base}/backoffice/merchants/${merchant.id}?lang=ru`);
    const settings = page.getByTestId('merchant-settings');
    await settings.locator('input[name=limit_min_card_pdf]').fill('500');
    await settings.locator('input[name=limit_max_card_pdf]').fill('100');
    await settings.locator('button').click();
    assert.match(
      (await page.getByTestId('flash-error').textContent()) ?? '',
      /^Неверные данные\. limits\.card_pdf: min > max/,
      'the error in the page language, naming the field',
    );
    await settings.locator('input[name=limit_max_card_pdf]').fill('150000');
    await settings.locator('input[name=pt_sbp_pdf]').check();
    await settings.locator('button').click();
    assert.equal(await page.getByTestId('flash').textContent(), 'Мерчант сохранён.');
    const saved = await admin<{ limits: Record<string, unknown>; payment_types: string[] }>(
      t.app,
      'GET',
      `/admin/merchants/${merchant.id}`,
    );
    assert.deepEqual(saved.limits.card_pdf, { min: '500', max: '150000' });
    assert.ok(saved.payment_types.includes('sbp_pdf'));
    await page.goto(`${base}/backoffice/merchants/${merchant.id}?lang=en`);
    await shots(page, 'merchant');
    const pages: Array<[string, string]> = [
      ['merchants', 'Merchants'],
      ['requisites', 'Requisites pool'],
      ['rates', 'Exchange rates'],
      ['crypto', 'Crypto deposit addresses'],
      ['chains', 'Chain watchers'],
      ['devices', "Holders' phones"],
      ['bank-rules', 'Learned rules'],
      ['audit', 'Audit log'],
    ];
    for (const [path, heading] of pages) {
      await page.goto(`${base}/backoffice/${path}`);
      assert.equal(await page.locator('h1').textContent(), heading, path);
      await shots(page, path);
    }
    await page.goto(`${base}/backoffice/requisites?lang=ru`);
    assert.equal(await page.locator('h1').textContent(), 'Пул реквизитов');
    await page.close();
  });
});
