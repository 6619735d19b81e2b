import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { CHAIN_WATCHER_TOKEN, manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium, pageTestSkip, seriousViolations } from '../helpers/browser.js';
import { multipartBody, pdfFile, pngFile } from '../helpers/files.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  type TestMerchant,
} from '../helpers/merchant-client.js';
import { tonAddress } from '../helpers/ton-pool.js';

// Every state of the payment form in Chromium, in Russian and
// English at 360 px and 1280 px, kept as screenshots; QR codes decoded back; axe-core asserted; no
// horizontal scroll; the page without JavaScript; its weight. Page tests run on the embedded database
// only (CI time; the form reads one order, nothing here depends on PostgreSQL's behaviour).
const jsQR = createRequire(import.meta.url)('jsqr') as typeof import('jsqr').default;
const ARTIFACTS = '.test-artifacts/form/states';
const ROOT = HDKey.fromMasterSeed(mnemonicToSeedSync(`${'abandon '.repeat(11)}about`));
const XPUBS: Record<string, string> = {
  btc: ROOT.derive("m/84'/0'/0'").publicExtendedKey,
  ltc: ROOT.derive("m/84'/2'/0'").publicExtendedKey,
  evm: ROOT.derive("m/44'/60'/0'").publicExtendedKey,
  tron: ROOT.derive("m/44'/195'/0'").publicExtendedKey,
};
const SHOP = 'https://shop.example';
const NSPK = 'https://qr.nspk.ru/AS1000670LSS7DN18SJQDNP4B05KLJL2?type=01&bank=100000000111';
const LANGS = ['ru', 'en'] as const;
const WIDTHS = [360, 1280] as const;
type Order = { id: string; payment_details: Record<string, string> };

