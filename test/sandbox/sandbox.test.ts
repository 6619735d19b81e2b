import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import { multipartBody, pdfFile } from '../helpers/files.js';
import {
  admin,
  createMerchant,
  createOrder,
  merchantRequest,
  sign,
  type TestMerchant,
  uniqueAmount,
} from '../helpers/merchant-client.js';
import { startReceiver } from '../helpers/receiver.js';

interface Answer {
  id: string;
  payment_id: string;
  status: string;
  payment_details: Record<string, unknown>;
  [key: string]: unknown;
}

// docs/decisions.md section 29: test keys, test orders and their outcomes.
describe('sandbox: a test key makes test orders that never touch live money and can be driven to each outcome', () => {
  const clock = manualClock();
  let t: TestApp;
  let live: TestMerchant;
  let test: TestMerchant;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  const outcome = (m: TestMerchant, id: string, body: Record<string, unknown>) =>
    merchantRequest(t.app, m, `/merchant/sandbox/orders/${encodeURIComponent(id)}/outcome`, { body });
  const received = (pred: (body: Record<string, unknown>, path: string) => boolean) =>
    receiver.received.filter((r) => pred(JSON.parse(r.body.toString()) as Record<string, unknown>, r.url));
  const deliverUntil = async (done: () => boolean) => {
    for (let i = 0; i < 50 && !done(); i++) await t.services.dispatcher.runOnce();
  };

  before(async () => {
    t = await startTestApp({ clock });
    live = await createMerchant(t.app, {
      payment_types: ['sim', 'card', 'usdt_trc20'],
    });
    const key = await admin<{ api_key: string; mode: string }>(
      t.app,
      'POST',
      `/admin/merchants/${live.id}/api-keys`,
      {
        mode: 'test',
      },
    );
    assert.equal(key.mode, 'test');
    assert.match(key.api_key, /^test_[0-9a-f]{64}$/);
    test = { id: live.id, apiKey: key.api_key };
    receiver = await startReceiver();
    const sub = await merchantRequest(t.app, test, '/merchant/webhooks/subscriptions', {
      body: { url: `${receiver.url}/events`, events: ['order.expired', 'payout.sent', 'receipt.rejected'] },
    });
    assert.equal(sub.statusCode, 200, sub.body);
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  it('a test order has the live answer shape, generated details and no requisite; modes never see each other', async () => {
    const orderId = `sb-${Math.random().toString(36).slice(2)}`;
    const made = await createOrder(t.app, test, { order_id: orderId, amount: 1500, type: 'card' });
    assert.equal(made.statusCode, 200, made.body);
    const order = made.json() as Answer;
    assert.match(String(order.payment_details.address), /^2200\d{12}$/);
    assert.equal(order.payment_details.holder_name, 'TEST HOLDER');
    const row = await admin<{ requisite_id: string | null; test: boolean }>(
      t.app,
      'GET',
      `/admin/orders/${order.id}`,
    );
    assert.equal(row.requisite_id, null);
    assert.equal(row.test, true);
    // The same order_id is free in live mode: the sandbox's ids never block live ones.
    const liveOne = await createOrder(t.app, live, {
      order_id: orderId,
      amount: uniqueAmount(),
      type: 'card',
    });
    if (liveOne.statusCode === 200) {
      const liveAnswer = liveOne.json() as Answer;
      assert.deepEqual(Object.keys(order).sort(), Object.keys(liveAnswer).sort(), 'same answer shape');
      assert.deepEqual(
        Object.keys(order.payment_details).sort(),
        Object.keys(liveAnswer.payment_details).sort(),
      );
      assert.notEqual(liveAnswer.id, order.id);
    } else {
      // No live card requisite on this database: still not a duplicate of the test order.
      assert.equal(liveOne.json().message, 'REQUISITES_NOT_FOUND', liveOne.body);
    }
    assert.equal(
      (await merchantRequest(t.app, live, `/merchant/order/${order.id}`)).json().message,
      'ORDER_NOT_FOUND',
    );
    const byTest = await merchantRequest(t.app, test, `/merchant/order/${orderId}`);
    assert.equal(byTest.json().id, order.id, 'the test key reads its order by order_id');
  });

  it('paid: success through the lifecycle, the success webhook signed with the test key, no ledger entry', async () => {
    const made = await createOrder(t.app, test, {
      amount: 2500,
      success_callback_url: `${receiver.url}/success`,
    });
    const order = made.json() as Answer;
    const paid = await outcome(test, order.id, { outcome: 'paid' });
    assert.equal(paid.statusCode, 200, paid.body);
    assert.equal(paid.json().status, 'success');
    await deliverUntil(() => received((b, url) => url === '/success' && b.id === order.id).length > 0);
    const hook = received((b, url) => url === '/success' && b.id === order.id)[0];
    assert.ok(hook, 'the success webhook arrived');
    assert.equal(hook.headers['x-api-key'], sign(test.apiKey, hook.body), 'signed with the test key');
    assert.notEqual(hook.headers['x-api-key'], sign(live.apiKey, hook.body));
    const balance = (await merchantRequest(t.app, live, `/merchant/balance/${live.id}`)).json();
    assert.equal(balance.balance, 0, 'the live balance never moves');
    const again = await outcome(test, order.id, { outcome: 'expired' });
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().message, 'ORDER_STATE_CONFLICT');
  });

  it('expired and cancelled send their events with livemode false; a live key may not call the sandbox', async () => {
    const order = (await createOrder(t.app, test, { amount: 3000 })).json() as Answer;
    const refused = await outcome(live, order.id, { outcome: 'paid' });
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().message, 'TEST_KEY_REQUIRED');
    const expired = await outcome(test, order.id, { outcome: 'expired' });
    assert.equal(expired.json().status, 'error');
    await deliverUntil(() => received((b) => b.type === 'order.expired').length > 0);
    const event = received((b) => b.type === 'order.expired')[0];
    assert.ok(event);
    const body = JSON.parse(event.body.toString()) as { livemode: boolean; data: { order: { id: string } } };
    assert.equal(body.livemode, false);
    assert.equal(body.data.order.id, order.id);
    assert.equal(event.headers['x-api-key'], sign(test.apiKey, event.body));
    const cancelled = (await createOrder(t.app, test, { amount: 3100 })).json() as Answer;
    assert.equal((await outcome(test, cancelled.id, { outcome: 'cancelled' })).json().status, 'error');
    const log = await merchantRequest(t.app, test, '/merchant/webhooks/deliveries');
    assert.ok((log.json().data as unknown[]).length >= 1, 'the test key reads its own delivery log');
    const liveLog = await merchantRequest(t.app, live, '/merchant/webhooks/deliveries');
    assert.equal((liveLog.json().data as unknown[]).length, 0, 'live log holds no sandbox delivery');
  });

  it('receipt_rejected judges the uploaded receipt; it never reaches the operators queue', async () => {
    const order = (await createOrder(t.app, test, { amount: 3200 })).json() as Answer;
    const none = await outcome(test, order.id, { outcome: 'receipt_rejected' });
    assert.equal(none.statusCode, 409, 'no receipt yet');
    const { body, contentType } = multipartBody(
      { orderId: order.id },
      { field: 'receipt', filename: 'r.pdf', contentType: 'application/pdf', data: pdfFile('sandbox') },
    );
    const upload = await t.app.inject({
      method: 'POST',
      url: '/merchant/receipt/upload',
      headers: {
        'content-type': contentType,
        'client-api-key': test.apiKey,
        'x-api-key': sign(test.apiKey, ''),
      },
      payload: body,
    });
    assert.equal(upload.statusCode, 200, upload.body);
    const queue = await admin<Array<{ order_id: string }>>(
      t.app,
      'GET',
      '/admin/receipts?status=under_review',
    );
    assert.equal(
      queue.some((r) => r.order_id === order.id),
      false,
    );
    const judged = await outcome(test, order.id, { outcome: 'receipt_rejected' });
    assert.equal(judged.statusCode, 200, judged.body);
    await deliverUntil(() => received((b) => b.type === 'receipt.rejected').length > 0);
    assert.equal(received((b) => b.type === 'receipt.rejected').length, 1);
  });

  it('payouts: no balance needed, never in the payouts queue, sent or failed by the sandbox', async () => {
    const made = await merchantRequest(t.app, test, '/merchant/createOrder', {
      body: {
        merchant_id: test.id,
        amount: 5000,
        type: 'sim',
        direction: 'PAYOUT',
        payout_details: { holderAccount: '79001234567', holderName: 'Ivan Petrov', methodName: 'Sberbank' },
      },
    });
    assert.equal(made.statusCode, 200, made.body);
    const order = made.json() as Answer;
    const queue = await admin<Array<{ id: string }>>(t.app, 'GET', '/admin/payouts?status=pending');
    assert.equal(
      queue.some((p) => p.id === order.id),
      false,
    );
    assert.equal((await outcome(test, order.id, { outcome: 'paid' })).statusCode, 409, 'paid is for PAYINs');
    const sent = await outcome(test, order.id, { outcome: 'payout_sent' });
    assert.equal(sent.json().status, 'success');
    const audit = await admin<Array<{ actor: string }>>(
      t.app,
      'GET',
      `/admin/audit?target_id=${order.id}&action=sandbox.payout_sent`,
    );
    assert.equal(audit[0]?.actor, `merchant:${live.id}`, 'audited as sandbox.<outcome>');
    await deliverUntil(() => received((b) => b.type === 'payout.sent').length > 0);
    assert.equal(received((b) => b.type === 'payout.sent').length, 1);
  });

  it('crypto: generated address, a partial payment then the rest, as the chain rules credit it', async () => {
    // The live credit rules need a USDT/RUB rate for a fiat-settled merchant; so does the sandbox.
    await admin(t.app, 'PUT', '/admin/rates', { base: 'USDT', quote: 'RUB', rate: '90' });
    const made = await createOrder(t.app, test, { type: 'usdt_trc20', amount: 10, currency: 'USDT' });
    assert.equal(made.statusCode, 200, made.body);
    const order = made.json() as Answer;
    assert.match(String(order.payment_details.address), /^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    const part = await outcome(test, order.id, { outcome: 'paid_other_amount', amount: '4' });
    assert.equal(part.json().status, 'pending');
    const rest = await outcome(test, order.id, { outcome: 'paid_other_amount', amount: '6' });
    assert.equal(rest.json().status, 'success', rest.body);
    const bad = await outcome(test, order.id, { outcome: 'paid_other_amount', amount: '-1' });
    assert.equal(bad.statusCode, 409, 'finished first');
  });

  it('the payment form of a test order says so and its buttons drive it; a live order has none', async () => {
    const order = (await createOrder(t.app, test, { amount: 3300 })).json() as Answer;
    const page = await t.app.inject({ method: 'GET', url: `/form/${order.id}?lang=en` });
    assert.match(page.body, /data-testid="test-banner"/);
    assert.match(page.body, /data-testid="sandbox-paid"/);
    const post = (id: string, outcome: string) =>
      t.app.inject({
        method: 'POST',
        url: `/form/${id}/sandbox`,
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
        payload: `outcome=${outcome}`,
      });
    const res = await post(order.id, 'paid');
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, `/form/${order.id}`);
    assert.equal(
      (await merchantRequest(t.app, test, `/merchant/order/${order.id}`)).json().status,
      'success',
    );
    const liveOrder = await createOrder(t.app, live, { amount: uniqueAmount() });
    if (liveOrder.statusCode === 200) {
      const id = (liveOrder.json() as Answer).id;
      const livePage = await t.app.inject({ method: 'GET', url: `/form/${id}?lang=en` });
      assert.doesNotMatch(livePage.body, /data-testid="test-banner"|data-testid="sandbox-paid"/);
      assert.equal((await post(id, 'paid')).statusCode, 404, 'a payer can never move a live order');
      assert.equal((await merchantRequest(t.app, live, `/merchant/order/${id}`)).json().status, 'pending');
    }
  });

  it('reports: GET /merchant/reports counts live orders for a live key and test orders for a test key', async () => {
    const liveReport = await merchantRequest(t.app, live, '/merchant/reports');
    assert.equal(liveReport.statusCode, 200, liveReport.body);
    const liveData = liveReport.json().data as { today: { total: { succeeded: number } } };
    assert.equal(liveData.today.total.succeeded, 0, 'no sandbox success counts as live');
    const testData = (await merchantRequest(t.app, test, '/merchant/reports')).json().data as {
      today: { total: { created: number; succeeded: number; conversion: number } };
      daily: { days: string[]; created: number[] };
    };
    assert.ok(testData.today.total.succeeded >= 2, JSON.stringify(testData));
    assert.equal(
      testData.today.total.conversion,
      Math.round((testData.today.total.succeeded / testData.today.total.created) * 10_000) / 10_000,
    );
    assert.equal(testData.daily.days.length, 30);
    assert.equal(testData.daily.created.at(-1), testData.today.total.created);
  });
});
