import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { LightMyRequestResponse } from 'fastify';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { cookiesOf, nextCode } from '../helpers/console.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  merchantRequest,
  sign,
  type TestMerchant,
  uniqueAmount,
} from '../helpers/merchant-client.js';
import { startReceiver } from '../helpers/receiver.js';

const PASSWORD = 'a long enough passphrase';

// docs/decisions.md section 28: the merchant portal, each page and export scoped to the signed-in merchant.
describe('merchant portal: invitation, password + TOTP, scoped pages, CSV exports, keys', () => {
  let t: TestApp;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let owner: { cookie: string; csrf: string };
  let accountant: { cookie: string; csrf: string };
  let mine: { id: string; payment_id: string };
  let theirs: { id: string; payment_id: string };

  const get = (url: string, session: { cookie: string }) =>
    t.app.inject({ method: 'GET', url, headers: { cookie: session.cookie } });
  const post = (url: string, session: { cookie: string }, form: Record<string, string>) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(form).toString(),
    });
  const csrfOf = (res: LightMyRequestResponse) => /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1] ?? '';

  async function join(m: TestMerchant, email: string, role: string, withTotp: boolean) {
    const invite = await admin<{ invite_url: string }>(t.app, 'POST', `/admin/merchants/${m.id}/users`, {
      email,
      role,
    });
    const path = new URL(invite.invite_url).pathname;
    const page = await t.app.inject({ method: 'GET', url: path });
    assert.equal(page.statusCode, 200, page.body);
    const secret = /data-testid="totp-secret">([A-Z2-7]+)</.exec(page.body)?.[1] ?? '';
    assert.ok(secret, 'the enrolment shows the secret beside its QR');
    const form: Record<string, string> = { password: PASSWORD };
    if (withTotp) form.totp_code = await nextCode(secret);
    const done = await t.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(form).toString(),
    });
    return { done, secret, path };
  }

  async function login(email: string, code = '') {
    const res = await t.app.inject({
      method: 'POST',
      url: '/portal/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ email, password: PASSWORD, code }).toString(),
    });
    const cookie = cookiesOf(res);
    const page = await t.app.inject({ method: 'GET', url: '/portal/orders', headers: { cookie } });
    return { res, session: { cookie, csrf: csrfOf(page) } };
  }

  before(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app);
    other = await createMerchant(t.app);
    await addRequisite(t.app, { kind: 'phone' });
    receiver = await startReceiver();
    const create = async (m: TestMerchant) => {
      const res = await createOrder(t.app, m, {
        order_id: `pt-${Math.random().toString(36).slice(2)}`,
        amount: uniqueAmount(),
        client_id: 'client-42',
        success_callback_url: `${receiver.url}/hook`,
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as { id: string; payment_id: string };
    };
    mine = await create(merchant);
    theirs = await create(other);
    for (const o of [mine, theirs]) await admin(t.app, 'POST', `/admin/orders/${o.id}/confirm`, {});
    // On a shared PostgreSQL other files' deliveries go first: dispatch until both webhooks arrived.
    const arrived = () =>
      [mine, theirs].every((o) => receiver.received.some((r) => r.body.toString().includes(o.id)));
    for (let i = 0; i < 50 && !arrived(); i++) await t.services.dispatcher.runOnce();
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  it('an owner must enrol TOTP; the link works once; a login needs password and the current code', async () => {
    const email = `owner-${merchant.id}@shop.example`;
    const noTotp = await join(merchant, email, 'owner', false);
    assert.equal(noTotp.done.statusCode, 400, 'two-factor is mandatory for an owner');
    const again = await t.app.inject({ method: 'GET', url: noTotp.path });
    assert.equal(again.statusCode, 200, 'a refused attempt leaves the link usable');
    const secret = /data-testid="totp-secret">([A-Z2-7]+)</.exec(again.body)?.[1] ?? '';
    const ok = await t.app.inject({
      method: 'POST',
      url: noTotp.path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        password: PASSWORD,
        totp_code: await nextCode(secret),
      }).toString(),
    });
    assert.equal(ok.statusCode, 303, ok.body);
    assert.equal((await t.app.inject({ method: 'GET', url: noTotp.path })).statusCode, 404, 'used once');
    const wrong = await login(email, '000000');
    assert.match(String(wrong.res.headers.location), /error=login/);
    const good = await login(email, await nextCode(secret));
    assert.equal(good.res.statusCode, 303);
    assert.match(String(good.res.headers['set-cookie']), /HttpOnly/i);
    assert.match(String(good.res.headers['set-cookie']), /SameSite=Strict/i);
    owner = good.session;
    assert.ok(owner.csrf);
    const acc = await join(merchant, `acc-${merchant.id}@shop.example`, 'accountant', false);
    assert.equal(acc.done.statusCode, 303, 'TOTP optional for an accountant');
    accountant = (await login(`acc-${merchant.id}@shop.example`)).session;
  });

  it('orders: search by order id, internal id, client id; another merchant’s order is 404 everywhere', async () => {
    const list = await get('/portal/orders', owner);
    assert.equal(list.statusCode, 200);
    assert.ok(list.body.includes(mine.payment_id));
    assert.ok(!list.body.includes(theirs.payment_id), 'only own orders');
    for (const q of [mine.payment_id, mine.id, 'client-42']) {
      const found = await get(`/portal/orders?q=${encodeURIComponent(q)}`, owner);
      assert.ok(found.body.includes(mine.payment_id), q);
    }
    const byOther = await get(`/portal/orders?q=${theirs.payment_id}`, owner);
    assert.ok(!byOther.body.includes('data-testid="order-row"'), 'another merchant’s order is not found');
    assert.equal((await get(`/portal/orders/${theirs.id}`, owner)).statusCode, 404);
    const page = await get(`/portal/orders/${mine.id}`, owner);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /data-testid="delivery-status">delivered</);
    assert.equal((await get('/portal/orders', { cookie: '' })).statusCode, 303, 'no session: sign in');
  });

  it('resend: the owner resends an own delivery; another merchant’s is 404; no CSRF 403; accountant 403', async () => {
    const own = (await admin<Array<{ id: string }>>(t.app, 'GET', `/admin/webhooks?order_id=${mine.id}`))[0];
    const foreign = (
      await admin<Array<{ id: string }>>(t.app, 'GET', `/admin/webhooks?order_id=${theirs.id}`)
    )[0];
    assert.ok(own && foreign);
    const res = await post(`/portal/deliveries/${own.id}/resend`, owner, { _csrf: owner.csrf });
    assert.equal(res.statusCode, 303, res.body);
    assert.match(String(res.headers.location), /msg=resent/);
    assert.equal(
      (await post(`/portal/deliveries/${foreign.id}/resend`, owner, { _csrf: owner.csrf })).statusCode,
      404,
    );
    assert.equal((await post(`/portal/deliveries/${own.id}/resend`, owner, { _csrf: 'x' })).statusCode, 403);
    assert.equal(
      (await post(`/portal/deliveries/${own.id}/resend`, accountant, { _csrf: accountant.csrf })).statusCode,
      403,
    );
  });

  it('CSV exports: a header row, ISO times, own rows only; the statement’s running balance', async () => {
    const csv = await get('/portal/orders.csv', owner);
    assert.equal(csv.statusCode, 200);
    assert.match(String(csv.headers['content-type']), /text\/csv/);
    const lines = csv.body.trim().split('\n');
    assert.equal(
      lines[0],
      'id,order_id,merchant_id,created_at,finished_at,direction,type,status,status_reason,currency,amount,requested_amount,amountAfterFee,fee,client_id,comment,test',
    );
    assert.ok(lines.some((l) => l.startsWith(`${mine.id},${mine.payment_id},`)));
    assert.ok(!csv.body.includes(theirs.id));
    assert.match(lines[1] ?? '', /,\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z,/);
    const statement = await get('/portal/statement.csv?currency=RUB&from=2020-01-01', owner);
    const rows = statement.body
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    assert.deepEqual(rows[0], ['id', 'created_at', 'kind', 'order_id', 'memo', 'amount', 'balance']);
    assert.equal(rows[1]?.[2], 'opening_balance');
    assert.ok(
      rows.some((r) => r[3] === mine.id),
      'the credit of the paid order',
    );
    assert.ok(!statement.body.includes(theirs.id));
    let running = Number(rows[1]?.[6]);
    for (const r of rows.slice(2)) {
      running += Number(r[5]);
      assert.equal(
        Number(r[6]).toFixed(2),
        running.toFixed(2),
        'each balance is the previous plus the amount',
      );
    }
    const page = await get('/portal/statement?currency=RUB&from=2020-01-01', owner);
    assert.match(page.body, /data-testid="running-balance"/);
  });

  it('integration: the curl snippet, copied from the page and run with API_KEY, creates the order', async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const host = `127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const page = await t.app.inject({
      method: 'GET',
      url: '/portal/integration',
      headers: { cookie: owner.cookie, host },
    });
    const html = /data-testid="curl">([^<]*)<\/pre>/.exec(page.body)?.[1] ?? '';
    const snippet = html
      .replace(/&#39;/g, "'")
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
    assert.match(snippet, /\nBODY='\{"merchant_id"/, 'BODY starts its own line, after the comment');
    const { stdout } = await promisify(execFile)('bash', ['-c', snippet], {
      env: { PATH: process.env.PATH ?? '', API_KEY: merchant.apiKey },
      timeout: 30_000,
    });
    const answer = JSON.parse(stdout);
    assert.equal(answer.ok, true, stdout);
    assert.equal(answer.payment_details.amount, '1500', 'the body arrived: its amount is the order');
    await new Promise((r) => setTimeout(r, 200));
    const keys = await get('/portal/keys', owner);
    const current =
      /<tr data-testid="key-row">[\s\S]*?badge key-current[\s\S]*?<\/tr>/.exec(keys.body)?.[0] ?? '';
    assert.ok(current, keys.body);
    assert.doesNotMatch(current, /ни разу|never/, 'the key used just now shows when it was last used');
  });

  it('keys: the accountant may not rotate; the owner confirms, sees the key once, the old one lives its grace', async () => {
    assert.equal((await get('/portal/keys', accountant)).statusCode, 403);
    const ask = await post('/portal/keys/rotate', owner, { _csrf: owner.csrf, grace: '600' });
    assert.equal(ask.statusCode, 303);
    assert.match(String(ask.headers.location), /confirm=1/);
    assert.equal(
      (await merchantRequest(t.app, merchant, '/merchant/banks')).statusCode,
      200,
      'nothing rotated yet',
    );
    const done = await post('/portal/keys/rotate', owner, {
      _csrf: owner.csrf,
      grace: '3600',
      confirmed: 'yes',
    });
    assert.equal(done.statusCode, 303, 'post/redirect/get: the key is shown by the page it leads to');
    assert.equal(done.headers.location, '/portal/keys');
    assert.doesNotMatch(done.body, /[0-9a-f]{64}/, 'never in the answer to the POST');
    const flash = cookiesOf(done);
    const shown = await get('/portal/keys', { cookie: `${owner.cookie}; ${flash}` });
    const fresh = /id="new-key"[^>]*value="([0-9a-f]{64})"/.exec(shown.body)?.[1];
    assert.ok(fresh, shown.body);
    assert.match(shown.body, /data-testid="old-key-until"/);
    assert.match(String(shown.headers['set-cookie']), /portal_new_key=;/, 'the sealed key is cleared');
    const again = await get('/portal/keys', owner);
    assert.doesNotMatch(again.body, /id="new-key"/, 'a reload shows it no more');
    assert.match(again.body, /badge key-current/);
    assert.match(again.body, /badge key-grace/);
    assert.equal(
      (await merchantRequest(t.app, merchant, '/merchant/banks')).statusCode,
      200,
      'old key in grace',
    );
    const next = await merchantRequest(t.app, { id: merchant.id, apiKey: fresh }, '/merchant/banks');
    assert.equal(next.statusCode, 200);
    const oldKey = merchant.apiKey;
    merchant.apiKey = fresh;
    // During the grace only the new key signs webhooks (docs/decisions.md section 28).
    const paid = (
      await createOrder(t.app, merchant, {
        amount: uniqueAmount(),
        success_callback_url: `${receiver.url}/hook`,
      })
    ).json() as { id: string };
    await admin(t.app, 'POST', `/admin/orders/${paid.id}/confirm`, {});
    const hookOf = () => receiver.received.find((r) => r.body.toString().includes(paid.id));
    for (let i = 0; i < 50 && !hookOf(); i++) await t.services.dispatcher.runOnce();
    const hook = hookOf();
    assert.ok(hook, 'the webhook arrived');
    assert.equal(hook.headers['x-api-key'], sign(fresh, hook.body));
    assert.notEqual(hook.headers['x-api-key'], sign(oldKey, hook.body));
    const audit = await admin<Array<{ actor: string }>>(
      t.app,
      'GET',
      `/admin/audit?target_id=${merchant.id}&action=merchant.rotate_key`,
    );
    assert.match(audit[0]?.actor ?? '', /^portal:owner-/);
  });

  it('sandbox buttons, events and reports are scoped too: another merchant’s test order or subscription is 404', async () => {
    const theirKey = (
      await admin<{ api_key: string }>(t.app, 'POST', `/admin/merchants/${other.id}/api-keys`, {
        mode: 'test',
      })
    ).api_key;
    const theirTest = (
      await createOrder(t.app, { id: other.id, apiKey: theirKey }, { amount: 1700 })
    ).json() as {
      id: string;
    };
    const drive = await post(`/portal/orders/${theirTest.id}/sandbox`, owner, {
      _csrf: owner.csrf,
      outcome: 'paid',
    });
    assert.equal(drive.statusCode, 404, 'another merchant’s test order');
    const live = await post(`/portal/orders/${mine.id}/sandbox`, owner, {
      _csrf: owner.csrf,
      outcome: 'paid',
    });
    assert.equal(live.statusCode, 404, 'a live order takes no sandbox outcome');
    assert.equal(
      (
        await post(`/portal/orders/${theirTest.id}/sandbox`, accountant, {
          _csrf: accountant.csrf,
          outcome: 'paid',
        })
      ).statusCode,
      403,
    );
    const sub = await merchantRequest(t.app, other, '/merchant/webhooks/subscriptions', {
      body: { url: `${receiver.url}/theirs`, events: ['order.expired'] },
    });
    const subId = (sub.json() as { data: { id: string } }).data.id;
    for (const action of ['delete', 'test'])
      assert.equal(
        (await post(`/portal/events/${subId}/${action}`, owner, { _csrf: owner.csrf })).statusCode,
        404,
      );
    const events = await get('/portal/events', owner);
    assert.equal(events.statusCode, 200);
    assert.ok(!events.body.includes('/theirs'), 'only own subscriptions');
    const reports = await get('/portal/reports.json', owner);
    assert.equal((reports.json() as { data: { merchant_id: string } }).data.merchant_id, merchant.id);
    assert.equal((await get('/portal/reports', owner)).statusCode, 200);
    const testList = await get('/portal/orders?mode=test', owner);
    assert.ok(!testList.body.includes(theirTest.id), 'another merchant’s test orders never listed');
  });

  it('payment page: the owner names the shop and sets logo and return URL; bad values refused in the form', async () => {
    assert.equal((await get('/portal/payment-page', accountant)).statusCode, 403);
    const page = await get('/portal/payment-page', owner);
    assert.equal(page.statusCode, 200, page.body);
    const bad = await post('/portal/payment-page', owner, {
      _csrf: owner.csrf,
      display_name: 'Shop',
      logo_url: 'http://cdn.shop.example/logo.png',
      return_url: 'javascript:alert(1)',
    });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.match(bad.body, /data-testid="error">[^<]*logo_url/);
    assert.ok(bad.body.includes('value="http://cdn.shop.example/logo.png"'), 'what was typed is kept');
    const noCsrf = await post('/portal/payment-page', owner, { display_name: 'X' });
    assert.equal(noCsrf.statusCode, 403);
    const ok = await post('/portal/payment-page', owner, {
      _csrf: owner.csrf,
      display_name: 'Магазин «Ромашка»',
      logo_url: 'https://cdn.shop.example/logo.png',
      return_url: 'https://shop.example/back',
    });
    assert.equal(ok.statusCode, 303, ok.body);
    const view = await admin<{ display_name: string; logo_url: string; return_url: string }>(
      t.app,
      'GET',
      `/admin/merchants/${merchant.id}`,
    );
    assert.deepEqual(
      [view.display_name, view.logo_url, view.return_url],
      ['Магазин «Ромашка»', 'https://cdn.shop.example/logo.png', 'https://shop.example/back'],
    );
    const res = await createOrder(t.app, merchant, { amount: uniqueAmount() });
    const form = await t.app.inject({ url: `/form/${res.json().id}` });
    assert.ok(form.body.includes('Магазин «Ромашка»'), form.body);
    assert.match(
      form.headers['content-security-policy'] as string,
      /img-src 'self' data: https:\/\/cdn\.shop\.example;/,
    );
    const cleared = await post('/portal/payment-page', owner, {
      _csrf: owner.csrf,
      display_name: '',
      logo_url: '',
      return_url: '',
    });
    assert.equal(cleared.statusCode, 303);
    const after = await admin<{ display_name: string | null }>(
      t.app,
      'GET',
      `/admin/merchants/${merchant.id}`,
    );
    assert.equal(after.display_name, null);
  });
});
