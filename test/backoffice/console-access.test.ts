import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  type ConsoleSession,
  consoleLogin,
  consolePost,
  cookiesOf,
  nextCode,
  operatorSecrets,
  postLogin,
} from '../helpers/console.js';
import { admin, adminRaw } from '../helpers/merchant-client.js';

// docs/decisions.md section 32: two-factor for operators (mandatory for admin and payouts), recovery codes, the
// IP allowlist, one session or one API token revoked while the others work, password change.
const PASSWORD = 'a long enough password 23';

describe('console access: two-factor, IP allowlist, sessions and tokens (docs/decisions.md section 32)', () => {
  let t: TestApp;
  const name = (role: string) => `${role}-${randomUUID().slice(0, 8)}`;
  const get = (url: string, cookie: string, ip = '127.0.0.1') =>
    t.app.inject({ method: 'GET', url, headers: { cookie }, remoteAddress: ip });
  const failures = async (username: string) =>
    (
      await admin<Array<{ action: string; after: { reason?: string } }>>(
        t.app,
        'GET',
        `/admin/audit?target_id=${username}&action=operator.login_failed`,
      )
    ).map((e) => e.after.reason);

  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('an admin without two-factor can only enrol; a wrong code is refused; then recovery codes once', async () => {
    const username = name('admin');
    await admin(t.app, 'POST', '/admin/operators', { username, role: 'admin', password: PASSWORD });
    const res = await postLogin(t.app, username, PASSWORD);
    assert.equal(res.headers.location, '/backoffice/account/two-factor');
    const cookie = cookiesOf(res);
    for (const url of ['/backoffice/orders', '/backoffice/dashboard', '/backoffice/account']) {
      const held = await get(url, cookie);
      assert.deepEqual(
        [held.statusCode, held.headers.location],
        [303, '/backoffice/account/two-factor'],
        url,
      );
    }
    const enrol = await get('/backoffice/account/two-factor', cookie);
    assert.match(enrol.body, /data-testid="mfa-required"/);
    assert.match(enrol.body, /<img src="data:image\/png;base64,/);
    const secret = /data-testid="totp-secret">([A-Z2-7]+)</.exec(enrol.body)?.[1] ?? '';
    const csrf = /name="_csrf" value="([^"]+)"/.exec(enrol.body)?.[1] ?? '';
    const session: ConsoleSession = { cookie, csrf };
    const wrong = await consolePost(t.app, session, '/backoffice/account/two-factor', { code: '000000' });
    assert.equal(wrong.statusCode, 400, wrong.body);
    // The form again, with the same secret and the error (docs/decisions.md section 38).
    assert.match(wrong.body, /data-testid="totp-code-error"/);
    assert.equal(/data-testid="totp-secret">([A-Z2-7]+)</.exec(wrong.body)?.[1], secret);
    const done = await consolePost(t.app, session, '/backoffice/account/two-factor', {
      code: await nextCode(secret),
    });
    assert.equal(done.statusCode, 200, done.body);
    const codes = [...done.body.matchAll(/<li>([a-z2-9]{5}-[a-z2-9]{5})<\/li>/g)].map((m) => m[1] ?? '');
    assert.equal(codes.length, 10, done.body);
    assert.equal((await get('/backoffice/orders', cookie)).statusCode, 200, 'the session is a full one now');
    const view = await admin<Array<{ username: string; two_factor: boolean }>>(
      t.app,
      'GET',
      '/admin/operators',
    );
    assert.equal(view.find((o) => o.username === username)?.two_factor, true);
    operatorSecrets.set(username, secret);

    // The next sign-in needs a code; a code is good once; a recovery code once. (From an address of
    // this test's own: the wrong-password throttle counts failures per IP.)
    const ip = '10.23.1.1';
    assert.equal(
      (await postLogin(t.app, username, PASSWORD, ip)).headers.location,
      '/backoffice/login?error=invalid',
    );
    const code = await nextCode(secret);
    assert.equal((await postLogin(t.app, username, PASSWORD, ip, code)).headers.location, '/backoffice');
    const replay = await postLogin(t.app, username, PASSWORD, ip, code);
    assert.equal(replay.headers.location, '/backoffice/login?error=invalid', 'a code replayed');
    const recovery = codes[0] ?? '';
    assert.equal(
      (await postLogin(t.app, username, PASSWORD, ip, recovery.toUpperCase())).headers.location,
      '/backoffice',
    );
    assert.equal(
      (await postLogin(t.app, username, PASSWORD, ip, recovery)).headers.location,
      '/backoffice/login?error=invalid',
      'a recovery code used twice',
    );
    const reasons = await failures(username);
    assert.ok(
      reasons.includes('code_required') && reasons.filter((r) => r === 'wrong_code').length === 2,
      String(reasons),
    );
  });

  it('support may work without two-factor; an admin resets a lost phone after a confirmation', async () => {
    const username = name('payouts');
    await admin(t.app, 'POST', '/admin/operators', { username, role: 'payouts', password: PASSWORD });
    await consoleLogin(t.app, username, PASSWORD); // enrols, as payouts must
    const support = name('support');
    await admin(t.app, 'POST', '/admin/operators', {
      username: support,
      role: 'support',
      password: PASSWORD,
    });
    assert.equal((await postLogin(t.app, support, PASSWORD)).headers.location, '/backoffice');
    const boss = name('admin');
    await admin(t.app, 'POST', '/admin/operators', { username: boss, role: 'admin', password: PASSWORD });
    const s = await consoleLogin(t.app, boss, PASSWORD);
    const ask = await consolePost(t.app, s, `/backoffice/operators/${username}/two-factor/reset`, {});
    assert.equal(ask.statusCode, 200);
    assert.match(ask.body, /data-testid="confirm-changes"/);
    assert.match(ask.body, /Every session of theirs ends now/);
    const ops = await admin<Array<{ username: string; two_factor: boolean }>>(
      t.app,
      'GET',
      '/admin/operators',
    );
    assert.equal(
      ops.find((o) => o.username === username)?.two_factor,
      true,
      'nothing changed before the confirmation',
    );
    const done = await consolePost(t.app, s, `/backoffice/operators/${username}/two-factor/reset`, {
      confirmed: 'yes',
    });
    assert.equal(done.statusCode, 303, done.body);
    const after = await admin<Array<{ username: string; two_factor: boolean }>>(
      t.app,
      'GET',
      '/admin/operators',
    );
    assert.equal(after.find((o) => o.username === username)?.two_factor, false);
    assert.equal(
      (await postLogin(t.app, username, PASSWORD)).headers.location,
      '/backoffice/account/two-factor',
      'enrolment again at the next sign-in',
    );
  });

  it('IP allowlist: sign-in, sessions and API tokens only from the allowed ranges; bad entries refused', async () => {
    const username = name('support');
    await admin(t.app, 'POST', '/admin/operators', { username, role: 'support', password: PASSWORD });
    const token = (
      await admin<{ token: string }>(t.app, 'POST', `/admin/operators/${username}/tokens`, { name: 'ci' })
    ).token;
    const session = cookiesOf(await postLogin(t.app, username, PASSWORD, '10.1.2.3'));
    const bad = await adminRaw(t.app, 'PATCH', `/admin/operators/${username}`, {
      ip_allowlist: ['10.0.0.0/33'],
    });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.match(bad.body, /ip_allowlist/);
    const set = await admin<{ ip_allowlist: string[] }>(t.app, 'PATCH', `/admin/operators/${username}`, {
      ip_allowlist: ['10.0.0.0/8', ' 192.0.2.7 '],
    });
    assert.deepEqual(set.ip_allowlist, ['10.0.0.0/8', '192.0.2.7']);
    assert.equal(
      (await postLogin(t.app, username, PASSWORD, '203.0.113.5')).headers.location,
      '/backoffice/login?error=invalid',
    );
    assert.ok((await failures(username)).includes('ip_not_allowed'));
    assert.equal((await postLogin(t.app, username, PASSWORD, '10.9.9.9')).headers.location, '/backoffice');
    assert.equal((await get('/backoffice/orders', session, '10.1.2.3')).statusCode, 200);
    assert.equal(
      (await get('/backoffice/orders', session, '203.0.113.5')).headers.location,
      '/backoffice/login',
    );
    const api = (ip: string) =>
      t.app.inject({
        url: '/admin/orders',
        headers: { authorization: `Bearer ${token}` },
        remoteAddress: ip,
      });
    assert.equal((await api('10.0.0.1')).statusCode, 200);
    assert.equal((await api('198.51.100.1')).statusCode, 401);
  });

  it('one API token revoked: refused while the other works; one session ended: the other stays', async () => {
    const username = name('support');
    await admin(t.app, 'POST', '/admin/operators', { username, role: 'support', password: PASSWORD });
    const issue = (n: string) =>
      admin<{ id: string; token: string }>(t.app, 'POST', `/admin/operators/${username}/tokens`, { name: n });
    const [one, two] = [await issue('one'), await issue('two')];
    const call = (token: string) =>
      t.app.inject({ url: '/admin/orders', headers: { authorization: `Bearer ${token}` } });
    const revoked = await adminRaw(t.app, 'POST', `/admin/operators/${username}/tokens/${one.id}/revoke`);
    assert.equal(revoked.statusCode, 200, revoked.body);
    assert.equal((await call(one.token)).statusCode, 401);
    assert.equal((await call(two.token)).statusCode, 200);
    const list = await admin<Array<{ name: string; revoked_at: string | null }>>(
      t.app,
      'GET',
      `/admin/operators/${username}/tokens`,
    );
    assert.deepEqual(list.map((k) => [k.name, k.revoked_at !== null]).sort(), [
      ['one', true],
      ['two', false],
    ]);
    assert.equal(
      (await adminRaw(t.app, 'POST', `/admin/operators/${username}/tokens/${one.id}/revoke`)).statusCode,
      404,
    );
    assert.equal(
      (await adminRaw(t.app, 'POST', `/admin/operators/nobody/tokens/${two.id}/revoke`)).statusCode,
      404,
    );

    const a = await consoleLogin(t.app, username, PASSWORD);
    const b = await consoleLogin(t.app, username, PASSWORD);
    const page = await get('/backoffice/account', a.cookie);
    assert.match(page.body, /this session/);
    const sessions = await admin<Array<{ id: string }>>(
      t.app,
      'GET',
      `/admin/operators/${username}/sessions`,
    );
    assert.equal(sessions.length, 2);
    const other = [...page.body.matchAll(/account\/sessions\/([0-9a-f-]{36})\/revoke/g)].map((m) => m[1]);
    assert.equal(other.length, 1, 'only the other session has an End button');
    const end = await consolePost(t.app, a, `/backoffice/account/sessions/${other[0]}/revoke`, {});
    assert.equal(end.statusCode, 303, end.body);
    assert.equal((await get('/backoffice/orders', b.cookie)).headers.location, '/backoffice/login');
    assert.equal((await get('/backoffice/orders', a.cookie)).statusCode, 200);
    // An admin token never reaches another operator's session by guessing: not theirs is 404.
    const stray = await adminRaw(
      t.app,
      'POST',
      `/admin/operators/${username}/sessions/${randomUUID()}/revoke`,
    );
    assert.equal(stray.statusCode, 404);
  });

  it('password change needs the current password and ends the other sessions', async () => {
    const username = name('support');
    await admin(t.app, 'POST', '/admin/operators', { username, role: 'support', password: PASSWORD });
    const a = await consoleLogin(t.app, username, PASSWORD);
    const b = await consoleLogin(t.app, username, PASSWORD);
    const next = 'another long password 23';
    const wrong = await consolePost(t.app, a, '/backoffice/account/password', {
      current_password: 'not it at all',
      new_password: next,
      repeat_password: next,
    });
    assert.match(String(wrong.headers.location), /error=VALIDATION_ERROR.*current_password/);
    const mismatch = await consolePost(t.app, a, '/backoffice/account/password', {
      current_password: PASSWORD,
      new_password: next,
      repeat_password: `${next}!`,
    });
    assert.match(String(mismatch.headers.location), /repeat_password/);
    const ok = await consolePost(t.app, a, '/backoffice/account/password', {
      current_password: PASSWORD,
      new_password: next,
      repeat_password: next,
    });
    assert.match(String(ok.headers.location), /msg=passwordChanged/);
    assert.equal((await get('/backoffice/orders', a.cookie)).statusCode, 200, 'this session stays');
    assert.equal((await get('/backoffice/orders', b.cookie)).headers.location, '/backoffice/login');
    assert.equal(
      (await postLogin(t.app, username, PASSWORD, '10.23.2.1')).headers.location,
      '/backoffice/login?error=invalid',
    );
    assert.equal((await postLogin(t.app, username, next, '10.23.2.1')).headers.location, '/backoffice');
  });

  it('the operator chooses the time zone times are shown in; an unknown zone is refused', async () => {
    const username = name('support');
    await admin(t.app, 'POST', '/admin/operators', { username, role: 'support', password: PASSWORD });
    const s = await consoleLogin(t.app, username, PASSWORD);
    const bad = await consolePost(t.app, s, '/backoffice/account/time-zone', { tz: 'Mars/Olympus' });
    assert.equal(bad.statusCode, 400);
    const set = await consolePost(t.app, s, '/backoffice/account/time-zone', { tz: 'Europe/Moscow' });
    assert.equal(set.statusCode, 303);
    assert.match(
      String(set.headers['set-cookie']),
      /^bo_tz=Europe%2FMoscow; Max-Age=31536000; Path=\/backoffice; HttpOnly; SameSite=Strict/,
    );
    const page = await get('/backoffice/account', `${s.cookie}; bo_tz=Europe/Moscow`);
    const shown = /<time datetime="([^"]+)" title="[^"]+">([^<]+)<\/time>/.exec(page.body);
    assert.ok(shown, page.body.slice(0, 500));
    const utc = new Date(shown[1] ?? '');
    const moscow = new Date(utc.getTime() + 3 * 3600_000).toISOString().slice(0, 16).replace('T', ' ');
    assert.equal(shown[2], moscow);
    assert.match(page.body, /<option selected>Europe\/Moscow<\/option>/);
  });

  it("an admin sets the payment form's name, logo and return URL on the merchant page; a bad URL is refused", async () => {
    const username = name('admin');
    await admin(t.app, 'POST', '/admin/operators', { username, role: 'admin', password: PASSWORD });
    const s = await consoleLogin(t.app, username, PASSWORD);
    const merchantId = `m_${randomUUID().slice(0, 8)}`;
    await admin(t.app, 'POST', '/admin/merchants', { merchant_id: merchantId });
    const page = await get(`/backoffice/merchants/${merchantId}`, s.cookie);
    assert.match(page.body, /name="display_name"/);
    const bad = await consolePost(t.app, s, `/backoffice/merchants/${merchantId}`, {
      logo_url: 'http://cdn.example/l.png',
    });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /data-testid="flash-error">Invalid input\. logo_url: /);
    assert.match(bad.body, /name="logo_url" type="url" value="http:\/\/cdn\.example\/l\.png"/, 'kept');
    const ok = await consolePost(t.app, s, `/backoffice/merchants/${merchantId}`, {
      display_name: 'Кофейня',
      logo_url: 'https://cdn.example/l.png',
      return_url: 'https://shop.example/back',
    });
    assert.match(String(ok.headers.location), /msg=/);
    const m = await admin<Record<string, unknown>>(t.app, 'GET', `/admin/merchants/${merchantId}`);
    assert.deepEqual(
      [m.display_name, m.logo_url, m.return_url],
      ['Кофейня', 'https://cdn.example/l.png', 'https://shop.example/back'],
    );
  });
});
