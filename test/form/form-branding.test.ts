import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import type { LightMyRequestResponse } from 'fastify';
import { CHAIN_WATCHER_TOKEN, startTestApp, type TestApp } from '../helpers/app.js';
import { multipartBody, pdfFile } from '../helpers/files.js';
import {
  addRequisite,
  admin,
  adminRaw,
  createMerchant,
  createOrder,
  type TestMerchant,
} from '../helpers/merchant-client.js';

// The payment form over HTTP (docs/decisions.md section 31): who is asking for money (display name, logo, return URL: merchant settings and
// the order's own return_url, validated like callback URLs), the remembered language, the localized
// error pages, and the partial payment in the status the page follows.
const refused = (res: LightMyRequestResponse, field: string) => {
  assert.equal(res.statusCode, 400, res.body);
  assert.equal(res.json().message, 'VALIDATION_ERROR', res.body);
  assert.ok(JSON.stringify(res.json().details).includes(field), res.body);
};

describe('payment form: branding, return URL, language, error pages (docs/decisions.md section 31)', () => {
  let t: TestApp;
  let merchant: TestMerchant;

  before(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app, {
      payment_types: ['card_pdf', 'usdt_trc20'],
      display_name: 'Shop & Co <b>',
      return_url: 'https://shop.example/back',
    });
    await addRequisite(t.app, { kind: 'card' });
    // The 'abandon ... about' TRON key other files set too (the same key on a shared database).
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(`${'abandon '.repeat(11)}about`));
    await admin(t.app, 'PUT', '/admin/crypto/xpubs', {
      network: 'tron',
      xpub: root.derive("m/44'/195'/0'").publicExtendedKey,
    });
  });
  after(() => t.close());

  it('admin settings: display name, https logo and public return URL are validated; empty clears', async () => {
    const url = `/admin/merchants/${merchant.id}`;
    for (const [body, field] of [
      [{ display_name: 'x'.repeat(81) }, 'display_name'],
      [{ display_name: 'bad\u0007bell' }, 'display_name'],
      [{ logo_url: 'http://cdn.shop.example/l.png' }, 'logo_url'],
      [{ logo_url: 'data:image/png;base64,AAAA' }, 'logo_url'],
      [{ return_url: 'javascript:alert(1)' }, 'return_url'],
      [{ return_url: 'http://10.1.2.3/back' }, 'return_url'],
      [{ return_url: 'https://169.254.169.254/latest' }, 'return_url'],
    ] as const) {
      refused(await adminRaw(t.app, 'PATCH', url, body), field);
    }
    const set = await admin<Record<string, unknown>>(t.app, 'PATCH', url, {
      logo_url: 'https://cdn.shop.example/logo.png',
    });
    assert.deepEqual(
      [set.display_name, set.logo_url, set.return_url],
      ['Shop & Co <b>', 'https://cdn.shop.example/logo.png', 'https://shop.example/back'],
    );
    const cleared = await admin<Record<string, unknown>>(t.app, 'PATCH', url, { logo_url: '' });
    assert.equal(cleared.logo_url, null);
  });

  it("createOrder return_url: validated like callback URLs; the order's wins over the merchant's", async () => {
    for (const bad of ['javascript:alert(1)', 'ftp://shop.example/x', 'http://127.0.0.2/x', 'not a url']) {
      refused(await createOrder(t.app, merchant, { type: 'card_pdf', return_url: bad }), 'return_url');
    }
    const own = (
      await createOrder(t.app, merchant, { type: 'card_pdf', return_url: 'https://shop.example/o/1' })
    ).json();
    const plain = (await createOrder(t.app, merchant, { type: 'card_pdf' })).json();
    for (const id of [own.id, plain.id]) await admin(t.app, 'POST', `/admin/orders/${id}/confirm`, {});
    const page = (await t.app.inject({ url: `/form/${own.id}` })).body;
    assert.match(
      page,
      /href="https:\/\/shop\.example\/o\/1"[^>]*data-testid="return">Вернуться в Shop &amp; Co &lt;b&gt;</,
    );
    const other = (await t.app.inject({ url: `/form/${plain.id}?lang=en` })).body;
    assert.match(
      other,
      /href="https:\/\/shop\.example\/back"[^>]*data-testid="return">Back to Shop &amp; Co &lt;b&gt;</,
    );
  });

  it('?lang= is remembered in a cookie for the form only; the cookie then beats Accept-Language', async () => {
    const id = (await createOrder(t.app, merchant, { type: 'card_pdf' })).json().id;
    const chosen = await t.app.inject({ url: `/form/${id}?lang=en` });
    const cookie = String(chosen.headers['set-cookie']);
    assert.match(cookie, /^form_lang=en; Max-Age=31536000; Path=\/form; HttpOnly; SameSite=Lax$/);
    const again = await t.app.inject({
      url: `/form/${id}`,
      headers: { cookie: 'form_lang=en', 'accept-language': 'ru' },
    });
    assert.ok(again.body.includes('<html lang="en">'), again.body.slice(0, 200));
    assert.equal(again.headers['set-cookie'], undefined, 'no cookie without a choice');
    const bogus = await t.app.inject({ url: `/form/${id}`, headers: { cookie: 'form_lang=de' } });
    assert.ok(bogus.body.includes('<html lang="ru">'));
  });

  it('errors are pages in the payer language: 404 for any unknown address; JSON for the status API', async () => {
    for (const url of ['/form/nope', '/form/x/y/z', '/form/lux00000000-0000-0000-0000-000000000000']) {
      const res = await t.app.inject({ url, headers: { 'accept-language': 'en-US' } });
      assert.equal(res.statusCode, 404, url);
      assert.match(res.headers['content-type'] as string, /^text\/html/);
      assert.match(res.body, /<h1>Payment page not found<\/h1>/, url);
      assert.ok(!res.body.includes('"success"'), 'no JSON envelope');
    }
    const status = await t.app.inject({ url: '/form/nope/status' });
    assert.equal(status.statusCode, 404);
    assert.equal(status.json().message, 'NOT_FOUND');
    const { body, contentType } = multipartBody(
      {},
      { field: 'receipt', filename: 'r.pdf', contentType: 'application/pdf', data: pdfFile() },
    );
    const post = await t.app.inject({
      method: 'POST',
      url: '/form/nope/appeal',
      headers: { accept: 'text/html', 'content-type': contentType },
      payload: body,
    });
    assert.equal(post.statusCode, 404);
    assert.match(post.body, /<h1>Страница оплаты не найдена<\/h1>/);
  });

  it('the page CSP allows the logo origin only when the merchant has one', async () => {
    const m = await createMerchant(t.app, {
      payment_types: ['card_pdf'],
      logo_url: 'https://img.shop.example/l.png',
    });
    const id = (await createOrder(t.app, m, { type: 'card_pdf' })).json().id;
    const csp = String((await t.app.inject({ url: `/form/${id}` })).headers['content-security-policy']);
    assert.match(csp, /img-src 'self' data: https:\/\/img\.shop\.example;/);
    const plain = (await createOrder(t.app, merchant, { type: 'card_pdf' })).json().id;
    const strict = String((await t.app.inject({ url: `/form/${plain}` })).headers['content-security-policy']);
    assert.match(strict, /img-src 'self' data:;/);
  });

  it('status: a partial crypto payment shows as receivedAmount in the asset decimals', async () => {
    await admin(t.app, 'PUT', '/admin/rates', { base: 'USDT', quote: 'RUB', rate: '90' });
    const res = await createOrder(t.app, merchant, { type: 'usdt_trc20', amount: 50, currency: 'USDT' });
    assert.equal(res.statusCode, 200, res.body);
    const order = res.json();
    const paid = await t.app.inject({
      method: 'POST',
      url: '/chain/notifications',
      headers: { authorization: `Bearer ${CHAIN_WATCHER_TOKEN}`, 'content-type': 'application/json' },
      payload: {
        network: 'TRC20',
        address: order.payment_details.address,
        tx_hash: randomBytes(32).toString('hex'),
        amount: '12.5',
        confirmations: 50,
      },
    });
    assert.equal(paid.statusCode, 200, paid.body);
    const status = (await t.app.inject({ url: `/form/${order.id}/status` })).json();
    assert.deepEqual(
      [status.state, status.cryptoAmount, status.receivedAmount],
      ['pending', '50.000000', '12.500000'],
    );
  });
});
