import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { appeals } from '../../src/db/tables/appeals.js';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import { multipartBody, pdfFile, pngFile } from '../helpers/files.js';
import {
  addRequisite,
  admin,
  adminRaw,
  createMerchant,
  createOrder,
  merchantRequest,
  sign,
  type TestMerchant,
  uniqueAmount,
} from '../helpers/merchant-client.js';
import { startReceiver } from '../helpers/receiver.js';

interface EventBody {
  type: string;
  data: { order?: { id: string }; appeal: { opened_by: string; status: string; reason: string | null } };
}

// docs/decisions.md section 27: late-payment appeals from the form and the API.
describe('appeals: a payer or merchant claims a failed PAYIN was paid; operators resolve it', () => {
  const clock = manualClock();
  let t: TestApp;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  const events = (type: string, orderId: string) =>
    receiver.received
      .map((req) => ({ req, body: JSON.parse(req.body.toString()) as EventBody }))
      .filter((e) => e.body.type === type && e.body.data?.order?.id === orderId);
  const failedOrder = async (m: TestMerchant = merchant) => {
    const res = await createOrder(t.app, m, {
      order_id: `ap-${Math.random().toString(36).slice(2)}`,
      amount: uniqueAmount(),
      success_callback_url: `${receiver.url}/success`,
    });
    assert.equal(res.statusCode, 200, res.body);
    const order = res.json() as { id: string; payment_id: string };
    await admin(t.app, 'POST', `/admin/orders/${order.id}/cancel`, { reason: 'client left' });
    return order;
  };
  const payerAppeal = (orderId: string, file = pdfFile('paid'), accept = 'text/html') => {
    const { body, contentType } = multipartBody(
      {},
      { field: 'receipt', filename: 'r.pdf', contentType: 'application/pdf', data: file },
    );
    return t.app.inject({
      method: 'POST',
      url: `/form/${orderId}/appeal`,
      headers: { 'content-type': contentType, accept },
      payload: body,
    });
  };
  const merchantAppeal = (m: TestMerchant, orderId: string, file = pdfFile('paid')) => {
    const { body, contentType } = multipartBody(
      { orderId },
      { field: 'receipt', filename: 'r.pdf', contentType: 'application/pdf', data: file },
    );
    return t.app.inject({
      method: 'POST',
      url: '/merchant/appeals',
      headers: { 'content-type': contentType, 'client-api-key': m.apiKey, 'x-api-key': sign(m.apiKey, '') },
      payload: body,
    });
  };
  /** Runs the dispatcher until `done` holds: on a shared PostgreSQL other files' deliveries go first. */
  const deliverUntil = async (done: () => boolean) => {
    for (let i = 0; i < 50 && !done(); i++) await t.services.dispatcher.runOnce();
  };
  const balance = async (m: TestMerchant) =>
    (await merchantRequest(t.app, m, `/merchant/balance/${m.id}`)).json() as Record<string, unknown>;

  before(async () => {
    t = await startTestApp({ clock });
    merchant = await createMerchant(t.app);
    other = await createMerchant(t.app);
    await addRequisite(t.app, { kind: 'phone' });
    receiver = await startReceiver();
    for (const m of [merchant, other]) {
      const res = await merchantRequest(t.app, m, '/merchant/webhooks/subscriptions', {
        body: {
          url: `${receiver.url}/events`,
          events: [
            'appeal.opened',
            'appeal.resolved',
            'receipt.accepted',
            'receipt.rejected',
            'order.late_payment',
          ],
        },
      });
      assert.equal(res.statusCode, 200, res.body);
    }
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  it('the payer: the failed form offers the claim; a form post opens it and the page shows its deadline', async () => {
    const order = await failedOrder();
    const page = await t.app.inject({ method: 'GET', url: `/form/${order.id}?lang=en` });
    assert.match(page.body, /data-testid="appeal-form"/);
    assert.match(page.body, /enctype="multipart\/form-data"/, 'works without JavaScript');
    const res = await payerAppeal(order.id);
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, `/form/${order.id}`);
    const after = await t.app.inject({ method: 'GET', url: `/form/${order.id}?lang=en` });
    assert.match(after.body, /data-status="open"/);
    assert.doesNotMatch(after.body, /data-testid="appeal-form"/, 'no second claim while one is open');
    const again = await payerAppeal(order.id);
    assert.equal(again.statusCode, 303);
    assert.match(String(again.headers.location), /appeal_error=MODERATION_IN_PROGRESS/);
    const json = await payerAppeal(order.id, pdfFile('again'), 'application/json');
    assert.equal(json.statusCode, 409);
    assert.equal(json.json().message, 'MODERATION_IN_PROGRESS');
    await deliverUntil(() => events('appeal.opened', order.id).length > 0);
    const opened = events('appeal.opened', order.id);
    assert.equal(opened.length, 1);
    assert.equal(opened[0]?.body.data.appeal.opened_by, 'payer');
    assert.equal(opened[0]?.req.headers['x-api-key'], sign(merchant.apiKey, opened[0]?.req.body));
  });

  it('operators see it by deadline (24 h); accepting confirms the late payment: ledger, webhooks, events', async () => {
    const order = await failedOrder();
    const opened = await payerAppeal(order.id, pdfFile('late'), 'application/json');
    assert.equal(opened.statusCode, 200, opened.body);
    const queue = await admin<
      Array<{ id: string; order_id: string; deadline_at: string; created_at: string }>
    >(t.app, 'GET', `/admin/appeals?status=open&merchant_id=${merchant.id}`);
    const mine = queue.find((a) => a.order_id === order.id);
    assert.ok(mine, 'in the queue');
    assert.equal(Date.parse(mine.deadline_at) - Date.parse(mine.created_at) > 23.9 * 3600_000, true);
    const deadlines = queue.map((a) => a.deadline_at);
    assert.deepEqual(deadlines, [...deadlines].sort(), 'sorted by deadline');
    const before = await balance(merchant);
    const accepted = await admin<{ status: string; resolved_by: string }>(
      t.app,
      'POST',
      `/admin/appeals/${mine.id}/accept`,
      { reason: 'seen in the bank statement' },
    );
    assert.equal(accepted.status, 'accepted');
    const status = await admin<{ status: string }>(t.app, 'GET', `/admin/orders/${order.id}`);
    assert.equal(status.status, 'success');
    const afterBalance = await balance(merchant);
    assert.notDeepEqual(afterBalance, before, 'the ledger credited the late payment');
    const types = ['order.late_payment', 'appeal.resolved', 'receipt.accepted'];
    await deliverUntil(
      () =>
        types.every((type) => events(type, order.id).length > 0) &&
        receiver.received.some((r) => r.url === '/success' && r.body.toString().includes(order.id)),
    );
    assert.ok(
      receiver.received.some((r) => r.url === '/success' && r.body.toString().includes(order.id)),
      "the contract's success webhook",
    );
    for (const type of types) assert.equal(events(type, order.id).length, 1, type);
    assert.equal(events('appeal.resolved', order.id)[0]?.body.data.appeal.status, 'accepted');
    const twice = await adminRaw(t.app, 'POST', `/admin/appeals/${mine.id}/accept`, {});
    assert.equal(twice.statusCode, 409);
    const page = await t.app.inject({ method: 'GET', url: `/form/${order.id}?lang=en` });
    assert.match(page.body, /data-status="accepted"/);
  });

  it('the merchant API: opens one with a file, reads its own, never another merchant’s; reject needs a reason', async () => {
    const order = await failedOrder();
    const res = await merchantAppeal(merchant, order.payment_id);
    assert.equal(res.statusCode, 200, res.body);
    const appeal = res.json().data as { id: string; opened_by: string; status: string };
    assert.equal(appeal.opened_by, 'merchant');
    const own = await merchantRequest(t.app, merchant, `/merchant/appeals/${appeal.id}`);
    assert.equal(own.statusCode, 200, own.body);
    assert.equal(own.json().data.order_id, order.id);
    assert.equal((await merchantRequest(t.app, other, `/merchant/appeals/${appeal.id}`)).statusCode, 404);
    const list = await merchantRequest(t.app, other, '/merchant/appeals');
    assert.ok(!list.json().data.some((a: { id: string }) => a.id === appeal.id));
    assert.equal((await merchantAppeal(other, order.id)).statusCode, 403, 'another merchant’s order');
    const noReason = await adminRaw(t.app, 'POST', `/admin/appeals/${appeal.id}/reject`, { reason: ' ' });
    assert.equal(noReason.statusCode, 400);
    const rejected = await admin<{ status: string; reason: string }>(
      t.app,
      'POST',
      `/admin/appeals/${appeal.id}/reject`,
      { reason: 'no such transfer' },
    );
    assert.equal(rejected.status, 'rejected');
    const status = await admin<{ status: string }>(t.app, 'GET', `/admin/orders/${order.id}`);
    assert.equal(status.status, 'error', 'the order stays failed');
    await deliverUntil(
      () => events('appeal.resolved', order.id).length > 0 && events('receipt.rejected', order.id).length > 0,
    );
    assert.equal(events('appeal.resolved', order.id)[0]?.body.data.appeal.reason, 'no such transfer');
    assert.equal(events('receipt.rejected', order.id).length, 1);
    assert.equal(events('order.late_payment', order.id).length, 0);
    const page = await t.app.inject({ method: 'GET', url: `/form/${order.id}?lang=en` });
    assert.match(page.body, /data-status="rejected"/);
    assert.match(page.body, /no such transfer/);
    assert.match(page.body, /data-testid="appeal-form"/, 'a new claim may follow a rejected one');
  });

  it('refusals: a pending or paid order, a bad file, a too-old failure; nothing stored', async () => {
    const pending = (await createOrder(t.app, merchant, { amount: uniqueAmount() })).json() as { id: string };
    const onPending = await merchantAppeal(merchant, pending.id);
    assert.equal(onPending.statusCode, 409);
    assert.equal(onPending.json().message, 'ORDER_STATE_CONFLICT');
    const order = await failedOrder();
    const png = await payerAppeal(order.id, Buffer.from('not a receipt at all'), 'application/json');
    assert.equal(png.statusCode, 400);
    assert.match(png.json().message, /RECEIPT_/);
    const noFile = await merchantRequest(t.app, merchant, '/merchant/appeals', {
      body: { orderId: order.id },
    });
    assert.equal(noFile.statusCode, 400);
    assert.equal(noFile.json().message, 'RECEIPT_REQUIRED');
    const rows = await t.database.db.select().from(appeals).where(eq(appeals.orderId, order.id));
    assert.equal(rows.length, 0);
    clock.advance(8 * 86_400_000);
    const late = await merchantAppeal(merchant, order.id, pdfFile('week later'));
    assert.equal(late.statusCode, 409, 'past APPEAL_WINDOW_DAYS');
    const unknown = await payerAppeal('lux-nope', pngFile());
    assert.equal(unknown.statusCode, 404);
  });

  it('parallel claims on one order: exactly one opens, the others are 409', async () => {
    const order = await failedOrder();
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => payerAppeal(order.id, pdfFile(`p${i}`), 'application/json')),
    );
    const codes = answers.map((a) => a.statusCode).sort();
    assert.equal(codes.filter((c) => c === 200).length, 1, JSON.stringify(codes));
    assert.ok(
      codes.every((c) => c === 200 || c === 409),
      JSON.stringify(codes),
    );
    const rows = await t.database.db.select().from(appeals).where(eq(appeals.orderId, order.id));
    assert.equal(rows.length, 1);
  });
});
