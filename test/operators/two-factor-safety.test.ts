// Two-factor in both realms (docs/decisions.md section 38): the secret is always made by
// the server, a wrong code shows the same enrolment form and secret again with the error in the page's
// language, a code is good once (portal too), labels say where the code is required, and the console's
// dashboard stream ends within 5 s of its session being revoked or its operator disabled. Operators,
// people and secrets here are synthetic.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import * as OTPAuth from 'otpauth';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { consoleLogin, consolePost, cookiesOf, nextCode, postLogin } from '../helpers/console.js';
import { admin, adminRaw, createMerchant, type TestMerchant } from '../helpers/merchant-client.js';

const PASSWORD = 'a long enough passphrase';
/** A secret a client might try to choose (never accepted). */
const CLIENT_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const secretOf = (res: LightMyRequestResponse) =>
  /data-testid="totp-secret">([A-Z2-7]+)</.exec(res.body)?.[1];
const csrfOf = (res: LightMyRequestResponse) => /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1] ?? '';
const codeOf = (secret: string, at = Date.now()) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
    timestamp: at,
  });
/** A code of the secret that is certainly wrong now (a step far away). */
const wrongCode = (secret: string) => codeOf(secret, Date.now() - 3600_000);
const unique = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 8)}`;

describe('two-factor: server-made secrets, one use per code, a form again on a wrong code', () => {
  let t: TestApp;
  let merchant: TestMerchant;

  before(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app);
  });
  after(() => t.close());

  describe('console', () => {
    async function enrolPage(lang: 'en' | 'ru' = 'en') {
      const username = unique('tf');
      await admin(t.app, 'POST', '/admin/operators', { username, role: 'payouts', password: PASSWORD });
      const login = await postLogin(t.app, username, PASSWORD);
      assert.equal(login.headers.location, '/backoffice/account/two-factor', login.body);
      const cookie = cookiesOf(login);
      const page = await t.app.inject({
        method: 'GET',
        url: `/backoffice/account/two-factor?lang=${lang}`,
        headers: { cookie },
      });
      const secret = secretOf(page);
      assert.ok(secret, page.body);
      return { username, session: { cookie: `${cookie}; bo_lang=${lang}`, csrf: csrfOf(page) }, secret };
    }

    it('a secret chosen by the client is never taken; a wrong code shows the same form and secret again', async () => {
      const { username, session, secret } = await enrolPage();
      const chosen = await consolePost(t.app, session, '/backoffice/account/two-factor', {
        secret: CLIENT_SECRET,
        code: codeOf(CLIENT_SECRET),
      });
      assert.equal(chosen.statusCode, 400, chosen.body);
      assert.match(chosen.body, /data-testid="totp-code-error"/);
      assert.match(chosen.body, /That code does not match/);
      assert.equal(secretOf(chosen), secret, 'the same secret, not a new one');
      assert.doesNotMatch(chosen.body, /name="secret"/, 'the form carries no secret');
      const reload = await t.app.inject({
        method: 'GET',
        url: '/backoffice/account/two-factor',
        headers: { cookie: session.cookie },
      });
      assert.equal(secretOf(reload), secret, 'going back shows the secret already scanned');
      const done = await consolePost(t.app, session, '/backoffice/account/two-factor', {
        code: await nextCode(secret),
      });
      assert.equal(done.statusCode, 200, done.body);
      assert.match(done.body, /data-testid="recovery-codes"/);
      const withClientSecret = await postLogin(t.app, username, PASSWORD, '127.0.0.1', codeOf(CLIENT_SECRET));
      assert.notEqual(withClientSecret.headers.location, '/backoffice', 'the client’s secret never signs in');
    });

    it('the wrong-code error is in the page’s language', async () => {
      const { session, secret } = await enrolPage('ru');
      const wrong = await consolePost(t.app, session, '/backoffice/account/two-factor', {
        code: wrongCode(secret),
      });
      assert.equal(wrong.statusCode, 400, wrong.body);
      assert.match(wrong.body, /Код не подходит/);
      assert.equal(secretOf(wrong), secret);
    });

    it('a code that enrolled cannot sign in again (good once)', async () => {
      const { username, session, secret } = await enrolPage();
      const code = await nextCode(secret);
      const done = await consolePost(t.app, session, '/backoffice/account/two-factor', { code });
      assert.equal(done.statusCode, 200, done.body);
      const replay = await postLogin(t.app, username, PASSWORD, '127.0.0.1', code);
      assert.notEqual(replay.headers.location, '/backoffice', 'the same code again is refused');
    });
  });

  describe('portal', () => {
    async function invite(role: 'owner' | 'accountant') {
      const email = `${unique('tf')}@example.com`;
      const made = await admin<{ invite_url: string }>(
        t.app,
        'POST',
        `/admin/merchants/${merchant.id}/users`,
        {
          email,
          role,
        },
      );
      const path = new URL(made.invite_url).pathname;
      const page = await t.app.inject({ method: 'GET', url: `${path}?lang=en` });
      assert.equal(page.statusCode, 200, page.body);
      const secret = secretOf(page);
      assert.ok(secret, page.body);
      return { email, path, page, secret };
    }
    const post = (path: string, form: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: path,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(form).toString(),
      });
    const login = (email: string, code: string) => post('/portal/login', { email, password: PASSWORD, code });

    it('labels say the code is required for an owner and optional for others', async () => {
      const owner = await invite('owner');
      assert.match(owner.page.body, /<label for="totp_code">Two-factor code \(6 digits, required\)/);
      assert.match(owner.page.body, /name="totp_code"[^>]*required/);
      const accountant = await invite('accountant');
      assert.match(accountant.page.body, /<label for="totp_code">Two-factor code \(6 digits, optional\)/);
      const loginPage = await t.app.inject({ method: 'GET', url: '/portal/login?lang=en' });
      assert.doesNotMatch(loginPage.body, /if enabled/);
    });

    it('a wrong code or a client’s secret keeps the same form and secret; the right code of it enrols', async () => {
      const { email, path, secret } = await invite('owner');
      const chosen = await post(`${path}?lang=en`, {
        password: PASSWORD,
        totp_secret: CLIENT_SECRET,
        totp_code: codeOf(CLIENT_SECRET),
      });
      assert.equal(chosen.statusCode, 400, chosen.body);
      assert.match(chosen.body, /data-testid="totp-code-error"/);
      assert.match(chosen.body, /That code does not match/);
      assert.equal(secretOf(chosen), secret, 'the same secret again');
      const reload = await t.app.inject({ method: 'GET', url: path });
      assert.equal(secretOf(reload), secret, 'a reload keeps it too');
      const done = await post(path, { password: PASSWORD, totp_code: await nextCode(secret) });
      assert.equal(done.statusCode, 303, done.body);
      assert.equal((await login(email, codeOf(CLIENT_SECRET))).headers.location, '/portal/login?error=login');
    });

    it('a code is good once: the same code twice signs in once', async () => {
      const { email, path, secret } = await invite('owner');
      const created = await post(path, { password: PASSWORD, totp_code: await nextCode(secret) });
      assert.equal(created.statusCode, 303, created.body);
      const code = await nextCode(secret);
      const first = await login(email, code);
      assert.equal(first.headers.location, '/portal/orders', first.body);
      const replay = await login(email, code);
      assert.equal(replay.headers.location, '/portal/login?error=login', 'the replayed code is refused');
    });
  });

  describe('the console dashboard stream', () => {
    /** Opens the SSE stream over a real socket; resolves when the server ends it, with how long it ran. */
    async function openStream(cookie: string): Promise<{ first: Promise<void>; ended: Promise<number> }> {
      if (!t.app.server.listening) await t.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = t.app.server.address() as AddressInfo;
      let firstEvent: () => void = () => undefined;
      const first = new Promise<void>((resolve) => {
        firstEvent = resolve;
      });
      const ended = new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          { host: '127.0.0.1', port, path: '/backoffice/dashboard/stream', headers: { cookie } },
          (res) => {
            assert.equal(res.statusCode, 200);
            let body = '';
            res.on('data', (chunk) => {
              body += String(chunk);
              if (body.includes('event: figures')) firstEvent();
            });
            res.on('end', () => resolve(Date.now()));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end();
      });
      return { first, ended };
    }

    for (const how of ['session revoked', 'operator disabled'] as const) {
      it(`ends within 5 s once the ${how}`, async () => {
        const username = unique('sse');
        await admin(t.app, 'POST', '/admin/operators', { username, role: 'viewer', password: PASSWORD });
        const s = await consoleLogin(t.app, username, PASSWORD);
        const stream = await openStream(s.cookie);
        await stream.first;
        const at = Date.now();
        if (how === 'operator disabled') {
          const res = await adminRaw(t.app, 'PATCH', `/admin/operators/${username}`, { enabled: false });
          assert.equal(res.statusCode, 200, res.body);
        } else {
          const sessions = await admin<Array<{ id: string }>>(
            t.app,
            'GET',
            `/admin/operators/${username}/sessions`,
          );
          for (const one of sessions)
            await admin(t.app, 'POST', `/admin/operators/${username}/sessions/${one.id}/revoke`, {});
        }
        const ms = (await stream.ended) - at;
        assert.ok(ms <= 5000, `the stream ran ${ms} ms after the ${how}`);
      });
    }
  });
});
