import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import { PNG } from 'pngjs';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { CHROMIUM } from '../helpers/browser.js';
import { multipartBody, pdfFile } from '../helpers/files.js';
import { addRequisite, admin, createMerchant, createOrder, sign } from '../helpers/merchant-client.js';

const ARTIFACTS = '.test-artifacts/backoffice';
const XVFB = '/usr/bin/Xvfb';
/** Headless Chromium does not paint its PDF viewer; a real display (Xvfb) does. */
const skip = !existsSync(CHROMIUM)
  ? 'Debian chromium is not installed'
  : !existsSync(XVFB)
    ? 'Xvfb is not installed (.ci/run installs xvfb)'
    : false;

// A PDF receipt is shown inside the console's order page.
describe('a PDF receipt is shown in the console', { skip }, () => {
  let t: TestApp;
  let xvfb: ChildProcess;
  const display = `:${90 + (process.pid % 9)}`;

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    xvfb = spawn(XVFB, [display, '-screen', '0', '1280x900x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 800));
    t = await startTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    xvfb?.kill();
    await t?.close();
  });

  it('the order page frames the PDF and Chromium paints its page', async () => {
    const merchant = await createMerchant(t.app, { payment_types: ['card_pdf'] });
    await addRequisite(t.app, { kind: 'card' });
    const order = (await createOrder(t.app, merchant, { type: 'card_pdf' })).json();
    const { body, contentType } = multipartBody(
      { orderId: order.id },
      { field: 'receipt', filename: 'r.pdf', contentType: 'application/pdf', data: pdfFile('Paid in full') },
    );
    const up = await t.app.inject({
      method: 'POST',
      url: '/merchant/receipt/upload',
      headers: {
        'content-type': contentType,
        'client-api-key': merchant.apiKey,
        'x-api-key': sign(merchant.apiKey),
      },
      payload: body,
    });
    assert.equal(up.statusCode, 200, up.body);
    const user = { username: `pdf-${randomUUID().slice(0, 8)}`, password: `pw-${randomUUID()}` };
    await admin(t.app, 'POST', '/admin/operators', { ...user, role: 'support' });
    const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: false,
      env: { ...process.env, DISPLAY: display },
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${base}/backoffice/login`);
      await page.fill('input[name=username]', user.username);
      await page.fill('input[name=password]', user.password);
      await page.click('button[type=submit]');
      await page.waitForURL(/\/backoffice\/dashboard/);
      await page.goto(`${base}/backoffice/orders/${order.id}`);
      const frame = page.locator('iframe.viewer');
      await frame.scrollIntoViewIfNeeded();
      // The viewer is Chromium's PDF extension inside our frame; give it a moment to paint.
      await page.waitForTimeout(2500);
      assert.ok(
        page.frames().some((f) => f.url().startsWith('chrome-extension://')),
        `no PDF viewer: ${page.frames().map((f) => f.url())}`,
      );
      const shot = await frame.screenshot({ path: `${ARTIFACTS}/receipt-pdf-in-console.png` });
      const png = PNG.sync.read(shot);
      let white = 0;
      for (let i = 0; i < png.data.length; i += 4) {
        if ((png.data[i] ?? 0) > 245 && (png.data[i + 1] ?? 0) > 245 && (png.data[i + 2] ?? 0) > 245) white++;
      }
      // The PDF page is white on the viewer's dark background; a blocked frame has no such page.
      assert.ok(white > (png.width * png.height) / 10, `white pixels ${white} of ${png.width * png.height}`);
    } finally {
      await browser.close();
    }
  });
});
