import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addRequisite, admin, createMerchant, createOrder } from '../helpers/merchant-client.js';

describe('operators, API tokens and roles on the admin API', () => {
  let t: TestApp;
  const tokens: Record<string, string> = {};
  const as = (role: string, method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: {
        authorization: `Bearer ${tokens[role]}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });

  before(async () => {
    t = await startTestApp();
    await addRequisite(t.app);
    for (const role of ['admin', 'support', 'payouts', 'viewer']) {
      const username = `${role}-${randomUUID().slice(0, 8)}`;
      const created = await admin<{ password: string; role: string }>(t.app, 'POST', '/admin/operators', {
        username,
        role,
      });
      assert.equal(created.role, role);
      assert.ok(created.password.length >= 10, 'a generated password is shown once');
      tokens[role] = (
        await admin<{ token: string }>(t.app, 'POST', `/admin/operators/${username}/tokens`, { name: 'test' })
      ).token;
    }
  });
  after(() => t.close());

  it('a support operator confirms PAYIN orders but cannot open merchants or execute payouts', async () => {
    const merchant = await createMerchant(t.app);
    const order = (await createOrder(t.app, merchant)).json();
    assert.equal((await as('support', 'GET', `/admin/merchants/${merchant.id}`)).json().message, 'FORBIDDEN');
    const confirmed = await as('support', 'POST', `/admin/orders/${order.id}/confirm`, {});
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    await admin(t.app, 'POST', `/admin/merchants/${merchant.id}/ledger-adjustments`, {
      currency: 'RUB',
      amount: 1000,
      reason: 'x',
    });
    const payout = (
      await t.app.inject({
        method: 'POST',
        url: '/merchant/createOrder',
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      })
    ).statusCode;
    assert.equal(payout, 401);
  });

  it('a viewer reads but changes nothing; an unknown op_ token is 401', async () => {
    assert.equal((await as('viewer', 'GET', '/admin/orders')).statusCode, 200);
    const res = await as('viewer', 'PUT', '/admin/rates', { base: 'USDT', quote: 'RUB', rate: '1' });
    assert.equal(res.statusCode, 403, res.body);
    const bogus = await t.app.inject({
      method: 'GET',
      url: '/admin/orders',
      headers: { authorization: 'Bearer op_nope' },
    });
    assert.equal(bogus.statusCode, 401);
  });

  it('a payouts operator works the payout queue but not PAYIN orders', async () => {
    const merchant = await createMerchant(t.app);
    await admin(t.app, 'POST', `/admin/merchants/${merchant.id}/ledger-adjustments`, {
      currency: 'RUB',
      amount: 5000,
      reason: 'x',
    });
    const { merchantRequest } = await import('../helpers/merchant-client.js');
    const payout = await merchantRequest(t.app, merchant, '/merchant/createOrder', {
      body: {
        merchant_id: merchant.id,
        direction: 'PAYOUT',
        type: 'card',
        amount: 100,
        payout_details: { holderAccount: '2200123412341234', holderName: 'A B', methodName: 'Sberbank' },
      },
    });
    assert.equal(payout.statusCode, 200, payout.body);
    assert.equal((await as('payouts', 'GET', '/admin/payouts?status=pending')).statusCode, 200);
    const sent = await as('payouts', 'POST', `/admin/orders/${payout.json().id}/confirm`, {});
    assert.equal(sent.statusCode, 200, sent.body);
    const payin = (await createOrder(t.app, merchant)).json();
    const refused = await as('payouts', 'POST', `/admin/orders/${payin.id}/confirm`, {});
    assert.equal(refused.json().message, 'FORBIDDEN', refused.body);
    const support = await as('support', 'POST', `/admin/orders/${payout.json().id}/cancel`, { reason: 'x' });
    assert.equal(support.json().message, 'FORBIDDEN', support.body);
  });

  it('only admins manage operators; every change is in the audit trail with the operator name', async () => {
    assert.equal((await as('support', 'GET', '/admin/operators')).json().message, 'FORBIDDEN');
    const audit = await as('admin', 'GET', '/admin/audit?action=order.confirm');
    assert.equal(audit.statusCode, 200, audit.body);
    const actors = (audit.json().data as Array<{ actor: string }>).map((a) => a.actor);
    assert.ok(
      actors.some((a) => a.startsWith('operator:support-')),
      actors.join(','),
    );
  });
});
