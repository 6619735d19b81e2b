import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import {
  addRequisite,
  admin,
  adminRaw,
  createMerchant,
  createOrder,
  type TestMerchant,
} from '../helpers/merchant-client.js';
import { forwarderPost, gatewaySms, nativePost, type PairedDevice, pairDevice } from '../helpers/phones.js';

// docs/decisions.md section 24: the review queue, blocks, liveness and concurrent credits. VTB is this
// file's bank (same-bank type `vtb`), Alfa-Bank the second app's: no other file takes their orders.
const rub = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
const vtbPush = (amount: number) => `Зачисление ${rub(amount)} ₽ от Анна К. по СБП`;
const moscowHHMM = (at: Date) => new Date(at.getTime() + 3 * 3600_000).toISOString().slice(11, 16);
const vtbSms = (amount: number, mask: string, at: Date) =>
  `Поступление ${amount}р Счет*${mask} от АННА К. Баланс 99000.50р ${moscowHHMM(at)}`;
const VTB_APP = 'ru.vtb24.mobilebanking.android';

describe('review queue, blocks, liveness and concurrent credits (docs/decisions.md section 24)', () => {
  const clock = manualClock();
  let t: TestApp;
  let merchant: TestMerchant;
  let requisite: { id: string };
  let device: PairedDevice;
  let next = 52_000;
  const order = async (amount?: number) => {
    next += 23;
    const res = await createOrder(t.app, merchant, { type: 'vtb', currency: 'RUB', amount: amount ?? next });
    return res;
  };
  const orderOk = async (amount?: number) => {
    const res = await order(amount);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { id: string; payment_details: { amount: string } };
  };
  const statusOf = async (id: string) =>
    (await admin<{ status: string }>(t.app, 'GET', `/admin/orders/${id}`)).status;
  const push = (amount: number, at = new Date(clock.now())) =>
    forwarderPost(t.app, device, { from: VTB_APP, text: vtbPush(amount), receivedAt: at });
  const pausedReason = async (id = requisite.id) =>
    (
      await admin<Array<{ id: string; paused_reason: string | null }>>(t.app, 'GET', '/admin/requisites')
    ).find((r) => r.id === id)?.paused_reason;

  before(async () => {
    t = await startTestApp({ clock });
    merchant = await createMerchant(t.app, { order_ttl_seconds: 900 });
    requisite = await addRequisite(t.app, { kind: 'card', bank: 'VTB', address: '2200240000001234' });
    device = await pairDevice(t.app, [requisite.id]);
  });
  after(() => t.close());

  it('a payment after the order expired is a late payment in the queue; an operator assigns it through the lifecycle, once', async () => {
    const o = await orderOk();
    clock.advance(901_000);
    await t.services.orders.expireDue();
    assert.equal(await statusOf(o.id), 'error');
    const res = await push(Number(o.payment_details.amount));
    assert.equal(res.json().data.status, 'review', res.body);
    assert.equal(res.json().data.reason, 'late');
    const queue = await admin<Array<{ id: string; order_id: string; text: string }>>(
      t.app,
      'GET',
      '/admin/device-events?status=review',
    );
    const item = queue.find((e) => e.id === res.json().data.event_id);
    assert.equal(item?.order_id, o.id);
    assert.equal(item?.text, vtbPush(Number(o.payment_details.amount)));
    const assigned = await admin<{ status: string }>(
      t.app,
      'POST',
      `/admin/device-events/${item?.id}/assign`,
      { order_id: o.id },
    );
    assert.equal(assigned.status, 'assigned');
    assert.equal(await statusOf(o.id), 'success');
    const again = await adminRaw(t.app, 'POST', `/admin/device-events/${item?.id}/assign`, {
      order_id: o.id,
    });
    assert.equal(again.statusCode, 409);
  });

  it("a mask that is not the requisite's waits for an operator, who may dismiss it with a reason; the amount must match to assign", async () => {
    const o = await orderOk();
    const at = new Date(clock.now());
    const res = await gatewaySms(
      t.app,
      device,
      { sender: 'VTB', text: vtbSms(Number(o.payment_details.amount), '9999', at), receivedAt: at },
      clock.now(),
    );
    assert.equal(res.json().data.reason, 'wrong_mask', res.body);
    const other = await orderOk();
    const mismatch = await adminRaw(
      t.app,
      'POST',
      `/admin/device-events/${res.json().data.event_id}/assign`,
      { order_id: other.id },
    );
    assert.equal(mismatch.statusCode, 409, 'amount differs');
    assert.equal(mismatch.json().message, 'MESSAGE_NOT_FOR_ORDER');
    assert.match(JSON.stringify(mismatch.json().details), /amount differs/);
    const dismissed = await admin<{ status: string; resolution: string }>(
      t.app,
      'POST',
      `/admin/device-events/${res.json().data.event_id}/dismiss`,
      { reason: 'not our card' },
    );
    assert.deepEqual([dismissed.status, dismissed.resolution], ['dismissed', 'not our card']);
    const right = await gatewaySms(
      t.app,
      device,
      { sender: 'VTB', text: vtbSms(Number(o.payment_details.amount), '1234', at), receivedAt: at },
      clock.now(),
    );
    assert.equal(right.json().data.status, 'confirmed', right.body);
    await gatewaySms(
      t.app,
      device,
      { sender: 'VTB', text: vtbSms(Number(other.payment_details.amount), '1234', at), receivedAt: at },
      clock.now(),
    );
  });

  it('concurrent credits for orders of neighbouring amounts each confirm their own order; parallel copies of one SMS credit once', async () => {
    const a = await orderOk(63_000);
    const b = await orderOk(63_001);
    assert.deepEqual([a.payment_details.amount, b.payment_details.amount], ['63000', '63001']);
    const at = new Date(clock.now());
    const sms = (amount: number) => ({ sender: 'VTB', text: vtbSms(amount, '1234', at), receivedAt: at });
    const results = await Promise.all([
      ...Array.from({ length: 4 }, () => gatewaySms(t.app, device, sms(63_000), clock.now())),
      ...Array.from({ length: 4 }, () => gatewaySms(t.app, device, sms(63_001), clock.now())),
    ]);
    const statuses = results.map((r) => r.json().data.status);
    assert.equal(statuses.filter((s) => s === 'confirmed').length, 2, statuses.join());
    assert.equal(statuses.filter((s) => s === 'duplicate').length, 6, statuses.join());
    assert.equal(await statusOf(a.id), 'success');
    assert.equal(await statusOf(b.id), 'success');
  });

  it('a quiet device: stale stops new orders, offline pauses and alerts, orders expired meanwhile are flagged; back online resumes', async () => {
    const beat = () =>
      nativePost(
        t.app,
        device,
        [
          {
            event_id: `hb${clock.now()}`,
            kind: 'heartbeat',
            occurred_at: new Date(clock.now()).toISOString(),
          },
        ],
        clock.now(),
      );
    assert.equal((await beat()).statusCode, 200);
    const pending = await orderOk();
    clock.advance(4 * 60_000);
    await t.services.sweepLiveness();
    assert.equal(await pausedReason(), 'stale');
    assert.equal((await order()).json().message, 'REQUISITES_NOT_FOUND');
    clock.advance(7 * 60_000);
    const swept = await t.services.sweepLiveness();
    assert.ok(swept.paused >= 1);
    assert.equal(await pausedReason(), 'liveness');
    const listed = (await admin<Array<{ id: string; state: string }>>(t.app, 'GET', '/admin/devices')).find(
      (d) => d.id === device.id,
    );
    assert.equal(listed?.state, 'offline');
    clock.advance(5 * 60_000);
    await t.services.orders.expireDue();
    await t.services.sweepLiveness();
    const flagged = await admin<Array<{ order_id: string; reason: string }>>(
      t.app,
      'GET',
      '/admin/device-events?status=review',
    );
    assert.ok(flagged.some((e) => e.order_id === pending.id && e.reason === 'expired_while_offline'));
    assert.equal((await beat()).statusCode, 200);
    assert.equal(await pausedReason(), null);
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.match(metrics.body, /device_alerts_total\{kind="offline"\} 1/);
    assert.match(metrics.body, /devices\{state="online"\} \d+/);
    assert.match(metrics.body, /device_review_queue_age_seconds \d/);
    assert.match(metrics.body, /device_messages_total\{bank="vtb",parse="parsed"\} \d+/);
  });

  it("operators edit a bank's senders; payments confirmed by hand on a listening phone's requisite warn 'deaf'", async () => {
    const o = await orderOk();
    const at = new Date(clock.now());
    const before = await gatewaySms(
      t.app,
      device,
      { sender: 'VTB-Info', text: vtbSms(Number(o.payment_details.amount), '1234', at), receivedAt: at },
      clock.now(),
    );
    assert.equal(before.json().data.reason, 'unknown_source', before.body);
    const bank = await admin<{ sms_senders: string[] }>(t.app, 'PATCH', '/admin/banks/vtb', {
      sms_senders: ['VTB', 'VTB-Info'],
    });
    assert.deepEqual(bank.sms_senders, ['VTB', 'VTB-Info']);
    // Over a minute later: the same text within a minute would be the same message reported twice.
    const later = new Date(at.getTime() + 61_000);
    const after = await gatewaySms(
      t.app,
      device,
      {
        sender: 'VTB-Info',
        text: vtbSms(Number(o.payment_details.amount), '1234', later),
        receivedAt: later,
      },
      clock.now(),
    );
    assert.equal(after.json().data.status, 'confirmed', after.body);
    const restored = await admin<{ sms_senders: string[] }>(t.app, 'PATCH', '/admin/banks/vtb', {
      sms_senders: null,
    });
    assert.deepEqual(restored.sms_senders, ['VTB']);
    const byHand = await orderOk();
    await admin(t.app, 'POST', `/admin/orders/${byHand.id}/confirm`, {});
    const listed = (
      await admin<Array<{ id: string; warnings: string[] }>>(t.app, 'GET', '/admin/devices')
    ).find((d) => d.id === device.id);
    assert.ok(listed?.warnings.includes('deaf'), JSON.stringify(listed));
  });

  it('a block message from the bank pauses the requisite at once (pending orders stay, credits wait); from an unknown sender it is only an alert', async () => {
    const o = await orderOk();
    const phishing = await gatewaySms(
      t.app,
      device,
      {
        sender: '+79990001122',
        text: 'ВТБ: доступ к счету *1234 ограничен. Обратитесь в банк',
        receivedAt: new Date(clock.now()),
      },
      clock.now(),
    );
    assert.equal(phishing.json().data.status, 'alert', phishing.body);
    assert.equal(await pausedReason(), null);
    const block = await gatewaySms(
      t.app,
      device,
      {
        sender: 'VTB',
        text: 'ВТБ: доступ к счету *1234 ограничен. Обратитесь в банк',
        receivedAt: new Date(clock.now()),
      },
      clock.now(),
    );
    assert.equal(block.json().data.status, 'block', block.body);
    assert.equal(await pausedReason(), 'block');
    assert.equal((await order()).json().message, 'REQUISITES_NOT_FOUND');
    assert.equal(await statusOf(o.id), 'pending');
    const credit = await push(Number(o.payment_details.amount));
    assert.equal(credit.json().data.reason, 'requisite_blocked');
    const beat = await nativePost(
      t.app,
      device,
      [{ event_id: 'hb-after-block', kind: 'heartbeat', occurred_at: new Date(clock.now()).toISOString() }],
      clock.now(),
    );
    assert.equal(beat.statusCode, 200);
    assert.equal(await pausedReason(), 'block', 'liveness never lifts a block');
    await admin(t.app, 'PATCH', `/admin/requisites/${requisite.id}`, { paused_reason: null });
    assert.equal(await pausedReason(), null);
  });
});

