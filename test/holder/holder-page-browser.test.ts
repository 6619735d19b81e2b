import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium, pageTestSkip, seriousViolations } from '../helpers/browser.js';
import { cookiesOf, nextCode } from '../helpers/console.js';
import { pdfFile } from '../helpers/files.js';
import { addRequisite, admin, createMerchant, merchantRequest } from '../helpers/merchant-client.js';
import { pairDevice } from '../helpers/phones.js';

const ARTIFACTS = '.test-artifacts/holder';
const PASSWORD = 'a long enough holder passphrase';

// The holder's own page in Chromium (docs/decisions.md "The holder's own page"): the sign-in, the
// invitation and every signed-in page at 360 and 1280 px in Russian and English, no page-wide
// horizontal scroll, no serious or critical axe violation; pausing a requisite works without script.
describe("holder's own page in Chromium", { skip: pageTestSkip }, () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A live PAYOUT of a fresh merchant, given to holder `holderId`; its id. */
  async function givenPayout(holderId: string): Promise<string> {
    const merchant = await createMerchant(t.app);
    await admin(t.app, 'POST', `/admin/merchants/${merchant.id}/ledger-adjustments`, {
      currency: 'RUB',
      amount: 5000,
      reason: 'funding',
    });
    const res = await merchantRequest(t.app, merchant, '/merchant/createOrder', {
      body: {
        merchant_id: merchant.id,
        direction: 'PAYOUT',
        type: 'card',
        amount: 2450,
        payout_details: {
          holderAccount: '2200123412341234',
          holderName: 'Синтетический Получатель Выплаты',
          methodName: 'Sberbank',
        },
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const id = (res.json() as { id: string }).id;
    await admin(t.app, 'POST', `/admin/payouts/${id}/holder`, { holder_id: holderId });
    return id;
  }

  /** Fits the width without a page-wide scroll and has no serious axe violation, in both languages. */
  async function check(page: import('playwright-core').Page, path: string, name: string) {
    for (const lang of ['ru', 'en']) {
      await page.goto(`${base}${path}${path.includes('?') ? '&' : '?'}lang=${lang}`);
      for (const width of [1280, 360]) {
        await page.setViewportSize({ width, height: 900 });
        const [scroll, client] = (await page.evaluate(
          '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
        )) as [number, number];
        assert.ok(scroll <= client, `${path} ${lang} at ${width}: ${scroll}px in ${client}px`);
        assert.deepEqual(await seriousViolations(page), [], `${path} ${lang} at ${width}`);
        await page.screenshot({ path: `${ARTIFACTS}/${name}-${lang}-${width}.png`, fullPage: true });
      }
    }
  }

  it('sign-in, invitation and the pages fit 360 px in ru and en with no serious violation', async () => {
    const holder = await admin<{ id: string }>(t.app, 'POST', '/admin/holders', {
      name: 'Синтетический держатель с довольно длинным именем',
      exposure_limit: '150000',
      security_deposit: '20000',
      payouts_allowed: true,
    });
    const requisite = await addRequisite(t.app, { kind: 'card', bank: 'pochta', max_amount: '1' });
    await admin(t.app, 'PUT', `/admin/holders/${holder.id}/requisites`, { requisite_ids: [requisite.id] });
    await pairDevice(t.app, [requisite.id]);
    await admin(t.app, 'POST', `/admin/holders/${holder.id}/corrections`, {
      amount: '1250.5',
      reason: 'opening',
    });
    // A PAYOUT given to the holder to send (docs/decisions.md "Payouts on the holder's page").
    const payoutId = await givenPayout(holder.id);
    const login = `holder-${randomUUID().slice(0, 8)}`;
    const invite = await admin<{ invite_url: string }>(
      t.app,
      'POST',
      `/admin/holders/${holder.id}/invitations`,
      {
        login,
      },
    );
    const invitePath = new URL(invite.invite_url).pathname;

    const context = await browser.newContext();
    const page = await context.newPage();
    await check(page, '/holder/login', 'login');
    await check(page, invitePath, 'invite');
    const secret = (await page.getByTestId('totp-secret').textContent()) ?? '';
    await page.locator('#password').fill(PASSWORD);
    await page.locator('#totp_code').fill(await nextCode(secret));
    await page.locator('form button[type=submit]').click();
    await page.waitForURL(/\/holder\/login\?msg=created/);

    const form = await t.app.inject({ method: 'GET', url: '/holder/login' });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
    const signed = await t.app.inject({
      method: 'POST',
      url: '/holder/login',
      headers: { cookie: cookiesOf(form), 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        _csrf: csrf,
        login,
        password: PASSWORD,
        code: await nextCode(secret),
      }).toString(),
    });
    assert.equal(signed.headers.location, '/holder', signed.body);
    await context.addCookies(
      cookiesOf(signed)
        .split(/;\s*/)
        .map((pair) => {
          const [name = '', value = ''] = pair.split('=');
          return { name, value, url: base };
        }),
    );
    await check(page, '/holder', 'home');
    await check(page, '/holder/statement', 'statement');
    await check(page, '/holder/report', 'report');
    await check(page, '/holder/payouts', 'payouts');

    // Marked sent with its receipt, without script; then listed among the sent ones.
    await page.goto(`${base}/holder/payouts?lang=en`);
    await page
      .locator(`#receipt-${payoutId}`)
      .setInputFiles({ name: 'receipt.pdf', mimeType: 'application/pdf', buffer: pdfFile('sent') });
    await page.locator(`[data-id="${payoutId}"] button[type=submit]`).click();
    await page.waitForURL(/msg=payoutSent/);
    assert.equal(await page.getByTestId('payouts-sent').locator('tbody tr').count(), 1);
    await check(page, '/holder/payouts?msg=payoutSent', 'payouts-sent');

    await page.goto(`${base}/holder?lang=en`);
    await page.getByTestId('pause').click();
    await page.waitForURL(/msg=paused/);
    assert.equal(await page.getByTestId('requisite-state').textContent(), 'paused (by you)');
    await check(page, '/holder?msg=paused', 'home-paused');
    await context.close();
  });
});
