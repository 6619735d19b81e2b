import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { after, before, beforeEach, describe, it } from 'node:test';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import type { LightMyRequestResponse } from 'fastify';
import { PNG } from 'pngjs';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import { multipartBody, padTo, pdfFile, pngFile } from '../helpers/files.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  merchantRequest,
  type TestMerchant,
  uniqueAmount,
} from '../helpers/merchant-client.js';

// The payment form over HTTP (docs/api.md "Payment form"): headers, language, payer-only data, 404s, live status,
// receipt upload and rate limits. No browser here.
const jsQR = createRequire(import.meta.url)('jsqr') as typeof import('jsqr').default;
const MB = 1024 * 1024;
/** The digits of the page's prominent amount (`4 087 710 ₽` -> `4087710`). */
const amountIn = (html: string) => /data-testid="amount">([^<]*)</.exec(html)?.[1]?.replace(/\D/g, '');
const ABANDON = `${'abandon '.repeat(11)}about`;
const root = HDKey.fromMasterSeed(mnemonicToSeedSync(ABANDON));
type Res = LightMyRequestResponse;
type Order = { id: string; payment_details: Record<string, string>; amountAfterFee: number };

const ctx = (res: Res) => `${res.statusCode} ${JSON.stringify(res.headers)}\n${res.body.slice(0, 3000)}`;

function assertFormHeaders(res: Res, frameAncestors = "'none'") {
  const csp = String(res.headers['content-security-policy'] ?? '');
  assert.ok(csp.includes("script-src 'self'"), `CSP without script-src 'self': ${ctx(res)}`);
  assert.ok(!csp.includes('unsafe-inline'), `CSP allows inline: ${csp}`);
  assert.ok(!csp.includes('unsafe-eval'), `CSP allows eval: ${csp}`);
  const fa = csp
    .split(';')
    .map((d) => d.trim())
    .find((d) => d.startsWith('frame-ancestors'));
  assert.equal(fa, `frame-ancestors ${frameAncestors}`, csp);
  assert.equal(res.headers['referrer-policy'], 'no-referrer', ctx(res));
  assert.equal(res.headers['x-content-type-options'], 'nosniff', ctx(res));
}

/** Every <script> either loads a file (src=) or is the type="application/json" data block. */
function assertNoInlineScript(html: string) {
  const tags = html.match(/<script\b[^>]*>/gi) ?? [];
  const inline = tags.filter((tag) => !/\ssrc=/i.test(tag) && !/type="application\/json"/i.test(tag));
  assert.deepEqual(inline, [], html);
  for (const m of html.matchAll(/<script\b[^>]*type="application\/json"[^>]*>([\s\S]*?)<\/script>/gi)) {
    assert.doesNotThrow(() => JSON.parse(m[1] ?? ''), `data block is not JSON: ${m[1]}`);
    assert.ok(!(m[1] ?? '').includes('<'), `raw < inside the data block: ${m[1]}`);
  }
  assert.ok(!/\son[a-z]+=/i.test(html), `inline event handler in ${html}`);
}

function assertNotFoundPage(res: Res, what: string) {
  assert.equal(res.statusCode, 404, `${what}: ${ctx(res)}`);
  assert.match(String(res.headers['content-type']), /^text\/html/, `${what}: ${ctx(res)}`);
  assert.ok(res.body.includes('<!doctype html>'), `${what}: ${ctx(res)}`);
  assertFormHeaders(res);
  assertNoInlineScript(res.body);
}

function decodeQr(html: string): string | undefined {
  const src = /<img src="data:image\/png;base64,([^"]+)"[^>]*data-testid="qr"/.exec(html)?.[1];
  assert.ok(src, `no PNG QR image in ${html}`);
  const png = PNG.sync.read(Buffer.from(src, 'base64'));
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

