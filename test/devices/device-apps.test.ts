import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { deviceEvents, holderDevices } from '../../src/db/tables/devices.js';
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
import {
  forwarderPost,
  gatewaySms,
  nativePost,
  type PairedDevice,
  pairDevice,
  pingBody,
  postSigned,
  smsReceivedBody,
} from '../helpers/phones.js';

// docs/decisions.md section 24: each app's exact request, pairing, authentication, sizes and transport
// de-duplication. T-Bank is this file's bank (same-bank type `tbank`): no other file takes its orders.
const rub = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
const tbankSms = (amount: number, balance: number) =>
  `Пополнение, счет RUB. ${rub(amount)} ₽. Анна К. Доступно ${rub(balance)} ₽`;
const tbankPush = (amount: number, balance: number) =>
  `Пополнение на ${rub(amount)} ₽, счет RUB. Анна К. Доступно ${rub(balance)} ₽`;

describe('phones: pairing and what each app sends (docs/decisions.md section 24)', () => {
  const clock = manualClock();
  let t: TestApp;
  let merchant: TestMerchant;
  let requisite: { id: string };
  let device: PairedDevice;
  let next = 41_000;
  const order = async () => {
    next += 17;
    const res = await createOrder(t.app, merchant, { type: 'tbank', currency: 'RUB', amount: next });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { id: string; payment_details: { amount: string } };
  };
  const statusOf = async (id: string) =>
    (await admin<{ status: string }>(t.app, 'GET', `/admin/orders/${id}`)).status;
  const eventsOf = (deviceId: string) =>
    t.database.db.select().from(deviceEvents).where(eq(deviceEvents.deviceId, deviceId));

  before(async () => {
    t = await startTestApp({ clock });
    merchant = await createMerchant(t.app);
    requisite = await addRequisite(t.app, { kind: 'card', bank: 'T-Bank', address: '2200701234564821' });
    device = await pairDevice(t.app, [requisite.id]);
  });
  after(() => t.close());

  it('a phone publishes a pool offer on its own requisite at /holder/offers and at the earlier /trader/offers, never on another', async () => {
    // Another bank's requisite that takes no order (max 1 ₽): no file's orders land on it.
    const other = await addRequisite(t.app, {
      kind: 'card',
      bank: 'VTB',
      address: '2200241234569999',
      max_amount: '1',
    });
    const publish = (url: string, requisiteId: string, amount: number) =>
      t.app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${device.token}`, 'content-type': 'application/json' },
        payload: { requisite_id: requisiteId, amount, type: 'tbank', ttl_seconds: 600 },
      });
    const current = await publish('/holder/offers', requisite.id, 4_321);
    assert.equal(current.statusCode, 200, current.body);
    const earlier = await publish('/trader/offers', requisite.id, 4_322);
    assert.equal(earlier.statusCode, 200, earlier.body);
    assert.notEqual(current.json().data.id, earlier.json().data.id);
    const foreign = await publish('/holder/offers', other.id, 4_323);
    assert.equal(foreign.statusCode, 403, foreign.body);
    const anonymous = await t.app.inject({ method: 'POST', url: '/holder/offers', payload: {} });
    assert.equal(anonymous.statusCode, 401);
  });

  it("creation answers every app's setup once; secrets are not kept in clear; the pairing link is claimed once within 15 minutes", async () => {
    assert.match(
      device.sms_gateway.url,
      /^https:\/\/pay\.example\.test\/devices\/[0-9a-f-]{36}\/sms-gateway$/,
    );
    assert.ok(
      device.sms_gateway.commands.some(
        (c) => c.includes('"event":"sms:received"') && c.includes(device.sms_gateway.url),
      ),
    );
    assert.ok(device.sms_gateway.commands[0]?.includes(`"signing_key":"${device.sms_gateway.signing_key}"`));
    assert.match(device.sms_forwarder.template, /"\[org_content\]"/);
    assert.equal(device.sms_forwarder.token, device.token);
    const [row] = await t.database.db.select().from(holderDevices).where(eq(holderDevices.id, device.id));
    const stored = JSON.stringify(row);
    for (const secret of [device.token, device.sms_gateway.signing_key, device.native.secret]) {
      assert.ok(!stored.includes(secret), 'a secret is stored in clear');
    }
    const link = new URL(device.pairing.url).pathname;
    const json = { accept: 'application/json', 'content-type': 'application/json' };
    const opened = await t.app.inject({ method: 'GET', url: link, headers: { accept: 'application/json' } });
    assert.equal(opened.statusCode, 200, opened.body);
    assert.ok(!opened.body.includes(device.sms_gateway.signing_key), 'opening the link shows no secret');
    const first = await t.app.inject({ method: 'POST', url: link, headers: json, payload: '{}' });
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json().data.sms_gateway.signing_key, device.sms_gateway.signing_key);
    assert.equal(first.headers['cache-control'], 'no-store');
    const again = await t.app.inject({ method: 'POST', url: link, headers: json, payload: '{}' });
    assert.equal(again.statusCode, 409, 'one time');
    const late = await pairDevice(t.app, []);
    clock.advance(16 * 60_000);
    const expired = await t.app.inject({
      method: 'POST',
      url: new URL(late.pairing.url).pathname,
      headers: json,
      payload: '{}',
    });
    assert.equal(expired.statusCode, 410);
  });

  it('a requisite has at most one device', async () => {
    const res = await adminRaw(t.app, 'POST', '/admin/devices', {
      name: 'second',
      requisite_ids: [requisite.id],
    });
    assert.equal(res.statusCode, 409, res.body);
    assert.equal(res.json().message, 'REQUISITE_ALREADY_BOUND');
  });

  it('SMS Gateway: a credit SMS confirms the order; a retry (new event id, signed anew) is a duplicate; nothing is credited twice', async () => {
    const o = await order();
    const amount = Number(o.payment_details.amount);
    const sms = { sender: 'T-Bank', text: tbankSms(amount, 90_000), receivedAt: new Date(clock.now()) };
    const res = await gatewaySms(t.app, device, sms, clock.now());
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.status, 'confirmed');
    assert.equal(await statusOf(o.id), 'success');
    clock.advance(30_000);
    const retry = await gatewaySms(t.app, device, sms, clock.now());
    assert.equal(retry.json().data.status, 'duplicate');
    assert.equal(retry.json().data.event_id, res.json().data.event_id);
    const balance = (await merchantRequest(t.app, merchant, `/merchant/balance/${merchant.id}`)).json();
    const rubBalance = balance.balances.find((b: { currency: string }) => b.currency === 'RUB');
    assert.ok(rubBalance.balance < amount + 1, 'credited once');
  });

  it('SMS then push of one transfer (SMS Gateway + SmsForwarder) credit once: the push is paired', async () => {
    const o = await order();
    const amount = Number(o.payment_details.amount);
    const at = new Date(clock.now());
    const sms = await gatewaySms(
      t.app,
      device,
      { sender: 'Tinkoff', text: tbankSms(amount, 55_555), receivedAt: at },
      clock.now(),
    );
    assert.equal(sms.json().data.status, 'confirmed', sms.body);
    const push = await forwarderPost(t.app, device, {
      from: 'com.idamob.tinkoff.android',
      title: 'Т-Банк',
      text: tbankPush(amount, 55_555),
      receivedAt: new Date(at.getTime() + 4000),
    });
    assert.equal(push.statusCode, 200, push.body);
    assert.equal(push.json().data.status, 'paired');
    const events = await eventsOf(device.id);
    assert.equal(events.filter((e) => e.orderId === o.id && e.status === 'confirmed').length, 1);
  });

  it('two SMS of the same amount are two payments, never paired: the second waits for an operator', async () => {
    const o = await order();
    const amount = Number(o.payment_details.amount);
    const at = new Date(clock.now());
    const a = await gatewaySms(
      t.app,
      device,
      { sender: 'T-Bank', text: tbankSms(amount, 10_000), receivedAt: at },
      clock.now(),
    );
    const b = await gatewaySms(
      t.app,
      device,
      {
        sender: 'T-Bank',
        text: tbankSms(amount, 10_000 + amount),
        receivedAt: new Date(at.getTime() + 20_000),
      },
      clock.now(),
    );
    assert.equal(a.json().data.status, 'confirmed');
    assert.equal(b.json().data.status, 'review');
    assert.equal(b.json().data.reason, 'no_order');
  });

  it('SmsForwarder: a bank push confirms; a wrong or missing token is 401 with nothing stored; a private SMS is kept without its text', async () => {
    const o = await order();
    const amount = Number(o.payment_details.amount);
    const before = (await eventsOf(device.id)).length;
    const bad = await forwarderPost(
      t.app,
      device,
      { from: 'com.idamob.tinkoff.android', text: tbankPush(amount, 1), receivedAt: new Date(clock.now()) },
      'dev_wrong',
    );
    assert.equal(bad.statusCode, 401);
    assert.equal((await eventsOf(device.id)).length, before, 'nothing stored');
    const res = await forwarderPost(t.app, device, {
      from: 'com.idamob.tinkoff.android',
      title: 'Пополнение',
      text: tbankPush(amount, 77_000),
      receivedAt: new Date(clock.now()),
    });
    assert.equal(res.json().data.status, 'confirmed', res.body);
    assert.equal(await statusOf(o.id), 'success');
    const friend = await forwarderPost(t.app, device, {
      from: '+79161234567',
      text: 'Привет! Перезвони, это "Анна" <3 & ещё 1500',
      receivedAt: new Date(clock.now()),
    });
    assert.equal(friend.json().data.status, 'ignored');
    const [kept] = (await eventsOf(device.id)).filter((e) => e.id === friend.json().data.event_id);
    assert.equal(kept?.text, null);
  });

  it('signed endpoints: a bad signature, a stale timestamp, an unknown device are 401 with nothing stored; over 64 KB is 413', async () => {
    const before = (await eventsOf(device.id)).length;
    const body = smsReceivedBody({
      sender: 'T-Bank',
      text: tbankSms(999, 1),
      receivedAt: new Date(clock.now()),
    });
    const now = clock.now();
    const wrongKey = await postSigned(t.app, device.sms_gateway.url, 'not-the-key', body, { nowMs: now });
    const stale = await postSigned(t.app, device.sms_gateway.url, device.sms_gateway.signing_key, body, {
      nowMs: now,
      timestamp: Math.floor(now / 1000) - 301,
    });
    const unknown = await postSigned(
      t.app,
      device.sms_gateway.url.replace(device.id, '00000000-0000-4000-8000-000000000000'),
      device.sms_gateway.signing_key,
      body,
      { nowMs: now },
    );
    const unsigned = await t.app.inject({
      method: 'POST',
      url: new URL(device.native.url).pathname,
      headers: { 'content-type': 'application/json' },
      payload: '{"events":[]}',
    });
    for (const r of [wrongKey, stale, unknown, unsigned]) assert.equal(r.statusCode, 401, r.body);
    assert.equal((await eventsOf(device.id)).length, before, 'nothing stored');
    const huge = smsReceivedBody({
      sender: 'T-Bank',
      text: 'x'.repeat(70_000),
      receivedAt: new Date(now),
    });
    const big = await postSigned(t.app, device.sms_gateway.url, device.sms_gateway.signing_key, huge, {
      nowMs: now,
    });
    assert.equal(big.statusCode, 413);
  });

  it('system:ping gives health and liveness; other events are ignored with 2xx', async () => {
    const ping = await postSigned(
      t.app,
      device.sms_gateway.url,
      device.sms_gateway.signing_key,
      pingBody({ battery: 12, charging: false, connection: 'fail' }),
      { nowMs: clock.now() },
    );
    assert.equal(ping.json().data.status, 'ok', ping.body);
    const sent = JSON.stringify({
      id: 'x1',
      webhookId: 'w',
      event: 'sms:sent',
      deviceId: 'd',
      payload: { messageId: '1', phoneNumber: '+7900', sentAt: '2026-11-24T10:00:00.000+03:00' },
    });
    const ignored = await postSigned(t.app, device.sms_gateway.url, device.sms_gateway.signing_key, sent, {
      nowMs: clock.now(),
    });
    assert.equal(ignored.json().data.status, 'ignored');
    const listed = (await admin<Array<Record<string, unknown>>>(t.app, 'GET', '/admin/devices')).find(
      (d) => d.id === device.id,
    );
    assert.equal(listed?.state, 'online');
    assert.deepEqual(listed?.health, { battery_percent: 12, charging: false, connection: 'fail' });
    assert.deepEqual(listed?.warnings, ['low_battery', 'no_connection']);
    assert.deepEqual(listed?.requisite_ids, [requisite.id]);
  });

  it('the native batch: raw texts and a heartbeat, each answered in order', async () => {
    const o = await order();
    const amount = Number(o.payment_details.amount);
    const at = new Date(clock.now()).toISOString();
    const res = await nativePost(
      t.app,
      device,
      [
        { event_id: 'n1', kind: 'heartbeat', occurred_at: at },
        {
          event_id: 'n2',
          kind: 'push',
          source: 'com.idamob.tinkoff.android',
          text: tbankPush(amount, 3),
          occurred_at: at,
        },
        {
          event_id: 'n3',
          kind: 'sms',
          source: 'T-Bank',
          text: 'Никому не говорите код 5531. Вход в Т-Банк',
          occurred_at: at,
        },
      ],
      clock.now(),
    );
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      res
        .json()
        .data.results.map((r: { client_event_id: string; status: string }) => [r.client_event_id, r.status]),
      [
        ['n1', 'ok'],
        ['n2', 'confirmed'],
        ['n3', 'ignored'],
      ],
    );
    const tooMany = await nativePost(
      t.app,
      device,
      Array.from({ length: 101 }, (_, i) => ({ event_id: `h${i}`, kind: 'heartbeat', occurred_at: at })),
      clock.now(),
    );
    assert.equal(tooMany.statusCode, 400);
  });

  it('rotation keeps the old secrets for the grace period only; revocation stops everything at once', async () => {
    const rotated = await admin<PairedDevice>(t.app, 'POST', `/admin/devices/${device.id}/rotate`, {
      grace_seconds: 600,
    });
    const ping = pingBody({ battery: 80, charging: true, connection: 'pass' });
    const old = () =>
      postSigned(t.app, device.sms_gateway.url, device.sms_gateway.signing_key, ping, { nowMs: clock.now() });
    const fresh = () =>
      postSigned(t.app, rotated.sms_gateway.url, rotated.sms_gateway.signing_key, ping, {
        nowMs: clock.now(),
      });
    assert.equal((await old()).statusCode, 200);
    assert.equal((await fresh()).statusCode, 200);
    clock.advance(601_000);
    assert.equal((await old()).statusCode, 401);
    assert.equal((await fresh()).statusCode, 200);
    const revoked = await admin<{ unbound_requisite_ids: string[] }>(
      t.app,
      'POST',
      `/admin/devices/${device.id}/revoke`,
    );
    assert.deepEqual(revoked.unbound_requisite_ids, [requisite.id]);
    assert.equal((await fresh()).statusCode, 401);
    const legacy = await t.app.inject({
      method: 'POST',
      url: '/trader/offers',
      headers: { authorization: `Bearer ${rotated.token}`, 'content-type': 'application/json' },
      payload: '{}',
    });
    assert.equal(legacy.statusCode, 401);
    const listed = (await admin<Array<Record<string, unknown>>>(t.app, 'GET', '/admin/devices')).find(
      (d) => d.id === device.id,
    );
    assert.equal(listed?.state, 'revoked');
  });
});
