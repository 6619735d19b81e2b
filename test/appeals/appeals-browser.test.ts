import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium, pageTestSkip, seriousViolations } from '../helpers/browser.js';
import { pdfFile } from '../helpers/files.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  merchantRequest,
  type TestMerchant,
  uniqueAmount,
} from '../helpers/merchant-client.js';
import { startReceiver } from '../helpers/receiver.js';

const ARTIFACTS = '.test-artifacts/appeals';

// An appeal from the expired form page to its resolution and the
// webhook it causes, at 360 and 1280 px, with axe-core on both pages.
describe('an appeal in Chromium: the payer’s failed form, the operator’s queue, the webhooks', {
  skip: pageTestSkip,
}, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let merchant: TestMerchant;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const support = { username: `support-${randomUUID().slice(0, 8)}`, password: `pw-${randomUUID()}` };

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    t.services.dispatcher.start();
    merchant = await createMerchant(t.app);
    await addRequisite(t.app, { kind: 'phone' });
    receiver = await startReceiver();
    await admin(t.app, 'POST', '/admin/operators', { ...support, role: 'support' });
    const sub = await merchantRequest(t.app, merchant, '/merchant/webhooks/subscriptions', {
      body: { url: `${receiver.url}/events`, events: ['appeal.opened', 'appeal.resolved'] },
    });
    assert.equal(sub.statusCode, 200, sub.body);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t.services.dispatcher.stop();
    await receiver.close();
    await t.close();
  });

  it('the payer sends a receipt on the cancelled form; support accepts it; success and appeal webhooks arrive', async () => {
    const order = (
      await createOrder(t.app, merchant, {
        amount: uniqueAmount(),
        success_callback_url: `${receiver.url}/success`,
      })
    ).json() as { id: string };
    await admin(t.app, 'POST', `/admin/orders/${order.id}/cancel`, { reason: 'timer ran out' });
    const receipt = `${ARTIFACTS}/receipt.pdf`;
    writeFileSync(receipt, pdfFile('paid at 12:03'));

    for (const width of [360, 1280]) {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto(`${base}/form/${order.id}?lang=ru`);
      if (width === 360) {
        assert.equal(await page.getByTestId('appeal-form').isVisible(), true);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
        assert.equal(overflow, false, 'no sideways scroll at 360 px');
        assert.deepEqual(await seriousViolations(page), []);
        await page.screenshot({ path: `${ARTIFACTS}/form-failed-360.png`, fullPage: true });
        await page.setInputFiles('[data-testid=appeal-file]', receipt);
        await page.click('[data-testid=appeal-submit]');
        await page.waitForURL(`${base}/form/${order.id}`);
      } else {
        await page.goto(`${base}/form/${order.id}?lang=en`);
      }
      assert.equal(await page.getByTestId('appeal-status').getAttribute('data-status'), 'open');
      assert.deepEqual(await seriousViolations(page), []);
      await page.screenshot({ path: `${ARTIFACTS}/form-appeal-open-${width}.png`, fullPage: true });
      await page.close();
    }

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${base}/backoffice/login`);
    await page.fill('input[name=username]', support.username);
    await page.fill('input[name=password]', support.password);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/backoffice\//);
    await page.goto(`${base}/backoffice/appeals`);
    const card = page.getByTestId('appeal').filter({ hasText: order.id });
    assert.match((await card.getByTestId('expected-amount').textContent()) ?? '', /RUB/);
    assert.deepEqual(await seriousViolations(page), []);
    await page.screenshot({ path: `${ARTIFACTS}/console-appeals.png`, fullPage: true });
    await card.getByTestId('appeal-accept').click();
    await page.getByTestId('flash').waitFor();

    const arrived = (path: string, text: string) =>
      receiver.received.some((r) => r.url === path && r.body.toString().includes(text));
    for (
      let i = 0;
      i < 50 && !(arrived('/success', order.id) && arrived('/events', '"appeal.resolved"'));
      i++
    )
      await new Promise((r) => setTimeout(r, 100));
    assert.ok(arrived('/success', order.id), "the contract's success webhook");
    assert.ok(arrived('/events', '"appeal.opened"'), 'appeal.opened');
    assert.ok(arrived('/events', '"appeal.resolved"'), 'appeal.resolved');
    await page.goto(`${base}/form/${order.id}?lang=en`);
    assert.equal(await page.getByTestId('appeal-status').getAttribute('data-status'), 'accepted');
    await page.screenshot({ path: `${ARTIFACTS}/form-appeal-accepted.png`, fullPage: true });
  });
});