describe('payment form over HTTP', () => {
  const clock = manualClock();
  let t: TestApp;
  let merchant: TestMerchant;
  let short: TestMerchant;

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ url, headers });
  const status = async (id: string) => {
    const res = await get(`/form/${id}/status`);
    assert.equal(res.statusCode, 200, ctx(res));
    assertFormHeaders(res);
    return res.json();
  };
  const order = async (fields: Record<string, unknown>, m = merchant): Promise<Order> => {
    const res = await createOrder(t.app, m, fields);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const upload = (id: string, file?: { filename: string; contentType: string; data: Buffer }) => {
    const { body, contentType } = multipartBody({ note: 'x' }, file && { field: 'receipt', ...file });
    return t.app.inject({
      method: 'POST',
      url: `/form/${id}/receipt`,
      headers: { 'content-type': contentType },
      payload: body,
    });
  };
  const refused = (res: Res, httpStatus: number, code: string) => {
    assert.equal(res.statusCode, httpStatus, ctx(res));
    assert.equal(res.json().message, code, ctx(res));
    assertFormHeaders(res);
  };
  const sweep = async () => {
    for (let i = 0; i < 20 && (await t.services.orders.expireDue()) > 0; i++);
  };

  before(async () => {
    t = await startTestApp({ clock });
    const types = ['card_pdf', 'sbp_pdf', 'qr_smart', 'sim', 'btc', 'eth'];
    merchant = await createMerchant(t.app, { payment_types: types, payin_fee_percent: 3 });
    short = await createMerchant(t.app, { payment_types: types, order_ttl_seconds: 10 });
    await addRequisite(t.app, { kind: 'card', holder_name: 'Pyotr Sidorov' });
    await addRequisite(t.app, { kind: 'phone' });
    await addRequisite(t.app, { kind: 'qr' });
    await admin(t.app, 'PUT', '/admin/crypto/xpubs', {
      network: 'btc',
      xpub: root.derive("m/84'/0'/0'").publicExtendedKey,
    });
    await admin(t.app, 'PUT', '/admin/crypto/xpubs', {
      network: 'evm',
      xpub: root.derive("m/44'/60'/0'").publicExtendedKey,
    });
  });
  after(() => t.close());
  // The expiry sweep is global: keep the manual clock at real time except inside one test.
  beforeEach(() => clock.set(Date.now()));

  it('security headers on every form route, errors and assets included', async () => {
    const o = await order({ type: 'card_pdf' });
    const responses: Array<[string, Res]> = [
      ['page', await get(`/form/${o.id}`)],
      ['page en', await get(`/form/${o.id}?lang=en`)],
      ['404 page', await get(`/form/lux${randomUUID()}`)],
      ['status', await get(`/form/${o.id}/status`)],
      ['status 404', await get(`/form/nope/status`)],
      ['receipt error', await upload(o.id)],
      ['css', await get('/form/assets/form.css')],
      ['js', await get('/form/assets/form.js')],
      ['asset 404', await get('/form/assets/other.js')],
    ];
    for (const [name, res] of responses) {
      assert.ok(res.statusCode < 500, `${name}: ${ctx(res)}`);
      assertFormHeaders(res);
    }
    const [, js] = responses[7] as [string, Res];
    assert.equal(js.statusCode, 200, ctx(js));
    assert.match(String(js.headers['content-type']), /^text\/javascript/, ctx(js));
  });

  it('frame-ancestors comes from config formFrameAncestors', async () => {
    const framed = await startTestApp({ config: { formFrameAncestors: 'https://shop.example' } });
    try {
      const o = (await createOrder(framed.app, merchant, { type: 'sbp_pdf' })).json();
      for (const url of [`/form/${o.id}`, `/form/${o.id}/status`, `/form/lux${randomUUID()}`]) {
        const res = await framed.app.inject({ url });
        assert.ok(res.statusCode === 200 || res.statusCode === 404, ctx(res));
        assertFormHeaders(res, 'https://shop.example');
      }
    } finally {
      await framed.close();
    }
  });

  it('no inline script: only src= scripts and the JSON data block (fiat, qr, crypto, 404)', async () => {
    const ids = [
      (await order({ type: 'card_pdf' })).id,
      (await order({ type: 'qr_smart' })).id,
      (await order({ type: 'btc', amount: 0.001, currency: 'BTC' })).id,
    ];
    for (const id of ids) {
      const res = await get(`/form/${id}`);
      assert.equal(res.statusCode, 200, ctx(res));
      assert.match(res.body, /<script src="\/form\/assets\/form\.js"/, res.body);
      assert.match(res.body, /<script type="application\/json" id="texts">/, res.body);
      assertNoInlineScript(res.body);
    }
    assertNoInlineScript((await get(`/form/lux${randomUUID()}`)).body);
  });

  it('the page shows only what the payer needs: no merchant, client, comment, fees, callback', async () => {
    const secret = randomUUID().slice(0, 8);
    const fields = {
      type: 'card_pdf',
      client_id: `client-${secret}`,
      comment: `comment-${secret}`,
      success_callback_url: `http://127.0.0.1:9/callback-${secret}`,
      order_id: `ord-${secret}`,
    };
    const o = await order(fields);
    const info = (await merchantRequest(t.app, merchant, `/merchant/order/${o.id}`)).json();
    assert.equal(info.client_id, fields.client_id, JSON.stringify(info)); // the values are stored
    for (const url of [`/form/${o.id}`, `/form/${o.id}?lang=en`, `/form/${o.id}/status`]) {
      const res = await get(url);
      assert.equal(res.statusCode, 200, ctx(res));
      for (const bad of [
        merchant.id,
        fields.client_id,
        fields.comment,
        fields.success_callback_url,
        `callback-${secret}`,
        fields.order_id,
        'merchantFeePercent',
        'client_id',
        String(o.amountAfterFee),
      ]) {
        assert.ok(!res.body.includes(bad), `${url} contains ${bad}: ${res.body}`);
      }
      // The random id may hold the letters `fee`.
      assert.doesNotMatch(res.body.replaceAll(o.id, ''), /fee/i, `${url} mentions fees: ${res.body}`);
    }
    const page = (await get(`/form/${o.id}`)).body;
    assert.ok(page.includes(o.payment_details.amount as string), page);
    assert.ok(page.includes('Pyotr Sidorov') || page.includes('Ivan Petrov'), page);
    assert.deepEqual(Object.keys(await status(o.id)).sort(), [
      'cryptoAmount',
      'receiptStatus',
      'receivedAmount',
      'remainingSeconds',
      'state',
      'status',
    ]);
  });

  it('Russian by default; English with ?lang=en or Accept-Language: en-US; ?lang wins', async () => {
    const o = await order({ type: 'sbp_pdf' });
    const cases: Array<[string, Record<string, string>, 'ru' | 'en']> = [
      [`/form/${o.id}`, {}, 'ru'],
      [`/form/${o.id}`, { 'accept-language': 'de-DE,de;q=0.9' }, 'ru'],
      [`/form/${o.id}?lang=en`, {}, 'en'],
      [`/form/${o.id}`, { 'accept-language': 'en-US,en;q=0.9' }, 'en'],
      [`/form/${o.id}?lang=ru`, { 'accept-language': 'en-US' }, 'ru'],
      [`/form/lux${randomUUID()}?lang=en`, {}, 'en'],
    ];
    for (const [url, headers, lang] of cases) {
      const res = await get(url, headers);
      const what = `${url} ${JSON.stringify(headers)}`;
      assert.ok(res.body.includes(`<html lang="${lang}">`), `${what} not ${lang}: ${res.body}`);
      const ru = /Оплата заказа|Страница оплаты не найдена/.test(res.body);
      const en = /<title>(Payment|Payment page not found)<\/title>/.test(res.body);
      assert.deepEqual([ru, en], lang === 'ru' ? [true, false] : [false, true], `${what}: ${res.body}`);
      if (lang === 'ru' && res.statusCode === 200) assert.ok(res.body.includes('Я оплатил'), what);
      if (lang === 'en' && res.statusCode === 200) assert.ok(res.body.includes('I have paid'));
    }
  });

  it('unknown, malformed, <script> and PAYOUT ids -> the 404 HTML page (and 404 on status, receipt)', async () => {
    await admin(t.app, 'POST', `/admin/merchants/${merchant.id}/ledger-adjustments`, {
      currency: 'RUB',
      amount: 10_000,
      reason: 'form test payout',
    });
    const payout = await merchantRequest(t.app, merchant, '/merchant/createOrder', {
      body: {
        merchant_id: merchant.id,
        amount: 1000,
        type: 'sim',
        direction: 'PAYOUT',
        payout_details: { holderAccount: '79001234567', holderName: 'Ivan Petrov', methodName: 'Sberbank' },
      },
    });
    assert.equal(payout.statusCode, 200, payout.body);
    const ids = [
      `lux${randomUUID()}`,
      'lux123',
      'abc',
      randomUUID(),
      encodeURIComponent('<script>alert(1)</script>'),
      payout.json().id as string,
    ];
    for (const id of ids) {
      const res = await get(`/form/${id}`);
      assertNotFoundPage(res, id);
      assert.ok(res.body.includes('Страница оплаты не найдена'), res.body);
      assert.ok(!res.body.includes('<script>alert'), `id reflected: ${res.body}`);
      const st = await get(`/form/${id}/status`);
      assert.deepEqual([st.statusCode, st.json().message], [404, 'NOT_FOUND'], ctx(st));
      const up = await upload(id, { filename: 'r.pdf', contentType: 'application/pdf', data: pdfFile() });
      assert.deepEqual([up.statusCode, up.json().message], [404, 'NOT_FOUND'], ctx(up));
    }
  });

  it('an over-long id is malformed too -> the 404 HTML page', async () => {
    assertNotFoundPage(await get(`/form/lux${'a'.repeat(120)}`), 'long id');
  });

  it('status JSON: pending, success (admin confirm), failed (admin cancel)', async () => {
    const [p, s, f] = [
      await order({ type: 'card_pdf' }),
      await order({ type: 'card_pdf' }),
      await order({ type: 'sim' }),
    ];
    const pending = {
      status: 'pending',
      state: 'pending',
      receiptStatus: null,
      cryptoAmount: null,
      receivedAmount: null,
    };
    assert.deepEqual(await status(p.id), { ...pending, remainingSeconds: 900 });
    clock.advance(61_000);
    assert.deepEqual(await status(p.id), { ...pending, remainingSeconds: 839 });
    await admin(t.app, 'POST', `/admin/orders/${s.id}/confirm`, {});
    await admin(t.app, 'POST', `/admin/orders/${f.id}/cancel`, { reason: 'payer gave up' });
    const end = { receiptStatus: null, cryptoAmount: null, receivedAmount: null, remainingSeconds: 0 };
    assert.deepEqual(await status(s.id), { ...end, status: 'success', state: 'success' });
    assert.deepEqual(await status(f.id), { ...end, status: 'error', state: 'failed' });
  });

  it('status JSON: expired (manual clock past the TTL, then the sweep)', async () => {
    const o = await order({ type: 'card_pdf' }, short);
    assert.equal((await status(o.id)).remainingSeconds, 10);
    clock.advance(11_000);
    const end = { receiptStatus: null, cryptoAmount: null, receivedAmount: null, remainingSeconds: 0 };
    // Past the deadline the payer sees it expired at once, before the sweep runs.
    assert.deepEqual(await status(o.id), { ...end, status: 'pending', state: 'expired' });
    refused(
      await upload(o.id, { filename: 'r.png', contentType: 'image/png', data: pngFile() }),
      409,
      'ORDER_STATE_CONFLICT',
    );
    await sweep();
    assert.deepEqual(await status(o.id), { ...end, status: 'error', state: 'expired' });
  });

  it('final orders (success, failed, expired) render their end state without the requisites', async () => {
    const [s, f, e, q] = [
      await order({ type: 'card_pdf' }),
      await order({ type: 'sbp_pdf' }),
      await order({ type: 'card_pdf' }, short),
      await order({ type: 'qr_smart' }),
    ];
    await admin(t.app, 'POST', `/admin/orders/${s.id}/confirm`, {});
    await admin(t.app, 'POST', `/admin/orders/${f.id}/cancel`, { reason: 'test' });
    await admin(t.app, 'POST', `/admin/orders/${q.id}/cancel`, { reason: 'test' });
    clock.advance(11_000);
    await sweep();
    const cases: Array<[Order, string]> = [
      [s, 'success'],
      [f, 'failed'],
      [e, 'expired'],
      [q, 'failed'],
    ];
    for (const [o, state] of cases) {
      const res = await get(`/form/${o.id}`);
      assert.equal(res.statusCode, 200, ctx(res));
      assert.ok(res.body.includes(`data-state="${state}"`), `${state}: ${res.body}`);
      const address = o.payment_details.address as string;
      for (const bad of [address, address.replace(/(\d{4})(?=\d)/g, '$1 '), address.slice(-7)]) {
        assert.ok(!res.body.includes(bad), `${state} page shows the requisite ${bad}: ${res.body}`);
      }
      for (const bad of ['data-testid="address"', 'data-testid="bank"', 'data-testid="qr"', 'data:image']) {
        assert.ok(!res.body.includes(bad), `${state} page has ${bad}: ${res.body}`);
      }
    }
  });

  it('the "pay exactly" note shows only when the amount was shifted', async () => {
    const amount = uniqueAmount();
    const first = await order({ type: 'card_pdf', amount, amountUp: 1, amountDown: 1 });
    const second = await order({ type: 'card_pdf', amount, amountUp: 1, amountDown: 1 });
    const payable = Number(second.payment_details.amount);
    assert.equal(first.payment_details.amount, String(amount), JSON.stringify(first));
    assert.ok(payable === amount + 1 || payable === amount - 1, JSON.stringify(second));
    const one = (await get(`/form/${first.id}`)).body;
    assert.ok(!one.includes('data-testid="shifted"'), `unshifted order has the note: ${one}`);
    assert.equal(amountIn(one), String(amount), one);
    const two = (await get(`/form/${second.id}`)).body;
    const note = /<p[^>]*data-testid="shifted"[^>]*>([\s\S]*?)<\/p>/.exec(two)?.[1] ?? '';
    assert.ok(note.replace(/\D/g, '').endsWith(String(payable)), `note without the payable amount: ${two}`);
    assert.ok(note.includes(`${new Intl.NumberFormat('ru-RU').format(payable)}\u00a0₽`), note);
    assert.ok(note.includes('Сумма изменена'), note);
    assert.equal(amountIn(two), String(payable), two);
    const en = (await get(`/form/${second.id}?lang=en`)).body;
    assert.ok(en.includes('The amount was changed by a few roubles'), en);
  });

  it('receipt upload: errors first, then PDF -> under review, a second one -> MODERATION_IN_PROGRESS', async () => {
    const o = await order({ type: 'card_pdf' });
    const html = Buffer.from('<!doctype html><html><body>not a receipt</body></html>');
    refused(await upload(o.id), 400, 'RECEIPT_REQUIRED');
    const json = await t.app.inject({
      method: 'POST',
      url: `/form/${o.id}/receipt`,
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    refused(json, 400, 'RECEIPT_REQUIRED');
    const big = padTo(pdfFile(), 5 * MB + 1);
    refused(
      await upload(o.id, { filename: 'r.pdf', contentType: 'application/pdf', data: big }),
      400,
      'RECEIPT_TOO_LARGE',
    );
    refused(
      await upload(o.id, { filename: 'r.pdf', contentType: 'application/pdf', data: html }),
      400,
      'RECEIPT_UNSUPPORTED_FORMAT',
    );
    refused(
      await upload(o.id, { filename: 'r.pdf', contentType: 'application/pdf', data: pngFile() }),
      400,
      'RECEIPT_CONTENT_MISMATCH',
    );
    assert.equal((await status(o.id)).receiptStatus, null, 'a refused upload left a receipt');
    const ok = await upload(o.id, {
      filename: 'receipt.pdf',
      contentType: 'application/pdf',
      data: pdfFile(),
    });
    assert.equal(ok.statusCode, 200, ctx(ok));
    assert.deepEqual(ok.json(), { success: true, receiptStatus: 'under_review' });
    assertFormHeaders(ok);
    assert.equal((await status(o.id)).receiptStatus, 'under_review');
    assert.ok((await get(`/form/${o.id}`)).body.includes('data-receipt="under_review"'));
    const info = (await merchantRequest(t.app, merchant, `/merchant/order/${o.id}`)).json();
    assert.equal(info.receiptStatus, 'under_review', JSON.stringify(info));
    refused(
      await upload(o.id, { filename: 'r.png', contentType: 'image/png', data: pngFile() }),
      409,
      'MODERATION_IN_PROGRESS',
    );
  });

  it('receipt upload: PNG on qr_smart and sbp_pdf; sim -> 404; a finished order -> 409', async () => {
    for (const type of ['qr_smart', 'sbp_pdf']) {
      const o = await order({ type });
      const res = await upload(o.id, { filename: 'shot.png', contentType: 'image/png', data: pngFile() });
      assert.equal(res.statusCode, 200, `${type}: ${ctx(res)}`);
      assert.deepEqual(res.json(), { success: true, receiptStatus: 'under_review' }, type);
    }
    const sim = await order({ type: 'sim' });
    refused(
      await upload(sim.id, { filename: 'r.pdf', contentType: 'application/pdf', data: pdfFile() }),
      404,
      'NOT_FOUND',
    );
    const done = await order({ type: 'card_pdf' });
    await admin(t.app, 'POST', `/admin/orders/${done.id}/confirm`, {});
    refused(
      await upload(done.id, { filename: 'r.pdf', contentType: 'application/pdf', data: pdfFile() }),
      409,
      'ORDER_STATE_CONFLICT',
    );
    const cancelled = await order({ type: 'sbp_pdf' });
    await admin(t.app, 'POST', `/admin/orders/${cancelled.id}/cancel`, { reason: 'test' });
    refused(
      await upload(cancelled.id, { filename: 'r.pdf', contentType: 'application/pdf', data: pdfFile() }),
      409,
      'ORDER_STATE_CONFLICT',
    );
    assert.equal((await status(cancelled.id)).receiptStatus, null);
  });

  it('crypto page: address, cryptoAmount, coin, network and a QR of the payment URI', async () => {
    const btc = await order({ type: 'btc', amount: 0.01234567, currency: 'BTC' });
    const eth = await order({ type: 'eth', amount: 0.5, currency: 'ETH' });
    // The URI names the chain the operator's watcher follows: mainnet unless a test on a shared
    // database configured a local node.
    const chains = await admin<Array<{ chain: string; chain_id: number | null }>>(
      t.app,
      'GET',
      '/admin/chains',
    );
    const chainId = chains.find((c) => c.chain === 'ethereum')?.chain_id ?? 1;
    const cases: Array<[Order, string, string, string, string]> = [
      [btc, 'BTC', 'Bitcoin', '0.01234567', `bitcoin:${btc.payment_details.address}?amount=0.01234567`],
      [
        eth,
        'ETH',
        'Ethereum (ERC-20)',
        '0.50000000',
        `ethereum:${eth.payment_details.address}@${chainId}?value=500000000000000000`,
      ],
    ];
    for (const [o, coin, network, cryptoAmount, uri] of cases) {
      assert.equal(o.payment_details.cryptoAmount, cryptoAmount, JSON.stringify(o));
      const res = await get(`/form/${o.id}?lang=en`);
      assert.equal(res.statusCode, 200, ctx(res));
      const body = res.body;
      assert.ok(body.includes(`data-testid="address">${o.payment_details.address}<`), body);
      assert.ok(body.includes(`data-testid="crypto-amount">${cryptoAmount} ${coin}<`), body);
      assert.ok(body.includes(`data-testid="amount">${cryptoAmount} ${coin}<`), body);
      assert.ok(body.includes(`data-testid="network">${network}<`), body);
      assert.ok(body.includes(`Send only ${coin} on the ${network} network.`), body);
      assert.ok(!body.includes('data-testid="file"'), `crypto order offers a receipt upload: ${body}`);
      assert.equal(decodeQr(body), uri);
      assert.deepEqual(await status(o.id), {
        status: 'pending',
        state: 'pending',
        remainingSeconds: 3600,
        receiptStatus: null,
        cryptoAmount,
        receivedAmount: null,
      });
    }
  });
});

describe('payment form rate limits (config rateLimits)', () => {
  let t: TestApp;
  let id: string;
  before(async () => {
    t = await startTestApp({ config: { rateLimits: true } });
    const m = await createMerchant(t.app, { payment_types: ['card_pdf'] });
    await addRequisite(t.app, { kind: 'card' });
    const res = await createOrder(t.app, m, { type: 'card_pdf' });
    assert.equal(res.statusCode, 200, res.body);
    id = res.json().id;
  });
  after(() => t.close());

  const hit = (url: string, ip: string, method: 'GET' | 'POST' = 'GET') =>
    t.app.inject({ method, url, remoteAddress: ip });
  const codes = async (n: number, url: string, ip: string, method: 'GET' | 'POST' = 'GET') => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await hit(url, ip, method)).statusCode);
    return out;
  };

  it('page: 30 per minute per IP, the 31st -> 429; status and other IPs are not affected', async () => {
    const ip = '127.0.0.31';
    assert.deepEqual(await codes(30, `/form/${id}`, ip), Array(30).fill(200));
    const over = await hit(`/form/${id}`, ip);
    assert.equal(over.statusCode, 429, ctx(over));
    assert.ok(Number(over.headers['retry-after']) >= 1, ctx(over));
    assertFormHeaders(over);
    assert.equal((await hit(`/form/${id}/status`, ip)).statusCode, 200, 'status shares the page limit');
    assert.equal((await hit(`/form/${id}`, '127.0.0.32')).statusCode, 200, 'another IP is limited');
  });

  it('status: 60 per minute per IP, separate from the page limit', async () => {
    const ip = '127.0.0.61';
    assert.deepEqual(await codes(60, `/form/${id}/status`, ip), Array(60).fill(200));
    assert.equal((await hit(`/form/${id}/status`, ip)).statusCode, 429);
    assert.equal((await hit(`/form/${id}`, ip)).statusCode, 200, 'page shares the status limit');
  });

  it('receipt: 10 per minute per IP', async () => {
    const ip = '127.0.0.10';
    assert.deepEqual(await codes(10, `/form/${id}/receipt`, ip, 'POST'), Array(10).fill(400));
    assert.equal((await hit(`/form/${id}/receipt`, ip, 'POST')).statusCode, 429);
  });
});
