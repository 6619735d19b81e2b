import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { PNG } from 'pngjs';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium, pageTestSkip, seriousViolations } from '../helpers/browser.js';
import { addRequisite } from '../helpers/merchant-client.js';
import { pairDevice } from '../helpers/phones.js';

// jsqr is CommonJS whose typings declare an ES default export: load it the CommonJS way.
const jsQR = createRequire(import.meta.url)('jsqr') as typeof import('jsqr').default;

const ARTIFACTS = '.test-artifacts/pairing';

// docs/decisions.md "The pairing page": a phone-first page (360 px) that works without script.
describe('the pairing page in Chromium', { skip: pageTestSkip, timeout: 240_000 }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestApp({ config: { publicBaseUrl: 'http://127.0.0.1' } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t.close();
  });

  for (const [lang, locale] of [
    ['ru', 'ru-RU'],
    ['en', 'en-GB'],
  ] as const) {
    for (const width of [360, 1280]) {
      it(`${lang}, ${width} px: the page, the claim with an ending, the used link; no serious axe violation`, async () => {
        // At most 1 ₽: no other file's order lands on a requisite that is only paired here.
        const phone = await addRequisite(t.app, { kind: 'phone', bank: 'sber', max_amount: '1' });
        const device = await pairDevice(t.app, [phone.id]);
        const path = new URL(device.pairing.url).pathname;
        const context = await browser.newContext({
          viewport: { width, height: 800 },
          locale,
        });
        const page = await context.newPage();
        await page.goto(`${base}${path}`);
        assert.equal(await page.getAttribute('html', 'lang'), lang);
        assert.equal(
          await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
          true,
          'nothing wider than the screen',
        );
        assert.deepEqual(await seriousViolations(page), []);
        const shot = await page.getByTestId('qr').screenshot();
        const png = PNG.sync.read(shot);
        const qr = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
        assert.equal(qr?.data, `http://127.0.0.1${path}`, "the QR opens the page's own address");
        await page.screenshot({ path: `${ARTIFACTS}/page-${lang}-${width}.png`, fullPage: true });

        await page.getByTestId('ending').fill('4821');
        await page.getByTestId('claim').click();
        await page.getByTestId('once').waitFor();
        assert.equal(await page.getAttribute('html', 'lang'), lang);
        assert.equal(
          (await page.getByTestId('signing-key').textContent())?.trim(),
          device.sms_gateway.signing_key,
        );
        assert.match((await page.getByTestId('endings-saved').textContent()) ?? '', /4821/);
        assert.deepEqual(await seriousViolations(page), []);
        await page.screenshot({ path: `${ARTIFACTS}/setup-${lang}-${width}.png`, fullPage: true });

        await page.goto(`${base}${path}`);
        assert.equal(await page.getByTestId('code').textContent(), 'PAIRING_LINK_USED');
        assert.deepEqual(await seriousViolations(page), []);
        await context.close();
      });
    }
  }

  it('works without script: the claim is a plain form post', async () => {
    const device = await pairDevice(t.app, []);
    const context = await browser.newContext({
      viewport: { width: 360, height: 800 },
      javaScriptEnabled: false,
    });
    const page = await context.newPage();
    await page.goto(device.pairing.url.replace('http://127.0.0.1', base));
    await page.getByTestId('claim').click();
    await page.getByTestId('once').waitFor();
    assert.equal(
      (await page.getByTestId('signing-key').textContent())?.trim(),
      device.sms_gateway.signing_key,
    );
    await context.close();
  });

  it('the language switch is a link and the choice is remembered', async () => {
    const device = await pairDevice(t.app, []);
    const path = new URL(device.pairing.url).pathname;
    const context = await browser.newContext({ viewport: { width: 360, height: 800 }, locale: 'ru-RU' });
    const page = await context.newPage();
    await page.goto(`${base}${path}`);
    assert.equal(await page.getAttribute('html', 'lang'), 'ru');
    await page.getByTestId('lang').click();
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    await page.goto(`${base}${path}`);
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    await context.close();
  });
});
