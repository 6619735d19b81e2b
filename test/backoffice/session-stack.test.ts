import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type ConsoleSession, consoleLogin, consolePost, postLogin } from '../helpers/console.js';
import { addRequisite, admin, createMerchant, createOrder } from '../helpers/merchant-client.js';

/** The Set-Cookie line of `name` in an answer. */
function setCookie(res: { headers: Record<string, unknown> }, name: string): string {
  const raw = res.headers['set-cookie'];
  const lines = Array.isArray(raw) ? raw.map(String) : [String(raw ?? '')];
  return lines.find((l) => l.startsWith(`${name}=`)) ?? '';
}

// docs/architecture.md "Session stack": one implementation of sessions, CSRF, form schemas and the
// sign-in throttle for the console and the portal.
describe('the session stack the console and the portal share', () => {
  let t: TestApp;
  const sessions: Record<string, ConsoleSession> = {};
  let orderId: string;

  before(async () => {
    t = await startTestApp();
    for (const role of ['admin', 'viewer']) {
      const user = { username: `${role}-${randomUUID().slice(0, 8)}`, password: `pw-${randomUUID()}` };
      await admin(t.app, 'POST', '/admin/operators', { ...user, role });
      sessions[role] = await consoleLogin(t.app, user.username, user.password);
    }
    const merchant = await createMerchant(t.app, { payment_types: ['card_pdf'] });
    await addRequisite(t.app, { kind: 'card', address: `2200${String(Date.now()).slice(-12)}` });
    const created = await createOrder(t.app, merchant, { type: 'card_pdf', amount: 1700 });
    assert.equal(created.statusCode, 200, created.body);
    orderId = created.json().id;
  });
  after(async () => t.close());

  it('the console session cookie is HttpOnly, SameSite=Strict, on /backoffice only', async () => {
    const user = { username: `support-${randomUUID().slice(0, 8)}`, password: `pw-${randomUUID()}` };
    await admin(t.app, 'POST', '/admin/operators', { ...user, role: 'support' });
    const res = await postLogin(t.app, user.username, user.password, '127.0.0.61');
    assert.equal(res.statusCode, 303, res.body);
    const cookie = setCookie(res, 'bo_session');
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    assert.match(cookie, /Path=\/backoffice(;|$)/);
    assert.doesNotMatch(cookie, /Secure/, 'plain HTTP: no Secure attribute');
  });

  it('a form field over its schema bound is a 400 page naming the field, never a 500', async () => {
    const session = sessions.admin;
    assert.ok(session);
    const res = await consolePost(t.app, session, `/backoffice/orders/${orderId}/confirm`, {
      tx_hash: 'a'.repeat(300),
    });
    assert.equal(res.statusCode, 400, res.body.slice(0, 300));
    assert.match(String(res.headers['content-type']), /text\/html/);
    assert.match(res.body, /tx_hash/);
  });

  it('a role without the permission gets 403 before the schema looks at the form', async () => {
    const session = sessions.viewer;
    assert.ok(session);
    const res = await consolePost(t.app, session, `/backoffice/orders/${orderId}/confirm`, {
      tx_hash: 'a'.repeat(300),
    });
    assert.equal(res.statusCode, 403, res.body.slice(0, 300));
  });

  it('a post without the session’s CSRF token is 403 on either surface’s guarded pages', async () => {
    const session = sessions.admin;
    assert.ok(session);
    const res = await t.app.inject({
      method: 'POST',
      url: `/backoffice/orders/${orderId}/cancel`,
      headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'reason=x&confirmed=yes',
    });
    assert.equal(res.statusCode, 403, res.body.slice(0, 300));
    const order = await admin<{ status: string }>(t.app, 'GET', `/admin/orders/${orderId}`);
    assert.equal(order.status, 'pending');
  });

  it('a multipart post to a form route is refused (its CSRF field is not read from parts)', async () => {
    const session = sessions.admin;
    assert.ok(session);
    const boundary = 'x-boundary';
    const res = await t.app.inject({
      method: 'POST',
      url: `/backoffice/orders/${orderId}/cancel`,
      headers: { cookie: session.cookie, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: `--${boundary}\r\ncontent-disposition: form-data; name="_csrf"\r\n\r\n${session.csrf}\r\n--${boundary}--\r\n`,
    });
    assert.ok([403, 415].includes(res.statusCode), `${res.statusCode} ${res.body.slice(0, 200)}`);
  });

  it('the portal: a sign-in form over its bounds is a 400 page; its cookie path is /portal', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/portal/login',
      remoteAddress: '127.0.0.62',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ email: `${'a'.repeat(300)}@x.ru`, password: 'x', code: '' }).toString(),
    });
    assert.equal(res.statusCode, 400, res.body.slice(0, 300));
    assert.match(String(res.headers['content-type']), /text\/html/);
    const guarded = await t.app.inject({ method: 'GET', url: '/portal/orders' });
    assert.equal(guarded.statusCode, 303);
    assert.equal(guarded.headers.location, '/portal/login');
  });

  it('both sign-in forms are throttled alike: five failures, then 429 with Retry-After', async () => {
    for (let i = 0; i < 5; i++) {
      const portal = await t.app.inject({
        method: 'POST',
        url: '/portal/login',
        remoteAddress: '127.0.0.63',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ email: 'nobody@example.com', password: 'wrong', code: '' }).toString(),
      });
      assert.equal(portal.statusCode, 303);
      const console = await postLogin(t.app, 'nobody', 'wrong', '127.0.0.64');
      assert.equal(console.statusCode, 303);
    }
    const portal = await t.app.inject({
      method: 'POST',
      url: '/portal/login',
      remoteAddress: '127.0.0.63',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ email: 'nobody@example.com', password: 'wrong', code: '' }).toString(),
    });
    assert.equal(portal.statusCode, 429);
    assert.ok(Number(portal.headers['retry-after']) >= 1);
    const console = await postLogin(t.app, 'nobody', 'wrong', '127.0.0.64');
    assert.equal(console.statusCode, 429);
  });
});
