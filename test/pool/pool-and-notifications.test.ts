import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import {
  addRequisite,
  admin,
  adminRaw,
  createMerchant,
  createOrder,
  merchantRequest,
  type TestMerchant,
} from '../helpers/merchant-client.js';

describe('pool offers, and no pre-parsed notifications', () => {
  const clock = manualClock();
  let t: TestApp;
  let merchant: TestMerchant;
  let requisite: { id: string };
  let device: { token: string };
  const notify = (body: Record<string, unknown>, token = device.token) =>
    t.app.inject({
      method: 'POST',
      url: '/trader/notifications',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({
        currency: 'TRY',
        received_at: new Date(clock.now()).toISOString(),
        message_id: randomUUID(),
        ...body,
      }),
    });

  before(async () => {
    t = await startTestApp({ clock });
    // A private currency keeps other test files' orders off this requisite.
    merchant = await createMerchant(t.app, { currencies: ['TRY'] });
    requisite = await addRequisite(t.app, { kind: 'phone', currency: 'TRY' });
    device = await admin(t.app, 'POST', '/admin/devices', {
      name: `phone-${randomUUID().slice(0, 6)}`,
      requisite_ids: [requisite.id],
    });
  });
  after(() => t.close());

  it('lists offers the merchant may use and one parallel take wins', async () => {
    const offer = await admin<{ id: string }>(t.app, 'POST', '/admin/pool/offers', {
      requisite_id: requisite.id,
      amount: 7777,
      type: 'sim',
      ttl_seconds: 600,
    });
    const listed = await merchantRequest(t.app, merchant, '/merchant/pool/requisites');
    assert.equal(listed.statusCode, 200, listed.body);
    const item = listed.json().data.find((o: { id: string }) => o.id === offer.id);
    assert.deepEqual(Object.keys(item).sort(), ['amount', 'id', 'remainingSeconds', 'type']);
    assert.equal(item.amount, 7777);
    assert.deepEqual(listed.json().requisites, listed.json().data);
    const body = {
      merchant_id: merchant.id,
      type: 'sim',
      currency: 'TRY',
      usePool: true,
      requisiteId: offer.id,
    };
    const results = await Promise.all(
      [1, 2, 3].map(() => merchantRequest(t.app, merchant, '/merchant/createOrder', { body })),
    );
    const ok = results.filter((r) => r.statusCode === 200);
    assert.equal(ok.length, 1, results.map((r) => r.body).join('\n'));
    assert.equal(ok[0]?.json().payment_details.amount, '7777');
    assert.equal(
      ok[0]?.json().payment_details.address,
      (await admin<Array<{ id: string; address: string }>>(t.app, 'GET', '/admin/requisites')).find(
        (r) => r.id === requisite.id,
      )?.address,
    );
    assert.ok(
      results.filter((r) => r.statusCode === 409).every((r) => r.json().message === 'REQUISITES_NOT_FOUND'),
    );
  });

  it('the pre-parsed notification endpoints are gone: a device cannot confirm by {requisite_id, amount}, nor an operator assign one', async () => {
    const order = (await createOrder(t.app, merchant, { amount: 1234, currency: 'TRY' })).json();
    const res = await notify({ requisite_id: requisite.id, amount: 1234 });
    assert.equal(res.statusCode, 404, res.body);
    const assign = await adminRaw(t.app, 'POST', `/admin/notifications/${randomUUID()}/assign`, {
      order_id: order.id,
    });
    assert.equal(assign.statusCode, 404, assign.body);
    assert.equal(
      (await merchantRequest(t.app, merchant, `/merchant/order/${order.id}`)).json().status,
      'pending',
    );
    assert.equal((await adminRaw(t.app, 'GET', '/admin/notifications')).statusCode, 200);
  });

  it('a requisite whose last 5 orders all expired unpaid is disabled automatically, with the reason', async () => {
    const m = await createMerchant(t.app, { currencies: ['UZS'], order_ttl_seconds: 10 });
    const lonely = await addRequisite(t.app, { kind: 'phone', currency: 'UZS' });
    for (let i = 0; i < 5; i++) {
      const res = await createOrder(t.app, m, { amount: 100 + i, currency: 'UZS' });
      assert.equal(res.statusCode, 200, res.body);
    }
    clock.advance(11_000);
    await t.services.orders.expireDue();
    const row = (
      await admin<Array<{ id: string; enabled: boolean; disabled_reason: string | null }>>(
        t.app,
        'GET',
        '/admin/requisites',
      )
    ).find((r) => r.id === lonely.id);
    assert.equal(row?.enabled, false);
    assert.match(row?.disabled_reason ?? '', /last 5 orders expired unpaid/);
    const next = await createOrder(t.app, m, { amount: 200, currency: 'UZS' });
    assert.equal(next.json().message, 'REQUISITES_NOT_FOUND', next.body);
  });
});
