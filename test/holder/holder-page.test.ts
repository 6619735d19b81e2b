import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { consoleLogin, cookiesOf, nextCode } from '../helpers/console.js';
import { multipartBody, pngFile } from '../helpers/files.js';
import { addRequisite, admin, adminRaw, createMerchant, createOrder } from '../helpers/merchant-client.js';
import { pairDevice } from '../helpers/phones.js';

const PASSWORD = 'a long enough holder passphrase';

interface Session {
  cookie: string;
  csrf: string;
}

/** `YYYY-MM-DDTHH:MM` in Moscow time, as the report form's datetime-local input sends it. */
function moscowLocal(at: Date): string {
  return new Date(at.getTime() + 3 * 3600_000).toISOString().slice(0, 16);
}

// docs/decisions.md "The holder's own page": invitation, password, mandatory TOTP, then a page that
// shows and acts on the holder's own things only; a report goes to review and credits nothing.
describe("holder's own page: sign-in, own requisites, missed-payment report", () => {
  let t: TestApp;
  let holderA: { id: string };
  let holderB: { id: string };
  let reqA: { id: string };
  let reqB: { id: string };
  let orderId: string;
  let secret = '';
  let login = '';
  let session: Session;

  const form = (url: string, cookie: string, fields: Record<string, string>) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
    });
  const csrfOf = (res: LightMyRequestResponse) => /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1] ?? '';

  async function signIn(code: string) {
    const page = await t.app.inject({ method: 'GET', url: '/holder/login' });
    const cookie = cookiesOf(page);
    return form('/holder/login', cookie, { _csrf: csrfOf(page), login, password: PASSWORD, code });
  }

  const holderOf = (id: string) =>
    admin<{ requisites: { id: string; paused_reason: string | null }[]; books: { held: string } }>(
      t.app,
      'GET',
      `/admin/holders/${id}`,
    );
  const reviewItems = async () =>
    (
      await admin<
        { id: string; reason: string | null; requisite_id: string | null; amount: string | null }[]
      >(t.app, 'GET', '/admin/device-events?status=review&limit=500')
    ).filter((e) => e.reason === 'holder_report');

  before(async () => {
    t = await startTestApp();
    holderA = await admin(t.app, 'POST', '/admin/holders', { name: 'Holder A (synthetic)' });
    holderB = await admin(t.app, 'POST', '/admin/holders', { name: 'Holder B (synthetic)' });
    // A band no other test's amounts fall in (9131..9139 RUB), and B's takes no order at all.
    reqA = await addRequisite(t.app, { min_amount: '9131', max_amount: '9139' });
    reqB = await addRequisite(t.app, { max_amount: '1' });
    await admin(t.app, 'PUT', `/admin/holders/${holderA.id}/requisites`, { requisite_ids: [reqA.id] });
    await admin(t.app, 'PUT', `/admin/holders/${holderB.id}/requisites`, { requisite_ids: [reqB.id] });
    await pairDevice(t.app, [reqA.id]);
    const merchant = await createMerchant(t.app);
    const order = await createOrder(t.app, merchant, { amount: 9135 });
    assert.equal(order.statusCode, 200, order.body);
    orderId = (order.json() as { id: string }).id;
    login = `holder-${randomUUID().slice(0, 8)}`;
  });
  after(async () => {
    await t?.close();
  });

  it('an invitation enrols TOTP before any account exists; a wrong code makes none', async () => {
    const invite = await admin<{ invite_url: string; login: string }>(
      t.app,
      'POST',
      `/admin/holders/${holderA.id}/invitations`,
      { login },
    );
    assert.equal(invite.login, login);
    const path = new URL(invite.invite_url).pathname;
    const page = await t.app.inject({ method: 'GET', url: path });
    assert.equal(page.statusCode, 200, page.body);
    assert.match(String(page.headers['content-security-policy']), /script-src 'none'/);
    secret = /data-testid="totp-secret">([A-Z2-7]+)</.exec(page.body)?.[1] ?? '';
    assert.ok(secret, 'the page shows the key beside its QR');

    const wrong = await form(path, '', { password: PASSWORD, totp_code: '000000' });
    assert.equal(wrong.statusCode, 400, wrong.body);
    assert.match(wrong.body, /data-testid="totp-code-error"/);
    assert.ok(wrong.body.includes(secret), 'the same key is shown again');
    const noCode = await form(path, '', { password: PASSWORD });
    assert.equal(noCode.statusCode, 400, 'no code, no account: TOTP is mandatory');
    assert.equal((await signIn('123456')).headers.location, '/holder/login?error=login', 'no account yet');

    const done = await form(path, '', { password: PASSWORD, totp_code: await nextCode(secret) });
    assert.equal(done.statusCode, 303, done.body);
    assert.equal(done.headers.location, '/holder/login?msg=created');
    const again = await t.app.inject({ method: 'GET', url: path });
    assert.equal(again.statusCode, 404, 'the link is used once');
  });

  it('sign-in needs the password and a current code; then the page shows the holder’s own things', async () => {
    const anonymous = await t.app.inject({ method: 'GET', url: '/holder' });
    assert.equal(anonymous.statusCode, 303);
    assert.equal(anonymous.headers.location, '/holder/login');
    const badCode = await signIn('000000');
    assert.equal(badCode.headers.location, '/holder/login?error=login', 'a wrong TOTP code is refused');
    const noCsrf = await form('/holder/login', '', { login, password: PASSWORD, code: '000000' });
    assert.equal(noCsrf.statusCode, 403, 'the sign-in form has its double-submit token');

    const ok = await signIn(await nextCode(secret));
    assert.equal(ok.headers.location, '/holder', ok.body);
    const cookie = cookiesOf(ok);
    const home = await t.app.inject({ method: 'GET', url: '/holder?lang=en', headers: { cookie } });
    assert.equal(home.statusCode, 200, home.body);
    session = { cookie, csrf: csrfOf(home) };
    assert.match(home.body, /Holder A \(synthetic\)/);
    assert.ok(home.body.includes(reqA.id), 'their requisite is listed');
    assert.ok(!home.body.includes(reqB.id), "another holder's requisite is not");
    assert.match(home.body, /data-testid="phones"[\s\S]*phone-/, 'the phone bound to their requisite');
    assert.match(home.body, /9[\s ,.]?135/, "today's order on their requisite");
  });

  it('pauses and resumes only their own requisite; CSRF is enforced', async () => {
    const url = (id: string, action: string) => `/holder/requisites/${id}/${action}`;
    const forged = await form(url(reqA.id, 'pause'), session.cookie, {});
    assert.equal(forged.statusCode, 403, 'no CSRF token, nothing done');
    assert.equal((await holderOf(holderA.id)).requisites[0]?.paused_reason, null);

    const theirs = await form(url(reqB.id, 'pause'), session.cookie, { _csrf: session.csrf });
    assert.equal(theirs.statusCode, 403, theirs.body);
    assert.match(theirs.body, /data-testid="error-code">NOT_YOUR_REQUISITE</);
    assert.equal((await holderOf(holderB.id)).requisites[0]?.paused_reason, null, 'nothing written');

    const paused = await form(url(reqA.id, 'pause'), session.cookie, { _csrf: session.csrf });
    assert.equal(paused.statusCode, 303, paused.body);
    assert.equal((await holderOf(holderA.id)).requisites[0]?.paused_reason, 'own');
    const resumed = await form(url(reqA.id, 'resume'), session.cookie, { _csrf: session.csrf });
    assert.equal(resumed.statusCode, 303, resumed.body);
    assert.equal((await holderOf(holderA.id)).requisites[0]?.paused_reason, null);

    // A pause for the holder's standing (here: holding more than their limit) is not theirs to
    // lift; their own pause yields to it. (A suspension signs them out altogether.)
    await admin(t.app, 'POST', `/admin/holders/${holderA.id}/corrections`, { amount: '500', reason: 'test' });
    await admin(t.app, 'PATCH', `/admin/holders/${holderA.id}`, { exposure_limit: '100' });
    assert.equal((await holderOf(holderA.id)).requisites[0]?.paused_reason, 'holder');
    const notTheirs = await form(url(reqA.id, 'resume'), session.cookie, { _csrf: session.csrf });
    assert.equal(notTheirs.statusCode, 409, notTheirs.body);
    assert.match(notTheirs.body, /data-testid="error-code">REQUISITE_PAUSED_BY_OPERATOR</);
    await admin(t.app, 'PATCH', `/admin/holders/${holderA.id}`, { exposure_limit: null });
    assert.equal((await holderOf(holderA.id)).requisites[0]?.paused_reason, null);

    // A requisite of nobody's (or that does not exist) is refused the same way.
    const stranger = await form(url(randomUUID(), 'resume'), session.cookie, { _csrf: session.csrf });
    assert.equal(stranger.statusCode, 403);
  });

  it('a missed-payment report goes to review with its reason and credits nothing; bad input writes nothing', async () => {
    const heldBefore = (await holderOf(holderA.id)).books.held;
    const before = (await reviewItems()).length;
    const post = (fields: Record<string, string>, file?: Buffer, type = 'image/png') => {
      const { body, contentType } = multipartBody(
        fields,
        file ? { field: 'receipt', filename: 'receipt.png', contentType: type, data: file } : undefined,
      );
      return t.app.inject({
        method: 'POST',
        url: '/holder/report',
        headers: { cookie: session.cookie, 'content-type': contentType },
        payload: body,
      });
    };
    const good = {
      _csrf: session.csrf,
      requisite_id: reqA.id,
      amount: '9135',
      received_at: moscowLocal(new Date(Date.now() - 60_000)),
      note: 'came in, phone silent',
    };
    const refusals: [Record<string, string>, Buffer | undefined, number, string][] = [
      [{ ...good, _csrf: '' }, undefined, 403, 'FORBIDDEN'],
      [{ ...good, amount: '-5' }, undefined, 400, 'INVALID_AMOUNT'],
      [{ ...good, amount: 'abc' }, undefined, 400, 'INVALID_AMOUNT'],
      [{ ...good, requisite_id: reqB.id }, undefined, 403, 'NOT_YOUR_REQUISITE'],
      [{ ...good, received_at: 'yesterday' }, undefined, 400, 'VALIDATION_ERROR'],
      [good, Buffer.from('just some text, not an image'), 400, 'RECEIPT_UNSUPPORTED_FORMAT'],
    ];
    for (const [fields, file, status, code] of refusals) {
      const res = await post(fields, file);
      assert.equal(res.statusCode, status, `${code}: ${res.body}`);
      assert.ok(res.body.includes(`>${code}<`), `${code}: ${res.body}`);
    }
    assert.equal((await reviewItems()).length, before, 'no refused report was written');

    const sent = await post(good, pngFile());
    assert.equal(sent.statusCode, 303, sent.body);
    assert.equal(sent.headers.location, '/holder?msg=reported');
    const items = await reviewItems();
    assert.equal(items.length, before + 1);
    const item = items.find((e) => e.requisite_id === reqA.id);
    assert.equal(item?.amount, '9135');

    const order = await adminRaw(t.app, 'GET', `/admin/orders/${orderId}`);
    assert.equal(
      (order.json() as { data: { status: string } }).data.status,
      'pending',
      'the order is untouched',
    );
    assert.equal((await holderOf(holderA.id)).books.held, heldBefore, 'no ledger entry');
  });

  it('the statement and its CSV are the holder’s own', async () => {
    const page = await t.app.inject({
      method: 'GET',
      url: '/holder/statement',
      headers: { cookie: session.cookie },
    });
    assert.equal(page.statusCode, 200, page.body);
    const csv = await t.app.inject({
      method: 'GET',
      url: '/holder/statement.csv',
      headers: { cookie: session.cookie },
    });
    assert.equal(csv.statusCode, 200, csv.body);
    assert.match(csv.body.split('\n')[0] ?? '', /^id,created_at,kind,order_id,memo,amount,balance/);
  });

  it('the console invites from the holder’s page, and shows a report in review with its receipt', async () => {
    const user = { username: `adm-${randomUUID().slice(0, 6)}`, password: 'a long enough password 19' };
    await admin(t.app, 'POST', '/admin/operators', { ...user, role: 'admin' });
    const operator = await consoleLogin(t.app, user.username, user.password);
    const page = await t.app.inject({
      method: 'GET',
      url: `/backoffice/holders/${holderB.id}`,
      headers: { cookie: operator.cookie },
    });
    assert.match(page.body, /data-testid="invite-form"/);
    const res = await form(`/backoffice/holders/${holderB.id}/invitations`, operator.cookie, {
      _csrf: operator.csrf,
      login: `b-${randomUUID().slice(0, 8)}`,
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.body, /data-testid="invite-url">http[^<]*\/holder\/invite\/[A-Za-z0-9_-]+</);

    // The report waits in the review queue with its reason in words and the holder's receipt.
    const queue = await t.app.inject({
      method: 'GET',
      url: '/backoffice/device-events?status=review&lang=en',
      headers: { cookie: operator.cookie },
    });
    assert.match(queue.body, /The holder reports a payment their phone missed/);
    const report = (await reviewItems()).find((e) => e.requisite_id === reqA.id);
    assert.ok(report && queue.body.includes(`/backoffice/holder-reports/${report.id}/receipt`), queue.body);
    const file = await t.app.inject({
      method: 'GET',
      url: `/backoffice/holder-reports/${report?.id}/receipt`,
      headers: { cookie: operator.cookie },
    });
    assert.equal(file.statusCode, 200, file.body);
    assert.equal(file.headers['content-type'], 'image/png');
  });
});
