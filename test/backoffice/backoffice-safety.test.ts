import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/database.js';
import { startTestApp, type TestApp, testConfig } from '../helpers/app.js';
import { type ConsoleSession, consoleLogin, consolePost, postLogin } from '../helpers/console.js';
import { multipartBody, pdfFile } from '../helpers/files.js';
import { addRequisite, admin, createMerchant, createOrder, sign } from '../helpers/merchant-client.js';

// One error mapping for the console too, no open redirect, PDF receipts
// viewable, a login limiter that counts failures only and audits each one.
describe('console errors, redirects, receipt viewer and login limit', () => {
  let t: TestApp;
  let session: ConsoleSession;
  const user = { username: `sup-${randomUUID().slice(0, 8)}`, password: `pw-${randomUUID()}` };

  before(async () => {
    t = await startTestApp();
    await admin(t.app, 'POST', '/admin/operators', { ...user, role: 'support' });
    session = await consoleLogin(t.app, user.username, user.password);
  });
  after(async () => t.close());

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie: session.cookie } });
  const codeOf = (body: string) => /data-testid="error-code">([A-Z_]+)</.exec(body)?.[1];

  describe('item 9: one error list and mapping for every surface', () => {
    it('a console form POST as text/plain is 415 UNSUPPORTED_MEDIA_TYPE, as a page', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/backoffice/orders/x/cancel',
        headers: { cookie: session.cookie, 'content-type': 'text/plain' },
        payload: `_csrf=${session.csrf}&reason=x`,
      });
      assert.equal(res.statusCode, 415, res.body);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.equal(codeOf(res.body), 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('an order id with a NUL byte is 400, an absurd one 400 or 404, never 500', async () => {
      const nul = await get('/backoffice/orders/lux%00x');
      assert.equal(nul.statusCode, 400, nul.body);
      assert.equal(codeOf(nul.body), 'VALIDATION_ERROR');
      for (const id of [
        'x'.repeat(600),
        'x'.repeat(300),
        '%FF%FE',
        encodeURIComponent("'; DROP TABLE orders; --"),
      ]) {
        const res = await get(`/backoffice/orders/${id}`);
        assert.ok([400, 404].includes(res.statusCode), `${id.slice(0, 20)}: ${res.statusCode} ${res.body}`);
        assert.match(String(res.headers['content-type']), /^text\/html/);
      }
    });

    it('bad date filters are 400 on the console and on the admin API', async () => {
      for (const q of ['from=xx', 'to=2024-02-30', 'from=99999-01-01']) {
        const page = await get(`/backoffice/orders?${q}`);
        assert.equal(page.statusCode, 400, `${q}: ${page.body}`);
        assert.equal(codeOf(page.body), 'VALIDATION_ERROR');
      }
      for (const url of ['/admin/orders?from=xx', '/admin/orders?to=2024-13-01', '/admin/audit?from=xx']) {
        const res = await t.app.inject({
          method: 'GET',
          url,
          headers: { authorization: `Bearer ${t.config.adminToken}` },
        });
        assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
        assert.equal(res.json().message, 'VALIDATION_ERROR');
      }
      const ok = await get('/backoffice/orders?from=2024-01-01&to=2024-01-31');
      assert.equal(ok.statusCode, 200);
    });

    it('the database unreachable: the console answers 503 SERVICE_UNAVAILABLE, as the API does', async () => {
      // A real driver against a port nothing listens on (no migration: nothing to reach).
      const database = await openDatabase({
        databaseUrl: 'postgres://postgres@127.0.0.1:9/none',
        migrate: false,
      });
      const { app } = await buildApp({ config: testConfig(), database });
      await app.ready();
      try {
        const page = await app.inject({
          method: 'GET',
          url: '/backoffice/orders',
          headers: { cookie: session.cookie },
        });
        assert.equal(page.statusCode, 503, page.body);
        assert.equal(codeOf(page.body), 'SERVICE_UNAVAILABLE');
        const api = await app.inject({
          method: 'GET',
          url: '/admin/orders',
          headers: { authorization: `Bearer ${t.config.adminToken}` },
        });
        assert.equal(api.statusCode, 503, api.body);
      } finally {
        await app.close();
        await database.close();
      }
    });
  });

  describe('item 10: a form may send the browser back inside the console only', () => {
    for (const back of [
      'https://evil.example/phish',
      '//evil.example/phish',
      '/\\evil.example',
      '/backoffice//evil.example',
      'javascript:alert(1)',
      '/elsewhere',
    ]) {
      it(`back=${back} -> the receipts queue`, async () => {
        const res = await consolePost(t.app, session, `/backoffice/receipts/${randomUUID()}/accept`, {
          back,
        });
        assert.equal(res.statusCode, 303, res.body);
        assert.match(String(res.headers.location), /^\/backoffice\/receipts\?/, String(res.headers.location));
      });
    }
    it('a console path is followed', async () => {
      const back = '/backoffice/orders/lux0199?tab=receipts';
      const res = await consolePost(t.app, session, `/backoffice/receipts/${randomUUID()}/accept`, { back });
      assert.match(String(res.headers.location), /^\/backoffice\/orders\/lux0199\?tab=receipts&error=/);
    });
  });

  describe('item 11: a PDF receipt is shown inside the console, never as HTML', () => {
    it('the file answers with its own policy: framed by the console only, sandboxed, nosniff', async () => {
      const merchant = await createMerchant(t.app, { payment_types: ['sbp_pdf'] });
      await addRequisite(t.app, { kind: 'phone' });
      const order = (await createOrder(t.app, merchant, { type: 'sbp_pdf' })).json();
      const { body, contentType } = multipartBody(
        { orderId: order.id },
        { field: 'receipt', filename: 'r.pdf', contentType: 'application/pdf', data: pdfFile() },
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
      const page = await get(`/backoffice/orders/${order.id}`);
      const src = /<iframe src="(\/backoffice\/receipts\/[^"]+\/file)"/.exec(page.body)?.[1];
      assert.ok(src, 'the order page frames the PDF');
      const pagePolicy = String(page.headers['content-security-policy']);
      assert.match(pagePolicy, /frame-src 'self'/);
      const file = await get(src);
      assert.equal(file.statusCode, 200);
      assert.equal(file.headers['content-type'], 'application/pdf');
      assert.equal(file.headers['x-content-type-options'], 'nosniff');
      const policy = String(file.headers['content-security-policy']);
      assert.match(policy, /frame-ancestors 'self'/, policy);
      assert.match(policy, /sandbox/, policy);
      assert.doesNotMatch(policy, /frame-ancestors 'none'/, policy);
      assert.match(
        String(file.headers['content-disposition']),
        /^inline; filename="receipt-[0-9a-f-]+\.pdf"$/,
      );
    });
  });

  describe('item 15: the login limit counts failures only, and every failure is audited', () => {
    it('ten good logins in a row from one IP all pass', async () => {
      for (let i = 0; i < 10; i++) {
        const res = await postLogin(t.app, user.username, user.password, '10.9.0.1');
        assert.equal(res.headers.location, '/backoffice', `login ${i + 1}: ${res.statusCode}`);
      }
    });

    it('five failures block the IP: 429 with the seconds left, even for the right password', async () => {
      const ip = '10.9.0.2';
      for (let i = 0; i < 5; i++) {
        const res = await postLogin(t.app, user.username, `wrong-${i}`, ip);
        assert.equal(res.headers.location, '/backoffice/login?error=invalid', `failure ${i + 1}`);
      }
      const blocked = await postLogin(t.app, user.username, user.password, ip);
      assert.equal(blocked.statusCode, 429, blocked.body);
      const retry = Number(blocked.headers['retry-after']);
      assert.ok(retry > 1 && retry <= 60, `Retry-After ${retry}`);
      assert.match(String(blocked.headers['content-type']), /^text\/html/);
      const other = await postLogin(t.app, user.username, user.password, '10.9.0.3');
      assert.equal(other.headers.location, '/backoffice', 'another IP is not blocked');
    });

    it('a failure is on the audit trail with the username tried and the IP', async () => {
      const tried = `nobody-${randomUUID().slice(0, 6)}`;
      await postLogin(t.app, tried, 'whatever-password', '10.9.0.4');
      const rows = await admin<
        Array<{ action: string; ip: string; target_id: string; after: { reason: string } }>
      >(t.app, 'GET', `/admin/audit?action=operator.login_failed&target_id=${tried}`);
      assert.equal(rows.length, 1, JSON.stringify(rows));
      assert.deepEqual(
        [rows[0]?.ip, rows[0]?.target_id, rows[0]?.after.reason],
        ['10.9.0.4', tried, 'unknown_user'],
      );
    });
  });
});