describe('payment form pages in Chromium: every state, ru and en, 360 and 1280 px (docs/decisions.md section 31)', {
  skip: pageTestSkip,
}, () => {
  let t: TestApp;
  let limited: TestApp;
  let base: string;
  let limitedBase: string;
  let browser: Browser;
  let plain: TestMerchant;
  let branded: TestMerchant;
  let short: TestMerchant;
  const clock = manualClock();
  /** name -> [app base, path, expected status, what to do before each visit] for the state matrix. */
  const states = new Map<string, [() => string, string, number, (() => Promise<void>)?]>();

  const order = async (fields: Record<string, unknown>, m = plain): Promise<Order> => {
    const res = await createOrder(t.app, m, fields);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const upload = (id: string, to: 'receipt' | 'appeal') => {
    const file = { field: 'receipt', filename: 'r.png', contentType: 'image/png', data: pngFile() };
    const { body, contentType } = multipartBody({}, file);
    return t.app.inject({
      method: 'POST',
      url: `/form/${id}/${to}`,
      headers: { 'content-type': contentType },
      payload: body,
    });
  };
  /** A fresh context (the merchant's logo fulfilled here: nothing leaves the machine) and its page. */
  const open = async (
    path: string,
    opts: { lang?: 'ru' | 'en'; width?: number; js?: boolean; at?: string } = {},
  ): Promise<{ page: Page; context: BrowserContext; status: number | undefined }> => {
    const context = await browser.newContext({
      viewport: { width: opts.width ?? 360, height: 800 },
      locale: opts.lang === 'en' ? 'en-GB' : 'ru-RU',
      javaScriptEnabled: opts.js ?? true,
    });
    await context.route(`${SHOP}/**`, (route) =>
      route.fulfill({ contentType: 'image/png', body: pngFile() }),
    );
    const page = await context.newPage();
    const sep = path.includes('?') ? '&' : '?';
    const res = await page.goto(`${opts.at ?? base}${path}${opts.lang ? `${sep}lang=${opts.lang}` : ''}`);
    return { page, context, status: res?.status() };
  };
  const qrOf = async (page: Page) => {
    const png = PNG.sync.read(await page.getByTestId('qr').screenshot());
    return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
  };
  const text = async (page: Page, testId: string) =>
    ((await page.getByTestId(testId).textContent()) ?? '').replace(/\s+/g, ' ').trim();

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestApp({ clock, config: { publicBaseUrl: 'http://127.0.0.1' } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    limited = await startTestApp({ config: { rateLimits: true } });
    await limited.app.listen({ host: '127.0.0.1', port: 0 });
    limitedBase = `http://127.0.0.1:${(limited.app.server.address() as AddressInfo).port}`;
    const types = ['card_pdf', 'sbp_pdf', 'qr_smart', 'btc', 'ltc', 'eth', 'usdt_erc20', 'usdt_bep20'];
    const payment_types = [...types, 'usdt_trc20', 'ton', 'usdt_ton'];
    plain = await createMerchant(t.app, { payment_types });
    branded = await createMerchant(t.app, {
      payment_types,
      display_name: 'Кофейня «Зерно»',
      logo_url: `${SHOP}/logo.png`,
      return_url: `${SHOP}/thanks`,
    });
    short = await createMerchant(t.app, {
      payment_types,
      order_ttl_seconds: 10,
      display_name: 'Кофейня «Зерно»',
      return_url: `${SHOP}/thanks`,
    });
    await addRequisite(t.app, { kind: 'card' });
    await addRequisite(t.app, { kind: 'phone' });
    await addRequisite(t.app, { kind: 'qr', address: NSPK });
    for (const [network, xpub] of Object.entries(XPUBS))
      await admin(t.app, 'PUT', '/admin/crypto/xpubs', { network, xpub });
    await admin(t.app, 'POST', '/admin/crypto/pool-addresses', {
      network: 'ton',
      addresses: [tonAddress(), tonAddress()],
    });
    await admin(t.app, 'PUT', '/admin/rates', { base: 'USDT', quote: 'RUB', rate: '90' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await limited?.close();
    await t?.close();
  });

  it('fiat: card grouped in fours, phone as +7, the SBP QR opens the bank app on a phone and shows on desktop', async () => {
    const card = await order({ type: 'card_pdf', amount: 12345 });
    const phone = await order({ type: 'sbp_pdf', amount: 2500 });
    const qr = await order({ type: 'qr_smart', amount: 1500 });
    states.set('pending-card', [() => base, `/form/${card.id}`, 200]);
    states.set('pending-phone', [() => base, `/form/${phone.id}`, 200]);
    states.set('pending-qr', [() => base, `/form/${qr.id}`, 200]);

    let { page, context } = await open(`/form/${card.id}`);
    assert.equal(await text(page, 'amount'), '12 345 ₽');
    assert.match(await text(page, 'address'), /^2200 \d{4} \d{4} \d{4}$/);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await page.getByTestId('copy-amount').click();
    await page.getByTestId('copy-amount').getByText('Скопировано').waitFor({ timeout: 2000 });
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), '12345');
    await context.close();

    ({ page, context } = await open(`/form/${phone.id}`, { lang: 'en' }));
    assert.equal(await text(page, 'amount'), '₽2,500');
    assert.match(await text(page, 'address'), /^\+7 \(\d{3}\) \d{3}-\d{2}-\d{2}$/);
    await context.close();

    for (const width of WIDTHS) {
      ({ page, context } = await open(`/form/${qr.id}`, { width }));
      const button = page.getByTestId('bank-app');
      assert.equal(await button.isVisible(), width === 360, `bank app button at ${width}`);
      assert.equal(await button.getAttribute('href'), NSPK);
      assert.equal(await qrOf(page), NSPK);
      await context.close();
    }
  });

  it('crypto: the wallet QR of each network family, amounts unwrapped, the network warning, RUB and rate', async () => {
    const cases: Array<[string, Record<string, unknown>, string, (a: string, amount: string) => string]> = [
      [
        'btc',
        { type: 'btc', amount: 0.01234567, currency: 'BTC' },
        'Bitcoin',
        (a, x) => `bitcoin:${a}?amount=${x}`,
      ],
      ['ltc', { type: 'ltc', amount: 1.5, currency: 'LTC' }, 'Litecoin', (a) => `litecoin:${a}?amount=1.5`],
      [
        'eth',
        { type: 'eth', amount: 0.5, currency: 'ETH' },
        'Ethereum (ERC-20)',
        (a) => `ethereum:${a}@1?value=500000000000000000`,
      ],
      [
        'usdt-erc20',
        { type: 'usdt_erc20', amount: 9000 },
        'Ethereum (ERC-20)',
        (a) =>
          `ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=${a}&uint256=100000000`,
      ],
      [
        'usdt-bep20',
        { type: 'usdt_bep20', amount: 12.5, currency: 'USDT' },
        'BNB Smart Chain (BEP-20)',
        (a) =>
          `ethereum:0x55d398326f99059fF775485246999027B3197955@56/transfer?address=${a}&uint256=12500000000000000000`,
      ],
      ['usdt-trc20', { type: 'usdt_trc20', amount: 100, currency: 'USDT' }, 'TRON (TRC-20)', (a) => a],
      [
        'ton',
        { type: 'ton', amount: 2, currency: 'TON' },
        'TON',
        (a) => `ton://transfer/${a}?amount=2000000000`,
      ],
      [
        'usdt-ton',
        { type: 'usdt_ton', amount: 7, currency: 'USDT' },
        'TON',
        (a) => `ton://transfer/${a}?jetton=EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs&amount=7000000`,
      ],
    ];
    for (const [name, fields, network, uri] of cases) {
      const o = await order(fields);
      const { address, cryptoAmount } = o.payment_details as { address: string; cryptoAmount: string };
      states.set(`pending-${name}`, [() => base, `/form/${o.id}`, 200]);
      const { page, context } = await open(`/form/${o.id}`, { lang: 'en' });
      assert.equal(await qrOf(page), uri(address, cryptoAmount), name);
      assert.equal(await text(page, 'network'), network);
      assert.match(
        await text(page, 'network-warning'),
        new RegExp(`^Send only \\w+ on the ${network.replace(/[()]/g, '\\$&')} network`),
      );
      const amount = page.getByTestId('crypto-amount');
      const [oneLine] = (await amount.evaluate((el) => [
        el.getClientRects().length === 1 && getComputedStyle(el).whiteSpace === 'nowrap',
      ])) as [boolean];
      assert.ok(oneLine, `${name}: the amount may wrap`);
      // The API's cryptoAmount has 8 decimals; the page shows the asset's own (USDT 6).
      const usdt = name.startsWith('usdt');
      const shown = usdt ? cryptoAmount.replace(/(\.\d{6})00$/, '$1') : cryptoAmount;
      assert.equal(await text(page, 'crypto-amount'), `${shown} ${usdt ? 'USDT' : name.toUpperCase()}`);
      if (name === 'usdt-erc20') {
        assert.equal(cryptoAmount, '100.00000000');
        assert.equal(await text(page, 'fiat'), 'Order amount: ₽9,000 · Rate: 1 USDT = ₽90');
      } else assert.equal(await page.getByTestId('fiat').count(), 0, name);
      await context.close();
    }
  });

  it('crypto partial payment: received so far and still to send', async () => {
    const o = await order({ type: 'usdt_trc20', amount: 100, currency: 'USDT' });
    const res = await t.app.inject({
      method: 'POST',
      url: '/chain/notifications',
      headers: { authorization: `Bearer ${CHAIN_WATCHER_TOKEN}`, 'content-type': 'application/json' },
      payload: {
        network: 'TRC20',
        address: o.payment_details.address,
        tx_hash: 'a'.repeat(64),
        amount: '40',
        confirmations: 50,
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    states.set('pending-partial', [() => base, `/form/${o.id}`, 200]);
    const { page, context } = await open(`/form/${o.id}`);
    assert.equal(await page.getByTestId('received').innerText(), 'Уже получено\n40.000000 USDT');
    assert.equal(await text(page, 'still-to-send'), '60.000000 USDT');
    await context.close();
  });

  it('waiting: "I have paid" leads to the check with the receipt; without JavaScript the link and a refresh do it', async () => {
    const o = await order({ type: 'card_pdf' });
    const { page, context } = await open(`/form/${o.id}`, { js: false });
    assert.equal(await page.getByTestId('address').isVisible(), true, 'requisites without JavaScript');
    await page.getByTestId('i-paid').click();
    await page.waitForURL(/step=waiting/);
    assert.equal(await page.getByTestId('waiting').isVisible(), true);
    assert.equal(await page.getByTestId('address').isVisible(), false);
    assert.equal(await page.locator('noscript').count(), 1, 'no refresh without JavaScript');
    await context.close();
    assert.equal((await upload(o.id, 'receipt')).statusCode, 200);
    states.set('waiting', [() => base, `/form/${o.id}`, 200]);
    const again = await open(`/form/${o.id}`, { lang: 'en' });
    assert.equal(await again.page.getByTestId('receipt-status').textContent(), 'Receipt under review');
    assert.equal(
      await again.page.getByTestId('waiting').isVisible(),
      true,
      'a receipt opens the waiting step',
    );
    await again.context.close();
  });

  it('the QR and the requisites read without JavaScript; the page weighs under 100 KB without the QR', async () => {
    const o = await order({ type: 'qr_smart' });
    const { page, context } = await open(`/form/${o.id}`, { js: false });
    assert.equal(await qrOf(page), NSPK);
    assert.equal(await page.getByTestId('bank').isVisible(), true);
    await context.close();
    const weighed = await open(`/form/${o.id}`, { width: 1280 });
    const sizes = await weighed.page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .concat(performance.getEntriesByType('navigation'))
        .map((e) => {
          const r = e as PerformanceResourceTiming;
          return [r.name, r.decodedBodySize] as const;
        }),
    );
    const qr = (await weighed.page.getByTestId('qr').getAttribute('src')) ?? '';
    const total = sizes.reduce((sum, [, size]) => sum + size, 0) - qr.length;
    assert.ok(qr.startsWith('data:image/png'), qr.slice(0, 40));
    assert.ok(sizes.length >= 3, JSON.stringify(sizes));
    assert.ok(total < 100 * 1024, `page weight ${total} bytes: ${JSON.stringify(sizes)}`);
    await weighed.context.close();
  });

  it('success with the return button, the merchant named with its logo; the language switch is remembered', async () => {
    const o = await order({ type: 'card_pdf', return_url: `${SHOP}/order/42` }, branded);
    await admin(t.app, 'POST', `/admin/orders/${o.id}/confirm`, {});
    states.set('success-return', [() => base, `/form/${o.id}`, 200]);
    const { page, context } = await open(`/form/${o.id}`);
    assert.equal(await page.getByTestId('return').getAttribute('href'), `${SHOP}/order/42`);
    assert.equal(await text(page, 'return'), 'Вернуться в Кофейня «Зерно»');
    assert.match(await text(page, 'merchant'), /Кофейня «Зерно»/);
    assert.ok(
      await page.locator('img.logo').evaluate((img) => (img as HTMLImageElement).naturalWidth > 0),
      'logo',
    );
    await page.getByTestId('lang').click();
    await page.waitForURL(/lang=en/);
    assert.equal(await text(page, 'return'), 'Back to Кофейня «Зерно»');
    await page.goto(`${base}/form/${o.id}`);
    assert.equal(await page.locator('html').getAttribute('lang'), 'en', 'the choice is remembered');
    await context.close();
  });

  it('expired: what happened, the late receipt opens an appeal and the page shows its status', async () => {
    const o = await order({ type: 'sbp_pdf' }, short);
    const untouched = await order({ type: 'card_pdf' }, short);
    clock.advance(11_000);
    for (let i = 0; i < 20 && (await t.services.orders.expireDue()) > 0; i++);
    states.set('expired', [() => base, `/form/${untouched.id}`, 200]);
    const { page, context } = await open(`/form/${o.id}`);
    assert.equal(await page.getByText('Время на оплату истекло').isVisible(), true);
    assert.equal(await page.getByTestId('return').getAttribute('href'), `${SHOP}/thanks`);
    await page
      .getByTestId('appeal-file')
      .setInputFiles({ name: 'r.pdf', mimeType: 'application/pdf', buffer: pdfFile() });
    await page.getByTestId('appeal-submit').click();
    await page.getByTestId('appeal-status').waitFor();
    assert.equal(await page.getByTestId('appeal-status').getAttribute('data-status'), 'open');
    assert.match(await text(page, 'appeal-status'), /^Чек получен, платёж проверяется\. Ответ до \d/);
    await context.close();
    states.set('expired-appeal', [() => base, `/form/${o.id}`, 200]);
  });

  it('429 and 404 are pages in the payer language, with Retry-After on the 429', async () => {
    await addRequisite(limited.app, { kind: 'card' });
    const m = await createMerchant(limited.app, { payment_types: ['card_pdf'] });
    const res = await createOrder(limited.app, m, { type: 'card_pdf' });
    assert.equal(res.statusCode, 200, res.body);
    const id: string = res.json().id;
    // The page allows 30 a minute per address: the browser's visits come from the same one.
    const exhaust = async () => {
      for (let i = 0; i < 31; i++)
        await limited.app.inject({ url: `/form/${id}`, remoteAddress: '127.0.0.1' });
    };
    await exhaust();
    const over = await limited.app.inject({ url: `/form/${id}`, remoteAddress: '127.0.0.1' });
    assert.equal(over.statusCode, 429);
    assert.ok(Number(over.headers['retry-after']) > 0, JSON.stringify(over.headers));
    assert.match(over.headers['content-type'] as string, /^text\/html/);
    states.set('429', [() => limitedBase, `/form/${id}`, 429, exhaust]);
    states.set('404', [() => base, '/form/lux00000000-0000-0000-0000-000000000000', 404]);
    states.set('404-path', [() => base, '/form/x/y', 404]);
    for (const lang of LANGS) {
      const { page, context, status } = await open('/form/x/y', { lang });
      assert.equal(status, 404);
      assert.equal(
        await page.locator('h1').textContent(),
        lang === 'ru' ? 'Страница оплаты не найдена' : 'Payment page not found',
      );
      await context.close();
      const busy = await open(`/form/${id}`, { lang, at: limitedBase });
      assert.equal(busy.status, 429);
      assert.equal(
        await busy.page.locator('h1').textContent(),
        lang === 'ru' ? 'Слишком много запросов' : 'Too many requests',
      );
      await busy.context.close();
    }
  });

  it('every state in both languages at 360 and 1280 px: no horizontal scroll, no serious axe violation', async () => {
    assert.ok(states.size >= 18, [...states.keys()].join(' '));
    for (const [name, [at, path, expected, prepare]] of states) {
      for (const lang of LANGS) {
        for (const width of WIDTHS) {
          await prepare?.();
          const { page, context, status } = await open(path, { lang, width, at: at() });
          const what = `${name} ${lang} ${width}px`;
          assert.equal(status, expected, what);
          assert.equal(await page.locator('html').getAttribute('lang'), lang, what);
          const [scroll, client] = (await page.evaluate(
            '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
          )) as [number, number];
          assert.ok(scroll <= client, `${what}: ${scroll}px wide in a ${client}px viewport`);
          assert.deepEqual(await seriousViolations(page), [], what);
          await page.screenshot({ path: `${ARTIFACTS}/${name}-${lang}-${width}.png`, fullPage: true });
          await context.close();
        }
      }
    }
  });
});
