import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium, pageTestSkip, seriousViolations } from '../helpers/browser.js';
import { nextCode } from '../helpers/console.js';
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
import { waitFor } from '../helpers/wait.js';

const ARTIFACTS = '.test-artifacts/portal';
const PASSWORD = 'a long enough passphrase';

// The portal in Chromium, as a merchant's owner uses it.
describe('the merchant portal in Chromium: TOTP login, search, order page, exports, keys, sandbox, reports', {
  skip: pageTestSkip,
}, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let merchant: TestMerchant;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let paid: { id: string; payment_id: string };
  let secret = '';
  const email = `owner-${Math.random().toString(36).slice(2)}@shop.example`;

  /** No sideways scroll, no serious axe finding, and a screenshot kept as an artifact. */
  async function check(page: Page, name: string) {
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    assert.equal(overflow, false, `${name}: no sideways scroll`);
    assert.deepEqual(await seriousViolations(page), [], `${name}: axe`);
    const width = page.viewportSize()?.width ?? 0;
    await page.screenshot({ path: `${ARTIFACTS}/${name}-${width}.png`, fullPage: true });
  }

  /** The element is on screen horizontally (not pushed off the right edge at phone width). */
  async function inView(page: Page, selector: string, what: string) {
    const box = await page.locator(selector).first().boundingBox();
    const width = page.viewportSize()?.width ?? 0;
    assert.ok(box && box.x >= 0 && box.x + box.width <= width, `${what} is visible at ${width} px`);
  }

  /** The first sign-in's cookies: a TOTP code is good once, so later pages reuse that session. */
  let signedIn: Awaited<ReturnType<ReturnType<Page['context']>['cookies']>> | undefined;
  async function signIn(page: Page) {
    if (signedIn) {
      await page.context().addCookies(signedIn);
      await page.goto(`${base}/portal/orders`);
      return;
    }
    await page.goto(`${base}/portal/login?lang=en`);
    await page.fill('#email', email);
    await page.fill('#password', PASSWORD);
    await page.fill('#code', await nextCode(secret));
    await page.click('button[type=submit]');
    await page.waitForURL(`${base}/portal/orders`);
    signedIn = await page.context().cookies();
  }

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    t.services.dispatcher.start();
    merchant = await createMerchant(t.app);
    await addRequisite(t.app, { kind: 'phone' });
    receiver = await startReceiver();
    paid = (
      await createOrder(t.app, merchant, {
        order_id: `pb-${Math.random().toString(36).slice(2)}`,
        amount: uniqueAmount(),
        client_id: 'client-browser',
        success_callback_url: `${receiver.url}/hook`,
      })
    ).json() as { id: string; payment_id: string };
    await admin(t.app, 'POST', `/admin/orders/${paid.id}/confirm`, {});
    const invite = await admin<{ invite_url: string }>(
      t.app,
      'POST',
      `/admin/merchants/${merchant.id}/users`,
      {
        email,
        role: 'owner',
      },
    );
    browser = await launchChromium();
    // Enrolment as a new owner does it: the invitation page, its TOTP secret, a password and a code.
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${base}${new URL(invite.invite_url).pathname}?lang=en`);
    secret = (await page.getByTestId('totp-secret').textContent())?.trim() ?? '';
    await page.fill('#password', PASSWORD);
    await page.fill('#totp_code', await nextCode(secret));
    await page.click('button[type=submit]');
    await page.waitForURL(/\/portal\/login/);
    await page.close();
  });
  after(async () => {
    await browser?.close();
    await t.services.dispatcher.stop();
    await receiver.close();
    await t.close();
  });

  it('login with TOTP, search by order id, the order page resends its webhook', async () => {
    for (const width of [360, 1280]) {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await signIn(page);
      await page.fill('[data-testid=search]', paid.payment_id);
      await page.click('form.filters button[type=submit]');
      await page.waitForURL(/q=/);
      assert.equal(await page.getByTestId('order-row').count(), 1, 'search finds the one order');
      await check(page, 'orders');
      await inView(page, '[data-testid=order-status]', 'the status');
      await inView(page, '[data-testid=order-row] td.num', 'the amount');
      assert.equal(
        await page.locator('select#type').count(),
        1,
        'the payment type is a choice, not free text',
      );
      await page.click(`a[href="/portal/orders/${paid.id}"]`);
      await page.getByTestId('delivery').first().waitFor();
      await check(page, 'order');
      if (width === 1280) {
        const before = receiver.received.filter((r) => r.url === '/hook').length;
        await page.getByTestId('resend').first().click();
        await page.getByTestId('flash').waitFor();
        const hooks = () => receiver.received.filter((r) => r.url === '/hook').length;
        await waitFor('the resent webhook', 5000, async () => (hooks() > before ? true : undefined));
        assert.equal(receiver.received.filter((r) => r.url === '/hook').length, before + 1, 'resent');
      }
      await page.close();
    }
  });

  it('every list page at 360 and 1280 px: no sideways page scroll, no serious axe finding', async () => {
    const pages = [
      '/portal/orders',
      '/portal/orders?mode=test',
      '/portal/orders?direction=PAYOUT',
      '/portal/statement',
      '/portal/appeals',
      '/portal/events',
      '/portal/keys',
      '/portal/users',
      '/portal/integration',
    ];
    for (const width of [360, 1280]) {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await signIn(page);
      for (const path of pages) {
        await page.goto(`${base}${path}`);
        await check(page, `list${path.replace(/[/?=]/g, '-')}`);
      }
      await page.close();
    }
  });

  it('the statement and both CSV exports download and parse with a header row', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    await signIn(page);
    const ordersCsv = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('orders-csv').click(),
    ]);
    const orders = parse(readFileSync(String(await ordersCsv[0].path())), { columns: true }) as Array<
      Record<string, string>
    >;
    assert.ok(orders.some((o) => o.id === paid.id && o.status === 'success' && o.test === 'false'));
    await page.goto(`${base}/portal/statement`);
    await check(page, 'statement');
    const statementCsv = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('statement-csv').click(),
    ]);
    const lines = parse(readFileSync(String(await statementCsv[0].path())), { columns: true }) as Array<
      Record<string, string>
    >;
    assert.ok(
      lines.some((l) => l.order_id === paid.id),
      'the credit of the paid order',
    );
    await page.close();
  });

  it('key rotation asks for confirmation, shows the new key once, and the old one works for the grace', async () => {
    const page = await browser.newPage({ viewport: { width: 360, height: 900 } });
    await signIn(page);
    await page.goto(`${base}/portal/keys`);
    await page.selectOption('#grace', '3600');
    await page.getByTestId('rotate').click();
    await page.getByTestId('confirm-rotate').waitFor();
    await check(page, 'keys-confirm');
    await page.getByTestId('confirm-rotate').click();
    await page.waitForURL(`${base}/portal/keys`);
    const fresh = await page.getByTestId('new-key').inputValue();
    assert.match(fresh, /^[0-9a-f]{64}$/);
    assert.ok(await page.getByTestId('old-key-until').isVisible());
    assert.equal(await page.getByTestId('new-key').getAttribute('readonly'), '', 'read-only, selectable');
    await check(page, 'keys-shown');
    const statuses = await page.getByTestId('key-status').allTextContents();
    assert.deepEqual(statuses.slice(0, 2), ['current', 'in grace'], 'the new key, then the old one in grace');
    await page.reload();
    assert.equal(await page.getByTestId('new-key').count(), 0, 'a reload shows the key no more');
    assert.equal(
      (await page.getByTestId('key-status').allTextContents())[0],
      'current',
      'and issues nothing',
    );
    assert.equal(
      await page.getByTestId('key-row').count(),
      statuses.length,
      'no key was added by the reload',
    );
    for (const key of [merchant.apiKey, fresh]) {
      const res = await merchantRequest(
        t.app,
        { id: merchant.id, apiKey: key },
        `/merchant/balance/${merchant.id}`,
      );
      assert.equal(res.statusCode, 200, 'both keys work during the grace');
    }
    merchant = { id: merchant.id, apiKey: fresh };
    await page.close();
  });

  it('sandbox: a test key from the portal, a test order driven from its page, its webhook signed with the test key', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page);
    await page.goto(`${base}/portal/keys`);
    await page.getByTestId('issue-test-key').click();
    await page.waitForURL(`${base}/portal/keys`);
    const testKey = await page.getByTestId('new-key').inputValue();
    assert.match(testKey, /^test_[0-9a-f]{64}$/);
    const sandbox = { id: merchant.id, apiKey: testKey };
    const order = (
      await createOrder(t.app, sandbox, { amount: 1234, success_callback_url: `${receiver.url}/sandbox` })
    ).json() as { id: string };
    await page.goto(`${base}/portal/orders?mode=test`);
    assert.equal(await page.getByTestId('order-row').count(), 1, 'test data apart from live data');
    await page.click(`a[href="/portal/orders/${order.id}"]`);
    await page.getByTestId('test-badge').waitFor();
    await check(page, 'sandbox-order');
    await page.getByTestId('sandbox-paid').click();
    await page.waitForURL(/msg=sandbox_done/);
    assert.equal(await page.getByTestId('order-status').textContent(), 'success');
    const hook = await waitFor('the test order webhook', 5000, async () =>
      receiver.received.find((r) => r.url === '/sandbox'),
    );
    assert.ok(hook, 'the success webhook of the test order arrived');
    assert.equal(hook.headers['x-api-key'], sign(testKey, hook.body));
    await page.goto(`${base}/portal/orders`);
    assert.equal(
      await page.locator(`a[href="/portal/orders/${order.id}"]`).count(),
      0,
      'the live list never shows test orders',
    );
    await page.close();
  });

  it('events page: subscribe, send a test event, read the delivery log; reports draw their chart', async () => {
    for (const width of [360, 1280]) {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await signIn(page);
      if (width === 1280) {
        await page.goto(`${base}/portal/events`);
        await page.fill('[data-testid=subscription-url]', `${receiver.url}/events`);
        await page.check('input[name="ev_order.expired"]');
        await page.getByTestId('subscribe').click();
        await page.getByTestId('subscription').waitFor();
        await page.getByTestId('send-test').click();
        await page.waitForURL(/msg=test_sent/);
        await waitFor('the test event', 5000, async () =>
          receiver.received.some((r) => r.url === '/events') ? true : undefined,
        );
        assert.ok(
          receiver.received.some((r) => r.url === '/events'),
          'the test event arrived',
        );
        await page.reload();
        await page.getByTestId('event-delivery').first().waitFor();
        await check(page, 'events');
      }
      await page.goto(`${base}/portal/reports`);
      await page.waitForFunction(() => document.getElementById('chart')?.dataset.ready === 'true');
      assert.ok((await page.locator('#chart canvas').count()) > 0, 'uPlot drew the chart');
      assert.equal(Number(await page.getByTestId('succeeded').last().textContent()) >= 1, true);
      await check(page, 'reports');
      await page.close();
    }
  });
});