describe('SmsForwarder as weaker evidence when the deployment asks (docs/decisions.md section 24)', () => {
  const clock = manualClock();
  let t: TestApp;
  it('its credits wait for an operator with the candidate order; SMS Gateway still confirms', async () => {
    t = await startTestApp({ clock, config: { smsForwarderNeedsOperator: true } });
    const merchant = await createMerchant(t.app);
    const requisite = await addRequisite(t.app, {
      kind: 'card',
      bank: 'Alfa-Bank',
      address: '2200150000005678',
    });
    const device = await pairDevice(t.app, [requisite.id]);
    const make = async (amount: number) =>
      (await createOrder(t.app, merchant, { type: 'alfa', currency: 'RUB', amount })).json() as {
        id: string;
      };
    const o = await make(71_001);
    const res = await forwarderPost(t.app, device, {
      from: 'ru.alfabank.mobile.android',
      text: 'Входящий перевод 71 001 ₽ от Анна К.',
      receivedAt: new Date(clock.now()),
    });
    const data = res.json().data;
    assert.deepEqual([data.status, data.reason], ['review', 'needs_operator']);
    const queue = await admin<Array<{ id: string; order_id: string }>>(
      t.app,
      'GET',
      '/admin/device-events?status=review',
    );
    assert.equal(queue.find((e) => e.id === data.event_id)?.order_id, o.id);
    const signed = await make(72_002);
    const at = new Date(clock.now());
    const sms = await gatewaySms(
      t.app,
      device,
      {
        sender: 'Alfa-Bank',
        text: 'Пополнение *5678 на 72 002,00 RUR. Баланс: 99 000,00 RUR',
        receivedAt: at,
      },
      clock.now(),
    );
    assert.equal(sms.json().data.status, 'confirmed', sms.body);
    assert.equal(
      (await admin<{ status: string }>(t.app, 'GET', `/admin/orders/${signed.id}`)).status,
      'success',
    );
  });
  after(() => t?.close());
});
