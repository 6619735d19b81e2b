import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium, pageTestSkip, seriousViolations } from '../helpers/browser.js';
import { consoleLogin } from '../helpers/console.js';
import { addRequisite, admin } from '../helpers/merchant-client.js';

const ARTIFACTS = '.test-artifacts/holders';

// The holders' console pages in Chromium (docs/decisions.md "Holders' limits in the claim"): the
// list and a holder's page at 360 and 1280 px in both languages, no page-wide horizontal scroll, no
// serious axe violation; the settlement form works without JavaScript. Synthetic holder.
describe('console: holders pages in Chromium', { skip: pageTestSkip }, () => {
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

  it('list and holder page fit 360 px in ru and en; a settlement is recorded from the form', async () => {
    const user = { username: `adm-${randomUUID().slice(0, 6)}`, password: 'a long enough password 19' };
    await admin(t.app, 'POST', '/admin/operators', { ...user, role: 'admin' });
    const session = await consoleLogin(t.app, user.username, user.password);
    const holder = await admin<{ id: string }>(t.app, 'POST', '/admin/holders', {
      name: 'Синтетический держатель с длинным именем',
      exposure_limit: '1000',
    });
    const requisite = await addRequisite(t.app, { kind: 'card', bank: 'pochta' });
    await admin(t.app, 'PATCH', `/admin/requisites/${requisite.id}`, { enabled: false });
    await admin(t.app, 'PUT', `/admin/holders/${holder.id}/requisites`, { requisite_ids: [requisite.id] });
    await admin(t.app, 'POST', `/admin/holders/${holder.id}/corrections`, {
      amount: '950',
      reason: 'opening',
    });
    const context = await browser.newContext();
    await context.addCookies(
      session.cookie.split(/;\s*/).map((pair) => {
        const [name = '', value = ''] = pair.split('=');
        return { name, value, url: base };
      }),
    );
    const page = await context.newPage();
    for (const path of ['/backoffice/holders', `/backoffice/holders/${holder.id}`]) {
      for (const lang of ['en', 'ru']) {
        await page.goto(`${base}${path}?lang=${lang}`);
        for (const width of [1280, 360]) {
          await page.setViewportSize({ width, height: 900 });
          const [scroll, client] = (await page.evaluate(
            '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
          )) as [number, number];
          assert.ok(scroll <= client, `${path} ${lang} at ${width}: ${scroll}px in ${client}px`);
          assert.deepEqual(await seriousViolations(page), [], `${path} ${lang} at ${width}`);
          const name = path.endsWith('holders') ? 'list' : 'holder';
          await page.screenshot({ path: `${ARTIFACTS}/${name}-${lang}-${width}.png`, fullPage: true });
        }
      }
    }
    await page.goto(`${base}/backoffice/holders/${holder.id}?lang=en`);
    const form = page.getByTestId('settle-form');
    await form.locator('input[name=amount]').fill('450');
    await form.locator('input[name=reference]').fill('synthetic envelope');
    await form.locator('button').click();
    await page.waitForURL(/msg=holderSettled/);
    assert.equal(await page.getByTestId('holder-held').textContent(), '500 RUB');
    await context.close();
  });
});
