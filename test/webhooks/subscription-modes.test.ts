// Modes never cross (docs/decisions.md section 36; docs/api.md "Event subscriptions"): a test key sees,
// makes and deletes test subscriptions only; live events never reach a test subscription and test
// events never a live one; operators' order lists show test orders only when asked. URLs are
// loopback receivers; merchants and orders synthetic.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq, inArray } from 'drizzle-orm';
import { webhookDeliveries } from '../../src/db/tables/webhooks.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  addRequisite,
  admin,
  adminRaw,
  createMerchant,
  createOrder,
  merchantRequest,
  type TestMerchant,
} from '../helpers/merchant-client.js';
import { startReceiver } from '../helpers/receiver.js';

describe('event subscriptions and order lists keep test and live apart', () => {
  let t: TestApp;
  let live: TestMerchant;
  let test: TestMerchant;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const subscribe = async (m: TestMerchant, path: string) => {
    const res = await merchantRequest(t.app, m, '/merchant/webhooks/subscriptions', {
      body: { url: `${receiver.url}/${path}`, events: ['order.cancelled', 'order.expired'] },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data as { id: string; test: boolean; url: string };
  };
  const listed = async (m: TestMerchant) =>
    (
      (await merchantRequest(t.app, m, '/merchant/webhooks/subscriptions')).json().data as Array<{
        id: string;
      }>
    ).map((s) => s.id);

  before(async () => {
    t = await startTestApp();
    live = await createMerchant(t.app, { payment_types: ['sim', 'card'] });
    const key = await admin<{ api_key: string }>(t.app, 'POST', `/admin/merchants/${live.id}/api-keys`, {
      mode: 'test',
    });
    test = { id: live.id, apiKey: key.api_key };
    await addRequisite(t.app, { kind: 'phone' });
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  it('a test key lists, tests and deletes only test subscriptions: a live one is 404 to it, and back', async () => {
    const liveSub = await subscribe(live, 'live');
    const testSub = await subscribe(test, 'test');
    assert.deepEqual([liveSub.test, testSub.test], [false, true]);
    assert.deepEqual(await listed(live), [liveSub.id], 'the live key sees the live subscription only');
    assert.deepEqual(await listed(test), [testSub.id], 'the test key sees the test subscription only');
    for (const [key, other] of [
      [test, liveSub],
      [live, testSub],
    ] as const) {
      const sent = await merchantRequest(t.app, key, `/merchant/webhooks/subscriptions/${other.id}/test`, {
        body: {},
      });
      assert.equal(sent.statusCode, 404, sent.body);
      const gone = await merchantRequest(t.app, key, `/merchant/webhooks/subscriptions/${other.id}`, {
        method: 'DELETE',
      });
      assert.equal(gone.statusCode, 404, gone.body);
    }
    assert.deepEqual(await listed(live), [liveSub.id], 'the test key deleted nothing live');
    assert.deepEqual(await listed(test), [testSub.id]);
    const own = await merchantRequest(t.app, test, `/merchant/webhooks/subscriptions/${testSub.id}`, {
      method: 'DELETE',
    });
    assert.equal(own.statusCode, 200, own.body);
    assert.deepEqual(await listed(test), []);
  });

  it('a live order’s event goes to live subscriptions only, a test order’s to test ones only', async () => {
    const liveSub = await subscribe(live, 'live-events');
    const testSub = await subscribe(test, 'test-events');
    const liveOrder = await createOrder(t.app, live);
    const testOrder = await createOrder(t.app, test, { type: 'card' });
    assert.equal(liveOrder.statusCode, 200, liveOrder.body);
    assert.equal(testOrder.statusCode, 200, testOrder.body);
    await admin(t.app, 'POST', `/admin/orders/${liveOrder.json().id}/cancel`, { reason: 'synthetic' });
    const outcome = await merchantRequest(
      t.app,
      test,
      `/merchant/sandbox/orders/${testOrder.json().id}/outcome`,
      { body: { outcome: 'cancelled' } },
    );
    assert.equal(outcome.statusCode, 200, outcome.body);
    const rows = await t.database.db
      .select({ sub: webhookDeliveries.subscriptionId, order: webhookDeliveries.orderId })
      .from(webhookDeliveries)
      .where(inArray(webhookDeliveries.subscriptionId, [liveSub.id, testSub.id]));
    const to = (sub: string) => rows.filter((r) => r.sub === sub).map((r) => r.order);
    assert.deepEqual(to(liveSub.id), [liveOrder.json().id], JSON.stringify(rows));
    assert.deepEqual(to(testSub.id), [testOrder.json().id], JSON.stringify(rows));
    const testDeliveries = await t.database.db
      .select({ test: webhookDeliveries.test })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.subscriptionId, testSub.id));
    assert.deepEqual(
      testDeliveries.map((d) => d.test),
      [true],
    );
  });

  it('operators’ order lists show live orders unless asked for test ones (mode=test, mode=all)', async () => {
    const liveOrder = (await createOrder(t.app, live)).json().id as string;
    const testOrder = (await createOrder(t.app, test, { type: 'card' })).json().id as string;
    const ids = async (query: string) => {
      const res = await adminRaw(t.app, 'GET', `/admin/orders?merchant_id=${live.id}&size=200${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json().data.orders.map((o: { id: string }) => o.id) as string[];
    };
    const byDefault = await ids('');
    assert.ok(byDefault.includes(liveOrder) && !byDefault.includes(testOrder), 'default: live only');
    const tests = await ids('&mode=test');
    assert.ok(tests.includes(testOrder) && !tests.includes(liveOrder), 'mode=test: test only');
    const all = await ids('&mode=all');
    assert.ok(all.includes(testOrder) && all.includes(liveOrder), 'mode=all: both');
  });
});
