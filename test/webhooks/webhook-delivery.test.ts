import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  sign,
  type TestMerchant,
  uniqueAmount,
} from '../helpers/merchant-client.js';
import { startReceiver } from '../helpers/receiver.js';

describe('success webhook: body, signature, retry schedule', () => {
  const clock = manualClock();
  let t: TestApp;
  let merchant: TestMerchant;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let failFirst = 0;

  before(async () => {
    t = await startTestApp({ clock });
    merchant = await createMerchant(t.app, { payin_fee_percent: 2 });
    await addRequisite(t.app, { kind: 'phone' });
    receiver = await startReceiver(() => (failFirst-- > 0 ? { status: 500 } : { status: 200, body: 'ok' }));
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  it('delivers a signed body in the contract key order on confirm', async () => {
    const amount = uniqueAmount();
    const created = (
      await createOrder(t.app, merchant, {
        amount,
        success_callback_url: `${receiver.url}/hook`,
        order_id: `w-${amount}`,
      })
    ).json();
    await admin(t.app, 'POST', `/admin/orders/${created.id}/confirm`, {});
    const sent = await t.services.dispatcher.runOnce();
    assert.ok(sent >= 1, 'one delivery due at once');
    const got = receiver.received.find((r) => r.body.toString().includes(created.id));
    assert.ok(got, 'receiver got the webhook');
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['x-api-key'], sign(merchant.apiKey, got.body));
    const text = got.body.toString();
    const body = JSON.parse(text);
    assert.deepEqual(Object.keys(body), [
      'id',
      'order_id',
      'type',
      'amount',
      'currency',
      'status',
      'created_at',
      'amountAfterFee',
    ]);
    assert.equal(body.amount, String(amount));
    assert.equal(body.status, 'success');
    assert.match(body.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/);
    assert.equal(body.amountAfterFee, created.amountAfterFee);
    const deliveries = await admin<Array<{ status: string; attempt_log: unknown[] }>>(
      t.app,
      'GET',
      `/admin/webhooks?order_id=${created.id}`,
    );
    assert.equal(deliveries[0]?.status, 'delivered');
    assert.equal(deliveries[0]?.attempt_log.length, 1);
  });

  it('retries exactly 15/60/300/900/3600 s apart, then is exhausted', async () => {
    failFirst = 100;
    const created = (
      await createOrder(t.app, merchant, { success_callback_url: `${receiver.url}/fail` })
    ).json();
    await admin(t.app, 'POST', `/admin/orders/${created.id}/confirm`, {});
    const start = clock.now();
    await t.services.dispatcher.runOnce();
    for (const delay of [15, 60, 300, 900, 3600]) {
      clock.advance(delay * 1000 - 1);
      await t.services.dispatcher.runOnce();
      clock.advance(1);
      await t.services.dispatcher.runOnce();
    }
    clock.advance(10 * 3600 * 1000);
    await t.services.dispatcher.runOnce();
    const [delivery] = await admin<
      Array<{
        status: string;
        attempts: number;
        attempt_log: Array<{ started_at: string; status_code: number }>;
      }>
    >(t.app, 'GET', `/admin/webhooks?order_id=${created.id}`);
    assert.equal(delivery?.status, 'exhausted');
    assert.equal(delivery?.attempts, 6);
    const times = delivery?.attempt_log.map((a) => Date.parse(a.started_at) - start) ?? [];
    assert.deepEqual(times, [0, 15_000, 75_000, 375_000, 1_275_000, 4_875_000]);
    assert.ok(delivery?.attempt_log.every((a) => a.status_code === 500));
    failFirst = 0;
  });
});
