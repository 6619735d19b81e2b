import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  merchantRequest,
  sign,
  type TestMerchant,
  uniqueAmount,
} from '../helpers/merchant-client.js';
import { type ReceivedRequest, startReceiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/wait.js';

// docs/decisions.md section 26: event subscriptions through the success webhook's outbox.
describe('event subscriptions: subscribe, events on moves, test event, delivery log', () => {
  const clock = manualClock();
  let t: TestApp;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let subscriptionId: string;

  const events = (type: string): Array<{ req: ReceivedRequest; body: Record<string, unknown> }> =>
    receiver.received
      .map((req) => ({ req, body: JSON.parse(req.body.toString()) as Record<string, unknown> }))
      .filter((e) => e.body.type === type);

  before(async () => {
    t = await startTestApp({ clock });
    merchant = await createMerchant(t.app);
    other = await createMerchant(t.app);
    await addRequisite(t.app, { kind: 'phone' });
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  it('subscribes an endpoint: listed for its merchant only; bad URLs and unknown events are 400', async () => {
    const res = await merchantRequest(t.app, merchant, '/merchant/webhooks/subscriptions', {
      body: { url: `${receiver.url}/events`, events: ['order.cancelled', 'order.expired', 'payout.sent'] },
    });
    assert.equal(res.statusCode, 200, res.body);
    subscriptionId = res.json().data.id;
    const mine = await merchantRequest(t.app, merchant, '/merchant/webhooks/subscriptions');
    assert.deepEqual(
      mine.json().data.map((s: { id: string }) => s.id),
      [subscriptionId],
    );
    const theirs = await merchantRequest(t.app, other, '/merchant/webhooks/subscriptions');
    assert.deepEqual(theirs.json().data, []);
    for (const body of [
      { url: 'ftp://example.com/x', events: ['order.expired'] },
      { url: 'http://10.0.0.1/hook', events: ['order.expired'] },
      { url: 'https://example.com/hook', events: ['order.exploded'] },
      { url: 'https://example.com/hook', events: [] },
    ]) {
      const bad = await merchantRequest(t.app, merchant, '/merchant/webhooks/subscriptions', { body });
      assert.equal(bad.statusCode, 400, bad.body);
      assert.equal(bad.json().message, 'VALIDATION_ERROR');
    }
  });

  it('an operator cancels an order: order.cancelled, signed with the merchant key, with the order object', async () => {
    const order = (await createOrder(t.app, merchant, { amount: uniqueAmount() })).json();
    await admin(t.app, 'POST', `/admin/orders/${order.id}/cancel`, { reason: 'client asked' });
    // Delivered by this round, or by a round the commit's NOTIFY woke first: wait for it either way.
    const got = await waitFor('order.cancelled delivered', 10_000, async () => {
      await t.services.dispatcher.runOnce();
      return events('order.cancelled').find(
        (e) => (e.body.data as { order: { id: string } }).order.id === order.id,
      );
    });
    assert.equal(got.req.headers['x-api-key'], sign(merchant.apiKey, got.req.body));
    assert.deepEqual(Object.keys(got.body), ['id', 'type', 'created_at', 'livemode', 'data']);
    assert.equal(got.body.livemode, true, 'a live order');
    assert.match(got.body.id as string, /^[0-9a-f-]{36}$/);
    const data = got.body.data as { order: { status: string; order_id: string } };
    assert.equal(data.order.status, 'error');
  });

  it('an expired order: order.expired; an event nobody subscribed to is not sent', async () => {
    const order = (await createOrder(t.app, merchant, { amount: uniqueAmount() })).json();
    const unsubscribed = (await createOrder(t.app, other, { amount: uniqueAmount() })).json();
    clock.advance(3 * 3600_000);
    // On a shared PostgreSQL other files' due orders come first (500 a batch): expire until ours is.
    const statusOf = async (id: string) =>
      (await admin<{ status: string }>(t.app, 'GET', `/admin/orders/${id}`)).status;
    for (let i = 0; i < 50 && (await statusOf(order.id)) === 'pending'; i++)
      await t.services.orders.expireDue();
    const expiredIds = async () => {
      await t.services.dispatcher.runOnce();
      return events('order.expired').map((e) => (e.body.data as { order: { id: string } }).order.id);
    };
    let ids = await expiredIds();
    for (let i = 0; i < 50 && !ids.includes(order.id); i++) ids = await expiredIds();
    assert.ok(ids.includes(order.id), JSON.stringify(ids));
    assert.ok(!ids.includes(unsubscribed.id));
  });

  it('a test event: marked test, delivered and listed in the delivery log with its attempt', async () => {
    const res = await merchantRequest(
      t.app,
      merchant,
      `/merchant/webhooks/subscriptions/${subscriptionId}/test`,
      {
        body: { type: 'payout.sent' },
      },
    );
    assert.equal(res.statusCode, 200, res.body);
    await t.services.dispatcher.runOnce();
    const got = events('payout.sent').find((e) => (e.body.data as { test?: boolean }).test === true);
    assert.ok(got, 'test event delivered');
    const log = await merchantRequest(t.app, merchant, '/merchant/webhooks/deliveries?limit=10');
    assert.equal(log.statusCode, 200, log.body);
    const entry = log.json().data.find((d: { id: string }) => d.id === res.json().data.delivery_id);
    assert.equal(entry.status, 'delivered');
    assert.equal(entry.event_type, 'payout.sent');
    assert.equal(entry.attempt_log[0].status_code, 200);
    const theirs = await merchantRequest(t.app, other, '/merchant/webhooks/deliveries');
    assert.deepEqual(theirs.json().data, []);
  });

  it('the delivery log shows success-webhook deliveries too (event_type null), with their attempts', async () => {
    const order = (
      await createOrder(t.app, merchant, {
        amount: uniqueAmount(),
        success_callback_url: `${receiver.url}/success`,
      })
    ).json();
    await admin(t.app, 'POST', `/admin/orders/${order.id}/confirm`, {});
    await t.services.dispatcher.runOnce();
    const log = await merchantRequest(t.app, merchant, '/merchant/webhooks/deliveries?limit=10');
    assert.equal(log.statusCode, 200, log.body);
    const entry = log.json().data.find((d: { order_id: string | null }) => d.order_id === order.id);
    assert.ok(entry, 'the success webhook is in the log');
    assert.equal(entry.event_type, null);
    assert.equal(entry.url, `${receiver.url}/success`);
    assert.equal(entry.status, 'delivered');
    assert.equal(entry.attempt_log[0].status_code, 200);
    const theirs = await merchantRequest(t.app, other, '/merchant/webhooks/deliveries');
    assert.deepEqual(theirs.json().data, []);
  });

  it('another merchant cannot test or delete it (404); its owner deletes it and no more events go', async () => {
    const path = `/merchant/webhooks/subscriptions/${subscriptionId}`;
    assert.equal((await merchantRequest(t.app, other, `${path}/test`, { body: {} })).statusCode, 404);
    assert.equal((await merchantRequest(t.app, other, path, { method: 'DELETE' })).statusCode, 404);
    const deleted = await merchantRequest(t.app, merchant, path, { method: 'DELETE' });
    assert.equal(deleted.statusCode, 200, deleted.body);
    const before = receiver.received.length;
    const order = (await createOrder(t.app, merchant, { amount: uniqueAmount() })).json();
    await admin(t.app, 'POST', `/admin/orders/${order.id}/cancel`, { reason: 'again' });
    await t.services.dispatcher.runOnce();
    assert.equal(receiver.received.length, before);
  });
});
