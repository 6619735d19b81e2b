import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import { consoleLogin, cookiesOf, nextCode } from '../helpers/console.js';
import { multipartBody, pdfFile } from '../helpers/files.js';
import {
  addRequisite,
  admin,
  adminRaw,
  createMerchant,
  createOrder,
  merchantRequest,
} from '../helpers/merchant-client.js';
import { pairDevice } from '../helpers/phones.js';

const PASSWORD = 'a long enough holder passphrase';

// docs/decisions.md "Payouts on the holder's page": a PAYOUT given to a holder is sent by them from
// their page with a receipt, through the payouts rail's holder path; refusals write nothing. An
// operator disables a holder's account (its sessions end at once); a suspended holder signs in no more.
describe("holder's page: payouts to send, and operators' control of holders' accounts", () => {
  let t: TestApp;
  let mine: { id: string };
  let other: { id: string };
  let login = '';
  let secret = '';
  let cookie = '';
  let csrf = '';
  // The service reads two-factor codes at this clock's time: a sign-in that needs the next 30 s step
  // moves it there (nextCode) instead of waiting for it.
  const clock = manualClock();

  const csrfOf = (res: LightMyRequestResponse) => /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1] ?? '';
  const form = (url: string, c: string, fields: Record<string, string>) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { cookie: c, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
    });
  const get = (url: string, c = cookie) => t.app.inject({ method: 'GET', url, headers: { cookie: c } });

  async function signIn() {
    const page = await t.app.inject({ method: 'GET', url: '/holder/login' });
    const res = await form('/holder/login', cookiesOf(page), {
      _csrf: csrfOf(page),
      login,
      password: PASSWORD,
      code: await nextCode(secret, clock),
    });
    return { res, cookie: cookiesOf(res) };
  }

  async function payout(amount: number) {
    const merchant = await createMerchant(t.app);
    await admin(t.app, 'POST', `/admin/merchants/${merchant.id}/ledger-adjustments`, {
      currency: 'RUB',
      amount: amount * 2,
      reason: 'funding',
    });
    const res = await merchantRequest(t.app, merchant, '/merchant/createOrder', {
      body: {
        merchant_id: merchant.id,
        direction: 'PAYOUT',
        type: 'card',
        amount,
        payout_details: {
          holderAccount: '2200123412341234',
          holderName: 'Synthetic Recipient',
          methodName: 'Sberbank',
        },
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { id: string }).id;
  }

  const send = (id: string, fields: Record<string, string>, file?: { data: Buffer; type: string }) => {
    const { body, contentType } = multipartBody(
      fields,
      file ? { field: 'receipt', filename: 'receipt', contentType: file.type, data: file.data } : undefined,
    );
    return t.app.inject({
      method: 'POST',
      url: `/holder/payouts/${id}/sent`,
      headers: { cookie, 'content-type': contentType },
      payload: body,
    });
  };
  const books = async (id: string) =>
    (await admin<{ books: { held: string; paid_out: string } }>(t.app, 'GET', `/admin/holders/${id}`)).books;
  const orderStatus = async (id: string) =>
    (await admin<{ status: string }>(t.app, 'GET', `/admin/orders/${id}`)).status;
  const expectRefusal = (res: LightMyRequestResponse, status: number, code: string) => {
    assert.equal(res.statusCode, status, `${code}: ${res.body}`);
    assert.ok(res.body.includes(`data-testid="error-code">${code}<`), `${code}: ${res.body}`);
  };

  before(async () => {
    t = await startTestApp({ clock });
    mine = await admin(t.app, 'POST', '/admin/holders', {
      name: 'Payer holder (synthetic)',
      payouts_allowed: true,
    });
    other = await admin(t.app, 'POST', '/admin/holders', {
      name: 'Other payer (synthetic)',
      payouts_allowed: true,
    });
    await admin(t.app, 'POST', `/admin/holders/${mine.id}/corrections`, {
      amount: '5000',
      reason: 'opening',
    });
    login = `payer-${randomUUID().slice(0, 8)}`;
    const invite = await admin<{ invite_url: string }>(
      t.app,
      'POST',
      `/admin/holders/${mine.id}/invitations`,
      {
        login,
      },
    );
    const path = new URL(invite.invite_url).pathname;
    const page = await t.app.inject({ method: 'GET', url: path });
    secret = /data-testid="totp-secret">([A-Z2-7]+)</.exec(page.body)?.[1] ?? '';
    const done = await form(path, '', { password: PASSWORD, totp_code: await nextCode(secret, clock) });
    assert.equal(done.statusCode, 303, done.body);
    const signed = await signIn();
    assert.equal(signed.res.headers.location, '/holder', signed.res.body);
    cookie = signed.cookie;
    csrf = csrfOf(await get('/holder'));
  });
  after(async () => {
    await t?.close();
  });

  it('a payout given to the holder: seen, marked sent with a receipt; the order succeeds and held drops', async () => {
    const id = await payout(1300);
    assert.match((await get('/holder/payouts?lang=en')).body, /No payouts to send/);
    await admin(t.app, 'POST', `/admin/payouts/${id}/holder`, { holder_id: mine.id });

    const home = await get('/holder?lang=en');
    assert.match(home.body, /data-testid="home-payouts"/);
    const list = await get('/holder/payouts?lang=en');
    assert.equal(list.statusCode, 200, list.body);
    assert.ok(list.body.includes(`data-id="${id}"`), 'the payout is listed');
    assert.match(list.body, /2200123412341234/, "the recipient's card as the order holds it");
    assert.match(list.body, /Synthetic Recipient/);
    assert.match(list.body, /1[\s ,.]?300/);

    const before = await books(mine.id);
    const sent = await send(
      id,
      { _csrf: csrf, note: 'sent from my card' },
      { data: pdfFile('sent'), type: 'application/pdf' },
    );
    assert.equal(sent.statusCode, 303, sent.body);
    assert.equal(sent.headers.location, '/holder/payouts?msg=payoutSent');
    assert.equal(await orderStatus(id), 'success');
    const afterSend = await books(mine.id);
    assert.equal(Number(before.held) - Number(afterSend.held), 1300, 'held drops by the payout amount');
    assert.equal(Number(afterSend.paid_out) - Number(before.paid_out), 1300);

    const proofs = await admin<Array<{ order_id: string; source: string }>>(
      t.app,
      'GET',
      '/admin/receipts?status=accepted&limit=1000',
    );
    assert.equal(proofs.find((r) => r.order_id === id)?.source, 'payout_proof', 'the receipt is the proof');
    const audit = await admin<Array<{ actor: string; action: string; target_id: string }>>(
      t.app,
      'GET',
      `/admin/audit?target_id=${id}&limit=50`,
    );
    assert.ok(
      audit.some((a) => a.actor === `holder:${login}` && a.action === 'order.confirm'),
      JSON.stringify(audit),
    );
    const page = await get('/holder/payouts?lang=en');
    assert.match(page.body, /data-testid="payouts-sent"/, 'listed among the recently sent');
    assert.ok(!page.body.includes(`data-id="${id}"`), 'no longer to send');

    // Again: finished already, 409, nothing written.
    expectRefusal(
      await send(id, { _csrf: csrf }, { data: pdfFile('again'), type: 'application/pdf' }),
      409,
      'ORDER_STATE_CONFLICT',
    );
    assert.deepEqual(await books(mine.id), afterSend);
  });

  it('refusals: another holder’s payout, none given, no file, a wrong file, no CSRF, a pay-in: nothing written', async () => {
    const theirs = await payout(1400);
    await admin(t.app, 'POST', `/admin/payouts/${theirs}/holder`, { holder_id: other.id });
    const own = await payout(1500);
    await admin(t.app, 'POST', `/admin/payouts/${own}/holder`, { holder_id: mine.id });
    const nobodys = await payout(1600);
    const before = await books(mine.id);
    const pdf = { data: pdfFile('r'), type: 'application/pdf' };

    expectRefusal(await send(theirs, { _csrf: csrf }, pdf), 403, 'NOT_YOUR_PAYOUT');
    expectRefusal(await send(nobodys, { _csrf: csrf }, pdf), 403, 'NOT_YOUR_PAYOUT');
    expectRefusal(await send('lux-no-such-order', { _csrf: csrf }, pdf), 403, 'NOT_YOUR_PAYOUT');
    expectRefusal(await send(own, { _csrf: csrf }), 400, 'RECEIPT_REQUIRED');
    expectRefusal(
      await send(
        own,
        { _csrf: csrf },
        { data: Buffer.from('plain text, not a receipt'), type: 'text/plain' },
      ),
      400,
      'RECEIPT_UNSUPPORTED_FORMAT',
    );
    const forged = await send(own, { _csrf: 'wrong' }, pdf);
    assert.equal(forged.statusCode, 403, forged.body);

    // A PAYIN on a requisite of this holder's: never theirs to mark paid.
    const requisite = await addRequisite(t.app, { min_amount: '9241', max_amount: '9249' });
    await admin(t.app, 'PUT', `/admin/holders/${mine.id}/requisites`, { requisite_ids: [requisite.id] });
    await pairDevice(t.app, [requisite.id]);
    const payin = await createOrder(t.app, await createMerchant(t.app), { amount: 9245 });
    assert.equal(payin.statusCode, 200, payin.body);
    const payinId = (payin.json() as { id: string }).id;
    expectRefusal(await send(payinId, { _csrf: csrf }, pdf), 403, 'NOT_YOUR_PAYOUT');
    assert.equal(await orderStatus(payinId), 'pending');

    for (const id of [theirs, own, nobodys]) assert.equal(await orderStatus(id), 'pending', id);
    assert.deepEqual(await books(mine.id), before, 'nothing posted');
    assert.equal((await books(other.id)).paid_out, '0');
    const proofs = await admin<Array<{ order_id: string }>>(t.app, 'GET', '/admin/receipts?limit=1000');
    assert.ok(!proofs.some((r) => [theirs, own, nobodys].includes(r.order_id)), 'no proof kept');
  });

  it('an operator disables the account: sessions end at once, no sign-in; enabled again, it signs in', async () => {
    const accounts = await admin<
      Array<{ id: string; login: string; enabled: boolean; open_sessions: number }>
    >(t.app, 'GET', `/admin/holders/${mine.id}/accounts`);
    assert.equal(accounts.length, 1);
    const account = accounts[0];
    assert.ok(account);
    assert.equal(account.login, login);
    assert.ok(account.open_sessions >= 1);
    assert.equal((await get('/holder')).statusCode, 200);

    const wrongHolder = await adminRaw(
      t.app,
      'POST',
      `/admin/holders/${other.id}/accounts/${account.id}/disable`,
    );
    assert.equal(wrongHolder.statusCode, 404, wrongHolder.body);
    const off = await adminRaw(t.app, 'POST', `/admin/holders/${mine.id}/accounts/${account.id}/disable`);
    assert.equal(off.statusCode, 200, off.body);
    assert.equal(off.json().data.enabled, false);
    assert.equal(off.json().data.open_sessions, 0);
    const refused = await get('/holder');
    assert.equal(refused.statusCode, 303, 'the open session stops working');
    assert.equal(refused.headers.location, '/holder/login');
    assert.equal((await signIn()).res.headers.location, '/holder/login?error=login');
    const audit = await admin<Array<{ action: string; target_id: string }>>(
      t.app,
      'GET',
      `/admin/audit?target_id=${account.id}&limit=50`,
    );
    assert.ok(
      audit.some((a) => a.action === 'holder.account_disabled'),
      JSON.stringify(audit),
    );

    const on = await adminRaw(t.app, 'POST', `/admin/holders/${mine.id}/accounts/${account.id}/enable`);
    assert.equal(on.statusCode, 200, on.body);
    const again = await signIn();
    assert.equal(again.res.headers.location, '/holder', again.res.body);
    cookie = again.cookie;
    csrf = csrfOf(await get('/holder'));
  });

  it('a suspended holder cannot sign in and their open session is refused', async () => {
    assert.equal((await get('/holder')).statusCode, 200);
    await admin(t.app, 'PATCH', `/admin/holders/${mine.id}`, { status: 'suspended' });
    const refused = await get('/holder');
    assert.equal(refused.statusCode, 303);
    assert.equal(refused.headers.location, '/holder/login');
    assert.equal((await signIn()).res.headers.location, '/holder/login?error=login');
    await admin(t.app, 'PATCH', `/admin/holders/${mine.id}`, { status: 'active' });
    assert.equal((await get('/holder')).statusCode, 200, 'the session works again once active');
  });

  it('the console shows the accounts with a disable button that works (pool.manage)', async () => {
    const user = { username: `adm-${randomUUID().slice(0, 6)}`, password: 'a long enough password 19' };
    await admin(t.app, 'POST', '/admin/operators', { ...user, role: 'admin' });
    const operator = await consoleLogin(t.app, user.username, user.password, clock);
    const page = await get(`/backoffice/holders/${mine.id}?lang=en`, operator.cookie);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /data-testid="holder-accounts"/);
    const action = /action="(\/backoffice\/holders\/[^"]+\/disable)"/.exec(page.body)?.[1];
    assert.ok(action, page.body);
    const res = await form(action, operator.cookie, { _csrf: operator.csrf });
    assert.equal(res.statusCode, 303, res.body);
    assert.equal((await get('/holder')).statusCode, 303, 'the holder is signed out');
    const shown = await get(`/backoffice/holders/${mine.id}?lang=en`, operator.cookie);
    assert.match(shown.body, /data-testid="account-enable"/);
  });
});
