import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { auditLog } from '../../src/db/tables/audit.js';
import { deviceEvents } from '../../src/db/tables/devices.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { consoleLogin, consolePost } from '../helpers/console.js';
import {
  addRequisite,
  admin,
  adminRaw,
  createMerchant,
  createOrder,
  type TestMerchant,
} from '../helpers/merchant-client.js';
import {
  forwarderPost,
  gatewaySms,
  gsonEscape,
  moscowTime,
  nativePost,
  type PairedDevice,
  pairDevice,
  postSigned,
  smsReceivedBody,
} from '../helpers/phones.js';

// Money safety of phones' messages end to end (docs/decisions.md "Bank messages: how they are read
// and when they credit"). Uralsib is this file's bank (same-bank type `uralsib`): no other file takes
// its orders. It has no rules of its own: once its sender is listed its texts are read by their
// parts. Texts are synthetic, in the common shapes.
const SENDER = 'URALSIB';
const credit = (amount: string, extra = '') =>
  `Поступление средств ${amount} руб. на счет *5512.${extra} Баланс 25340.50 руб.`;

describe('phone messages: only evidence of money coming in confirms, once', () => {
  let t: TestApp;
  let merchant: TestMerchant;
  let requisite: { id: string };
  let device: PairedDevice;
  let next = 61_000;
  const orderOk = async () => {
    next += 31;
    const res = await createOrder(t.app, merchant, { type: 'uralsib', currency: 'RUB', amount: next });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { id: string; order_id?: string; payment_details: { amount: string } };
  };
  const statusOf = async (id: string) =>
    (await admin<{ status: string }>(t.app, 'GET', `/admin/orders/${id}`)).status;
  const sms = (text: string, at = new Date(), sender = SENDER) =>
    gatewaySms(t.app, device, { sender, text, receivedAt: at }, Date.now());
  const pausedReason = async () =>
    (
      await admin<Array<{ id: string; paused_reason: string | null }>>(t.app, 'GET', '/admin/requisites')
    ).find((r) => r.id === requisite.id)?.paused_reason;

  before(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app, { order_ttl_seconds: 900 });
    requisite = await addRequisite(t.app, {
      kind: 'card',
      bank: 'Uralsib',
      address: '2200300000005512',
    });
    await admin(t.app, 'PATCH', '/admin/banks/uralsib', { sms_senders: [SENDER] });
    device = await pairDevice(t.app, [requisite.id]);
  });
  after(() => t.close());

  it("the holder's outgoing money never confirms the pending order of the same amount", async () => {
    const o = await orderOk();
    const amount = o.payment_details.amount;
    for (const text of [
      `Списание средств ${amount}.00 руб. со счета *5512`,
      `Перевод на карту Иван И. ${amount} руб. Счет *5512`,
      `Счет *5512: -${amount} руб. Остаток 100 руб.`,
    ]) {
      const res = await sms(text);
      assert.equal(res.json().data.status, 'ignored', `${text}: ${res.body}`);
    }
    assert.equal(await statusOf(o.id), 'pending');
    const confirmed = await sms(credit(`${amount}.00`));
    assert.equal(confirmed.json().data.status, 'confirmed', confirmed.body);
  });

  it("a payer's transfer whose comment says 'blocked' credits and pauses nothing", async () => {
    const o = await orderOk();
    const text = credit(
      `${o.payment_details.amount}.00`,
      ' Сообщение: ваш перевод ограничен, карта заблокирована.',
    );
    const res = await sms(text);
    assert.equal(res.json().data.status, 'confirmed', res.body);
    assert.equal(await pausedReason(), null);
  });

  it('a credit with two amounts, or a comment that mimics a bigger credit, never confirms by itself', async () => {
    const o = await orderOk();
    const amount = o.payment_details.amount;
    const two = await sms(`Поступление ${amount} руб. и 10 руб. на счет *5512`);
    assert.equal(two.json().data.reason, 'two_amounts', two.body);
    const small = await sms(credit('10.00', ` Сообщение: Поступление средств ${amount} руб.`));
    assert.equal(small.json().data.status, 'review', small.body);
    assert.equal(small.json().data.reason, 'no_order');
    assert.equal(await statusOf(o.id), 'pending');
  });

  it('codes, ads and balance notices are stored and counted but not queued for a person', async () => {
    for (const text of [
      'Код для входа: 4410',
      'Кредит наличными до 5 000 000 руб. по ставке от 4%! Подробнее на сайте',
      'Баланс счета *5512: 25340.50 руб.',
    ]) {
      const res = await sms(text);
      assert.equal(res.json().data.status, 'ignored', `${text}: ${res.body}`);
      const [row] = await t.database.db
        .select()
        .from(deviceEvents)
        .where(eq(deviceEvents.id, res.json().data.event_id));
      assert.equal(row?.text, text, 'stored with its text');
    }
  });

  it("a credit from a sender the bank's list lacks waits as unknown_source; 'this sender is Uralsib' confirms it", async () => {
    const o = await orderOk();
    const res = await sms(credit(`${o.payment_details.amount}.00`), new Date(), 'URALSIB-INFO');
    assert.equal(res.json().data.reason, 'unknown_source', res.body);
    const support = await adminRaw(t.app, 'POST', '/admin/banks/nobank/sources', {
      event_id: res.json().data.event_id,
    });
    assert.equal(support.statusCode, 404, support.body);
    const marked = await admin<{ outcome: { status: string } | null; source: string }>(
      t.app,
      'POST',
      '/admin/banks/uralsib/sources',
      { event_id: res.json().data.event_id },
    );
    assert.equal(marked.outcome?.status, 'confirmed', JSON.stringify(marked));
    assert.equal(await statusOf(o.id), 'success');
    const bank = (
      await admin<Array<{ code: string; sms_senders: string[] }>>(t.app, 'GET', '/admin/banks')
    ).find((b) => b.code === 'uralsib');
    assert.ok(bank?.sms_senders.includes('URALSIB-INFO'));
    const audited = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'bank.update'), eq(auditLog.targetId, 'uralsib')));
    assert.ok(audited.length > 0, 'the sender change is audited');
    await admin(t.app, 'PATCH', '/admin/banks/uralsib', { sms_senders: [SENDER] });
  });

  it('one SMS reported by SMS Gateway and by SmsForwarder a second later credits once', async () => {
    const o = await orderOk();
    const at = new Date();
    const text = credit(`${o.payment_details.amount}.00`);
    const first = await sms(text, at);
    assert.equal(first.json().data.status, 'confirmed', first.body);
    const second = await forwarderPost(t.app, device, {
      from: SENDER,
      text,
      receivedAt: new Date(at.getTime() + 1000),
    });
    assert.equal(second.json().data.status, 'duplicate', second.body);
    assert.equal(second.json().data.event_id, first.json().data.event_id);
  });

  it('the SMS of a transfer whose push paid an order 150 s before never pays a newer order of that amount', async () => {
    // docs/bank-messages.md "When a credit read right still confirms nothing by itself": the push paid A;
    // order B then took the same amount; the SMS of the same transfer comes past the pairing window.
    await admin(t.app, 'PATCH', '/admin/banks/uralsib', {
      sms_senders: [SENDER],
      app_packages: ['ru.uralsib.synthetic'],
    });
    const a = await orderOk();
    const amount = a.payment_details.amount;
    const pushAt = new Date(Date.now() - 60_000);
    const push = await nativePost(
      t.app,
      device,
      [
        {
          event_id: randomUUID(),
          kind: 'push',
          source: 'ru.uralsib.synthetic',
          text: `Поступление средств ${amount} руб. на счет *5512.`,
          occurred_at: pushAt.toISOString(),
        },
      ],
      Date.now(),
    );
    assert.equal(push.json().data.results[0].status, 'confirmed', push.body);
    const b = await createOrder(t.app, merchant, {
      type: 'uralsib',
      currency: 'RUB',
      amount: Number(amount),
    });
    assert.equal(b.json().payment_details.amount, amount, 'B holds the amount A paid');
    const late = await sms(credit(`${amount}.00`), new Date(pushAt.getTime() + 150_000));
    assert.deepEqual(
      [late.json().data.status, late.json().data.reason],
      ['review', 'several_orders'],
      late.body,
    );
    assert.equal(await statusOf(b.json().id), 'pending');
    assert.equal(await statusOf(a.id), 'success');
  });

  it('an incoming transfer the bank says was cancelled or not credited waits for a person, never credits', async () => {
    const o = await orderOk();
    for (const text of [
      `Поступление средств ${o.payment_details.amount} руб. на счет *5512 отменено.`,
      `Перевод от Иван И. ${o.payment_details.amount} руб. не зачислен. Счет *5512`,
    ]) {
      const res = await sms(text);
      assert.deepEqual(
        [res.json().data.status, res.json().data.reason],
        ['review', 'no_direction'],
        res.body,
      );
    }
    assert.equal(await statusOf(o.id), 'pending');
  });

  it('the same SMS from both apps in parallel over real HTTP: one credit, one duplicate', async () => {
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const o = await orderOk();
    const at = new Date();
    const text = credit(`${o.payment_details.amount}.00`);
    const gatewayBody = smsReceivedBody({ sender: SENDER, text, receivedAt: at });
    const forwarderBody = device.sms_forwarder.template
      .replace('[from]', SENDER)
      .replace('[org_content]', gsonEscape(text))
      .replace('[title]', 'SIM1')
      .replace(/\[receive_time(:(.*?))?]/, () => moscowTime(new Date(at.getTime() + 900)));
    const ts = String(Math.floor(Date.now() / 1000));
    const sig = createHmac('sha256', device.sms_gateway.signing_key)
      .update(gatewayBody)
      .update(ts)
      .digest('hex');
    const path = (u: string) => new URL(u).pathname;
    const answers = await Promise.all([
      fetch(`${address}${path(device.sms_gateway.url)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-timestamp': ts, 'x-signature': sig },
        body: gatewayBody,
      }),
      fetch(`${address}${path(device.sms_forwarder.url)}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${device.sms_forwarder.token}`,
        },
        body: forwarderBody,
      }),
    ]);
    const statuses = (await Promise.all(answers.map((a) => a.json()))).map(
      (j) => (j as { data: { status: string } }).data.status,
    );
    assert.deepEqual(statuses.sort(), ['confirmed', 'duplicate'], JSON.stringify(statuses));
    assert.equal(await statusOf(o.id), 'success');
    const stored = await t.database.db.select().from(deviceEvents).where(eq(deviceEvents.text, text));
    assert.equal(stored.length, 1, 'stored once');
  });

  it('hostile input: a wrong signature is 401, a huge body 413, a replay a duplicate; never a 500 or a credit', async () => {
    const o = await orderOk();
    const body = smsReceivedBody({
      sender: SENDER,
      text: credit(`${o.payment_details.amount}.00`),
      receivedAt: new Date(),
    });
    const forged = await postSigned(t.app, device.sms_gateway.url, 'not-the-key', body, {
      nowMs: Date.now(),
    });
    assert.equal(forged.statusCode, 401);
    const huge = smsReceivedBody({
      sender: SENDER,
      text: 'Поступление 1 руб. '.repeat(10_000),
      receivedAt: new Date(),
    });
    const big = await postSigned(t.app, device.sms_gateway.url, device.sms_gateway.signing_key, huge, {
      nowMs: Date.now(),
    });
    assert.equal(big.statusCode, 413);
    const hostile = 'Поступление '.repeat(150) + '1'.repeat(900) + ' руб. от '.repeat(60);
    const odd = await sms(hostile);
    assert.equal(odd.statusCode, 200, odd.body);
    assert.notEqual(odd.json().data.status, 'confirmed');
    const once = await postSigned(t.app, device.sms_gateway.url, device.sms_gateway.signing_key, body, {
      nowMs: Date.now(),
    });
    const replay = await postSigned(t.app, device.sms_gateway.url, device.sms_gateway.signing_key, body, {
      nowMs: Date.now(),
    });
    assert.equal(once.json().data.status, 'confirmed', once.body);
    assert.equal(replay.json().data.status, 'duplicate', replay.body);
  });

  it("assigning by hand: a crypto order or another amount is refused with a code; the merchant's order_id works", async () => {
    const o = await orderOk();
    const res = await sms(`Поступление ${o.payment_details.amount} руб. на счет *5512 и 5 руб.`);
    assert.equal(res.json().data.status, 'review', res.body);
    const eventId = res.json().data.event_id as string;
    const wrong = await orderOk();
    const refused = await adminRaw(t.app, 'POST', `/admin/device-events/${eventId}/assign`, {
      order_id: wrong.id,
    });
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.json().message, 'MESSAGE_NOT_FOR_ORDER');
    assert.equal(await statusOf(wrong.id), 'pending');
    const external = (await admin<{ order_id: string }>(t.app, 'GET', `/admin/orders/${o.id}`)).order_id;
    const assigned = await adminRaw(t.app, 'POST', `/admin/device-events/${eventId}/assign`, {
      order_id: external,
    });
    assert.equal(assigned.statusCode, 200, assigned.body);
    assert.equal(await statusOf(o.id), 'success');
  });

  it('a review item reads as words and shows the orders it could be, one click away in the console (Russian too)', async () => {
    const o = await orderOk();
    const res = await sms(`Поступление ${o.payment_details.amount} руб. на счет *5512 и 7 руб.`);
    const eventId = res.json().data.event_id as string;
    const queue = await admin<Array<{ id: string; candidates: Array<{ id: string; order_id: string }> }>>(
      t.app,
      'GET',
      `/admin/device-events?status=review&device_id=${device.id}`,
    );
    const item = queue.find((e) => e.id === eventId);
    assert.deepEqual(
      item?.candidates.map((c) => c.id),
      [o.id],
    );
    const user = { username: `ops-${randomUUID().slice(0, 6)}`, password: 'a long enough password 31' };
    await admin(t.app, 'POST', '/admin/operators', { ...user, role: 'support' });
    const session = await consoleLogin(t.app, user.username, user.password);
    for (const [lang, words] of [
      ['en', 'Two amounts: pick the order'],
      ['ru', 'Две суммы: выберите заказ'],
    ] as const) {
      const page = await t.app.inject({
        method: 'GET',
        url: `/backoffice/device-events?lang=${lang}`,
        headers: { cookie: session.cookie },
      });
      assert.equal(page.statusCode, 200);
      assert.ok(page.body.includes(words), `${lang}: the reason in words`);
      assert.ok(page.body.includes(`name="order_id" value="${o.id}"`), `${lang}: the candidate's button`);
    }
    const done = await consolePost(t.app, session, `/backoffice/device-events/${eventId}/assign`, {
      order_id: o.id,
    });
    assert.match(String(done.headers.location), /msg=assigned/);
    assert.equal(await statusOf(o.id), 'success');
  });

  it("admin order endpoints take the merchant's order_id as well as our id", async () => {
    const external = `shop-${randomUUID()}`;
    const res = await createOrder(t.app, merchant, {
      type: 'uralsib',
      currency: 'RUB',
      amount: 70_001,
      order_id: external,
    });
    assert.equal(res.statusCode, 200, res.body);
    const o = res.json() as { id: string };
    const byExternal = await admin<{ id: string }>(
      t.app,
      'GET',
      `/admin/orders/${encodeURIComponent(external)}`,
    );
    assert.equal(byExternal.id, o.id);
    const cancelled = await admin<{ status: string }>(
      t.app,
      'POST',
      `/admin/orders/${encodeURIComponent(external)}/cancel`,
      { reason: 'payer gave up' },
    );
    assert.equal(cancelled.status, 'error');
    assert.equal((await adminRaw(t.app, 'GET', '/admin/orders/no-such-order')).statusCode, 404);
  });
});
