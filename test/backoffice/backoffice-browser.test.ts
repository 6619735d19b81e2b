import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium, pageTestSkip } from '../helpers/browser.js';
import { consoleLogin, nextCode, operatorSecrets } from '../helpers/console.js';
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

const ARTIFACTS = '.test-artifacts/backoffice';

describe('back office in Chromium', {
  skip: pageTestSkip,
}, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let merchant: TestMerchant;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const users: Record<string, { username: string; password: string }> = {};

  async function login(role: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${base}/backoffice/login`);
    await page.fill('input[name=username]', users[role]?.username ?? '');
    await page.fill('input[name=password]', users[role]?.password ?? '');
    // Admin and payouts have two-factor (enrolled in `before`): the next unused code.
    const secret = operatorSecrets.get(users[role]?.username ?? '');
    if (secret) await page.getByTestId('code').fill(await nextCode(secret));
    await page.click('button[type=submit]');
    await page.waitForURL(/\/backoffice\/(dashboard|payouts)/);
    return page;
  }

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    t.services.dispatcher.start();
    merchant = await createMerchant(t.app, { payin_fee_percent: 2 });
    await addRequisite(t.app, { kind: 'phone' });
    receiver = await startReceiver();
    for (const role of ['admin', 'support', 'payouts']) {
      const username = `${role}-${randomUUID().slice(0, 8)}`;
      const password = `pw-${randomUUID()}`;
      await admin(t.app, 'POST', '/admin/operators', { username, role, password });
      users[role] = { username, password };
      // Money-moving roles must enrol two-factor first (docs/decisions.md section 32): done once over HTTP.
      if (role !== 'support') await consoleLogin(t.app, username, password);
    }
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t.services.dispatcher.stop();
    await receiver.close();
    await t.close();
  });

  it('support logs in, confirms an order and sees its webhook delivered to the receiver', async () => {
    const order = (
      await createOrder(t.app, merchant, {
        success_callback_url: `${receiver.url}/hook`,
        comment: 'VIP client',
        client_id: 'c-77',
        client_paid_count: 10,
        client_orders_count: 20,
      })
    ).json();
    const page = await login('support');
    await page.goto(`${base}/backoffice/orders?merchant_id=${merchant.id}`);
    assert.ok((await page.content()).includes('10/20'), 'paid/orders shown');
    await page.screenshot({ path: `${ARTIFACTS}/orders.png`, fullPage: true });
    await page.goto(`${base}/backoffice/orders/${order.id}`);
    await page.fill('input[name=reason]', 'seen in bank app');
    await page.click('[data-testid=confirm]');
    // The console asks first, showing what will change (docs/decisions.md section 32).
    assert.match((await page.getByTestId('confirm-changes').textContent()) ?? '', /becomes success/);
    await page.click('[data-testid=confirm-yes]');
    await page.getByTestId('flash').waitFor();
    assert.equal(await page.getByTestId('order-status').textContent(), 'success');
    for (let i = 0; i < 40 && !receiver.received.some((r) => r.body.toString().includes(order.id)); i++)
      await new Promise((r) => setTimeout(r, 100));
    const hook = receiver.received.find((r) => r.body.toString().includes(order.id));
    assert.ok(hook, 'the webhook reached the receiver');
    assert.equal(hook.headers['x-api-key'], sign(merchant.apiKey, hook.body));
    // The receiver answers before the dispatcher records the attempt: reload until it is written.
    let status: string | null = null;
    for (let i = 0; i < 40 && status !== 'delivered'; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 100));
      await page.reload();
      status = await page.getByTestId('delivery-status').first().textContent();
    }
    assert.equal(status, 'delivered');
    await page.screenshot({ path: `${ARTIFACTS}/order.png`, fullPage: true });
    const audit = await admin<Array<{ actor: string; ip: string }>>(
      t.app,
      'GET',
      `/admin/audit?target_id=${order.id}&action=order.confirm`,
    );
    assert.equal(audit[0]?.actor, `operator:${users.support?.username}`);
    assert.ok(audit[0]?.ip, 'the IP is recorded');
    await page.close();
  });

  it('support rejects a receipt with a reason', async () => {
    const order = (await createOrder(t.app, merchant)).json();
    const { body, contentType } = multipartBody(
      { orderId: order.id },
      { field: 'receipt', filename: 'r.png', contentType: 'image/png', data: pngFile() },
    );
    const up = await t.app.inject({
      method: 'POST',
      url: '/merchant/receipt/upload',
      headers: {
        'content-type': contentType,
        'client-api-key': merchant.apiKey,
        'x-api-key': sign(merchant.apiKey, ''),
      },
      payload: body,
    });
    assert.equal(up.statusCode, 200, up.body);
    const page = await login('support');
    await page.goto(`${base}/backoffice/orders/${order.id}`);
    await page.fill('form[action$="/reject"] input[name=reason]', 'amount does not match');
    await page.click('form[action$="/reject"] button');
    await page.getByTestId('flash').waitFor();
    const info = await merchantRequest(t.app, merchant, `/merchant/order/${order.id}`);
    assert.equal(info.json().receiptStatus, 'rejected');
    await page.close();
  });

  it('a payouts operator takes a payout and marks it sent; the balance is debited', async () => {
    await admin(t.app, 'POST', `/admin/merchants/${merchant.id}/ledger-adjustments`, {
      currency: 'RUB',
      amount: 3000,
      reason: 'funding',
    });
    const before = (await merchantRequest(t.app, merchant, `/merchant/balance/${merchant.id}`)).json()
      .balance as number;
    const payout = await merchantRequest(t.app, merchant, '/merchant/createOrder', {
      body: {
        merchant_id: merchant.id,
        direction: 'PAYOUT',
        type: 'sim',
        amount: 1000,
        order_id: `po-${randomUUID()}`,
        payout_details: { holderAccount: '79007654321', holderName: 'Petr P.', methodName: 'Sberbank' },
      },
    });
    assert.equal(payout.statusCode, 200, payout.body);
    const page = await login('payouts');
    await page.goto(`${base}/backoffice/payouts`);
    const row = page.getByTestId('payout-row').filter({ hasText: payout.json().payment_id });
    await row.getByTestId('take').click();
    await page.getByTestId('flash').waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/payouts.png`, fullPage: true });
    const taken = page.getByTestId('payout-row').filter({ hasText: payout.json().payment_id });
    await taken.getByTestId('mark-sent').click();
    await page.getByTestId('flash').waitFor();
    const after = (await merchantRequest(t.app, merchant, `/merchant/balance/${merchant.id}`)).json()
      .balance as number;
    assert.equal(after, before - 1000);
    await page.close();
  });

  it('a support operator cannot open merchants; a form without the CSRF token is refused', async () => {
    const page = await login('support');
    const res = await page.goto(`${base}/backoffice/merchants`);
    assert.equal(res?.status(), 403);
    const order = (await createOrder(t.app, merchant)).json();
    const cookies = await page.context().cookies();
    const session = cookies.find((c) => c.name === 'bo_session');
    assert.ok(session, 'session cookie set');
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Strict');
    const forged = await fetch(`${base}/backoffice/orders/${order.id}/cancel`, {
      method: 'POST',
      headers: { cookie: `bo_session=${session.value}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'reason=forged',
      redirect: 'manual',
    });
    assert.equal(forged.status, 403);
    const info = await merchantRequest(t.app, merchant, `/merchant/order/${order.id}`);
    assert.equal(info.json().status, 'pending', 'nothing changed');
    await page.close();
  });

  it('an admin creates a merchant and sees the key once; screenshots of the admin pages', async () => {
    const page = await login('admin');
    await page.goto(`${base}/backoffice/merchants`);
    await page.fill(
      'form[action="/backoffice/merchants"] input[name=merchant_id]',
      `bo-${randomUUID().slice(0, 8)}`,
    );
    await page.click('form[action="/backoffice/merchants"] button');
    const key = await page.getByTestId('new-key').locator('.key').textContent();
    assert.match(key ?? '', /^[0-9a-f]{64}$/);
    await page.screenshot({ path: `${ARTIFACTS}/merchants.png`, fullPage: true });
    for (const path of ['requisites', 'audit', 'rates', 'crypto', 'operators']) {
      const res = await page.goto(`${base}/backoffice/${path}`);
      assert.equal(res?.status(), 200, path);
    }
    await page.goto(`${base}/backoffice/audit`);
    await page.screenshot({ path: `${ARTIFACTS}/audit.png` });
    await page.close();
  });
});
