import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type ConsoleSession, consoleLogin, consolePost } from '../helpers/console.js';
import { addRequisite, admin, createMerchant, createOrder } from '../helpers/merchant-client.js';

// docs/decisions.md section 32: the messages after an action come from the catalogue (a link cannot
// make the console say words of its own), merchant settings are fields (limits per payment type,
// payment types as checkboxes), and an ended order names who ended it.
const PASSWORD = 'a long enough password 23';

describe('console messages, merchant settings fields and who ended an order (docs/decisions.md section 32)', () => {
  let t: TestApp;
  let s: ConsoleSession;
  const page = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie: s.cookie } });
  const flash = (body: string) => /data-testid="flash">([^<]*)</.exec(body)?.[1] ?? null;
  const flashError = (body: string) => /data-testid="flash-error">([^<]*)</.exec(body)?.[1] ?? null;

  before(async () => {
    t = await startTestApp();
    const username = `admin-${randomUUID().slice(0, 8)}`;
    await admin(t.app, 'POST', '/admin/operators', { username, role: 'admin', password: PASSWORD });
    s = await consoleLogin(t.app, username, PASSWORD);
  });
  after(() => t.close());

  it('a message is a catalogue key with its holes, in the operator language; other words show nothing', async () => {
    const ru = await page('/backoffice/crypto?lang=ru&msg=xpubSaved&msg_address=bc1qxyz&msg_next=1');
    assert.equal(flash(ru.body), 'Ключ сохранён: индекс 0 — bc1qxyz, следующий заказ получит индекс 1.');
    const en = await page('/backoffice/crypto?lang=en&msg=xpubSaved&msg_address=bc1qxyz&msg_next=1');
    assert.equal(flash(en.body), 'Key saved: index 0 is bc1qxyz, the next order gets index 1.');
    for (const msg of ['Call support at +7 900 000-00-00', 'constructor', '__proto__', 'xpubSaved<script>']) {
      const res = await page(`/backoffice/crypto?msg=${encodeURIComponent(msg)}`);
      assert.equal(res.statusCode, 200);
      assert.equal(flash(res.body), null, msg);
    }
    const escaped = await page('/backoffice/crypto?msg=xpubSaved&msg_address=%3Cb%3Ex%3C%2Fb%3E');
    assert.match(escaped.body, /index 0 is &lt;b&gt;x&lt;\/b&gt;/);
    const error = await page('/backoffice/crypto?lang=ru&error=ALREADY_EXISTS');
    assert.equal(flashError(error.body), 'Уже существует. Объект с таким id или именем уже есть.');
    const odd = await page('/backoffice/crypto?error=not%20a%20code');
    assert.equal(flashError(odd.body), null);
    const langLinks = [...en.body.matchAll(/href="(\?[^"]*lang=ru[^"]*)"/g)].map((m) => m[1]);
    assert.ok(langLinks.length > 0 && langLinks.every((l) => !/msg/.test(l ?? '')), String(langLinks));
  });

  it('an action redirects with its message key; a refusal with the code and the field', async () => {
    const ok = await consolePost(t.app, s, '/backoffice/rates', { base: 'USDT', quote: 'RUB', rate: '95.5' });
    assert.equal(ok.headers.location, '/backoffice/rates?msg=rateSaved');
    const bad = await consolePost(t.app, s, '/backoffice/rates', { base: 'USDT', quote: 'RUB', rate: 'x' });
    const to = new URL(String(bad.headers.location), 'http://console');
    assert.equal(to.searchParams.get('error'), 'VALIDATION_ERROR');
    assert.equal(to.searchParams.get('error_field'), 'rate');
    const shown = await page(`${to.pathname}${to.search}&lang=ru`);
    assert.match(flashError(shown.body) ?? '', /^Неверные данные\. rate: /);
  });

  it('merchant settings are fields: payment types as checkboxes, limits as min and max per type', async () => {
    const merchantId = `m_${randomUUID().slice(0, 8)}`;
    await admin(t.app, 'POST', '/admin/merchants', {
      merchant_id: merchantId,
      payment_types: ['card', 'sim'],
    });
    const form = await page(`/backoffice/merchants/${merchantId}`);
    assert.match(form.body, /name="limit_min_card"/);
    assert.match(form.body, /name="limit_max_payout"/);
    assert.doesNotMatch(form.body, /Limits \(JSON\)/);
    const fields = {
      payment_types_shown: '1',
      pt_card: 'on',
      pt_sbp_pdf: 'on',
      limits_shown: '1',
      limit_min_card: '100',
      limit_max_card: '',
      limit_max_sbp_pdf: '90000.50',
      limit_min_payout: '',
      allow_usdt: ['off', 'on'],
    };
    const saved = await consolePost(t.app, s, `/backoffice/merchants/${merchantId}`, fields);
    assert.equal(saved.headers.location, `/backoffice/merchants/${merchantId}?msg=merchantSaved`);
    const m = await admin<Record<string, unknown>>(t.app, 'GET', `/admin/merchants/${merchantId}`);
    assert.deepEqual(m.payment_types, ['card', 'sbp_pdf']);
    assert.deepEqual(m.limits, { card: { min: '100' }, sbp_pdf: { max: '90000.5' } });
    assert.equal(m.allow_usdt, true, 'the checked box (sent last) wins over its hidden "off"');
    const off = await consolePost(t.app, s, `/backoffice/merchants/${merchantId}`, { allow_usdt: 'off' });
    assert.match(String(off.headers.location), /msg=merchantSaved/);
    assert.equal(
      (await admin<{ allow_usdt: boolean }>(t.app, 'GET', `/admin/merchants/${merchantId}`)).allow_usdt,
      false,
    );
    const refused = await consolePost(t.app, s, `/backoffice/merchants/${merchantId}`, {
      limits_shown: '1',
      limit_min_card: 'ten',
    });
    assert.equal(refused.statusCode, 400, 'drawn again, not redirected: the typed values stay');
    assert.match(flashError(refused.body) ?? '', /^Invalid input\. limits\.card\.min: /);
    assert.match(refused.body, /name="limit_min_card" value="ten"/);
    const kept = await admin<{ limits: unknown }>(t.app, 'GET', `/admin/merchants/${merchantId}`);
    assert.deepEqual(kept.limits, { card: { min: '100' }, sbp_pdf: { max: '90000.5' } }, 'nothing saved');
  });

  it('a repeated form field or query name is one value (the last), never a 500', async () => {
    const merchantId = `m_${randomUUID().slice(0, 8)}`;
    await admin(t.app, 'POST', '/admin/merchants', { merchant_id: merchantId });
    const res = await consolePost(t.app, s, `/backoffice/merchants/${merchantId}`, {
      payin_fee_percent: ['1.5', '2.5'],
      display_name: ['A', 'B'],
    });
    assert.equal(res.statusCode, 303, res.body);
    const m = await admin<Record<string, unknown>>(t.app, 'GET', `/admin/merchants/${merchantId}`);
    assert.deepEqual([m.payin_fee_percent, m.display_name], ['2.5', 'B']);
    const created = await consolePost(t.app, s, '/backoffice/merchants', {
      merchant_id: [`m_${randomUUID().slice(0, 8)}`, `m_${randomUUID().slice(0, 8)}`],
    });
    assert.equal(created.statusCode, 200, 'created with the last id sent');
    for (const url of [
      '/backoffice/orders?status=pending&status=error&q=a&q=b&page=1&page=2',
      '/backoffice/audit?actor=a&actor=b',
      '/portal/login?lang=ru&lang=en',
    ]) {
      const res = await page(url);
      assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 200)}`);
    }
  });

  it('a list names who ended an order: the operator who cancelled it, not a bare error', async () => {
    const merchant = await createMerchant(t.app, { payment_types: ['card_pdf'] });
    await addRequisite(t.app, { kind: 'card', address: `2200${String(Date.now()).slice(-12)}` });
    const created = await createOrder(t.app, merchant, { type: 'card_pdf', amount: 1500 });
    assert.equal(created.statusCode, 200, created.body);
    const id: string = created.json().id;
    await admin(t.app, 'POST', `/admin/orders/${id}/cancel`, { reason: 'payer asked' });
    const list = await admin<{ orders: Array<{ id: string; ended_by: string | null }> }>(
      t.app,
      'GET',
      `/admin/orders?merchant_id=${merchant.id}`,
    );
    const ended = list.orders.find((o) => o.id === id);
    assert.ok(
      ended?.ended_by?.startsWith('operator:') || ended?.ended_by === 'admin',
      String(ended?.ended_by),
    );
    const en = await page(`/backoffice/orders?merchant_id=${merchant.id}&lang=en`);
    assert.match(en.body, new RegExp(`cancelled by ${ended?.ended_by}: payer asked`));
    const pending = await createOrder(t.app, merchant, { type: 'card_pdf', amount: 1600 });
    const again = await admin<{ orders: Array<{ id: string; ended_by: string | null }> }>(
      t.app,
      'GET',
      `/admin/orders?merchant_id=${merchant.id}`,
    );
    assert.equal(again.orders.find((o) => o.id === pending.json().id)?.ended_by, null, 'pending: nobody');
  });
});
