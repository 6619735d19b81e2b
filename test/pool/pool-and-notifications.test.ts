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

describe('pool offers and bank-notification matching', () => {
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

  it('matches a notification to the one pending order with that amount; the same message twice changes nothing', async () => {
    const order = (await createOrder(t.app, merchant, { amount: 1234, currency: 'TRY' })).json();
    const messageId = randomUUID();
    const first = await notify({ message_id: messageId, requisite_id: requisite.id, amount: 1234 });
    assert.equal(first.json().data.status, 'matched', first.body);
    assert.equal(first.json().data.order_id, order.id);
    const again = await notify({ message_id: messageId, requisite_id: requisite.id, amount: 1234 });
    assert.equal(again.json().data.duplicate, true);
    const balance = (await merchantRequest(t.app, merchant, `/merchant/balance/${merchant.id}`)).json();
    assert.equal(balance.balances.find((b: { currency: string }) => b.currency === 'TRY').balance, 1234);
  });

  it('two pending orders with the same amount: unmatched (ambiguous), then an operator assigns it', async () => {
    const a = (await createOrder(t.app, merchant, { amount: 2000, currency: 'TRY' })).json();
    await createOrder(t.app, merchant, { amount: 2000, currency: 'TRY' });
    const res = await notify({ requisite_id: requisite.id, amount: 2000 });
    assert.equal(res.json().data.status, 'unmatched');
    assert.equal(res.json().data.reason, 'ambiguous');
    const queue = await admin<Array<{ id: string }>>(t.app, 'GET', '/admin/notifications?status=unmatched');
    assert.ok(queue.some((n) => n.id === res.json().data.id));
    const assigned = await admin<{ status: string }>(
      t.app,
      'POST',
      `/admin/notifications/${res.json().data.id}/assign`,
      { order_id: a.id },
    );
    assert.equal(assigned.status, 'assigned');
    assert.equal(
      (await merchantRequest(t.app, merchant, `/merchant/order/${a.id}`)).json().status,
      'success',
    );
  });

  it('a payment for an order that expired is held as late, not confirmed', async () => {
    // A 10 s TTL and an 11 s jump: the global sweep cannot reach other files' 15-minute orders.
    const shortLived = await createMerchant(t.app, { currencies: ['TRY'], order_ttl_seconds: 10 });
    const order = (await createOrder(t.app, shortLived, { amount: 3100, currency: 'TRY' })).json();
    clock.advance(11_000);
    await t.services.orders.expireDue();
    const res = await notify({ requisite_id: requisite.id, amount: 3100 });
    assert.equal(res.json().data.status, 'late', res.body);
    assert.equal(res.json().data.order_id, order.id);
    assert.equal(
      (await merchantRequest(t.app, shortLived, `/merchant/order/${order.id}`)).json().status,
      'error',
    );
  });

  it("a device cannot report another holder's requisite; an unknown token is 401", async () => {
    const other = await addRequisite(t.app, { kind: 'phone', currency: 'TRY' });
    const res = await notify({ requisite_id: other.id, amount: 1 });
    assert.equal(res.statusCode, 403, res.body);
    assert.equal((await notify({ requisite_id: requisite.id, amount: 1 }, 'dev_nope')).statusCode, 401);
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
