import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  addRequisite,
  admin,
  adminRaw,
  createMerchant,
  createOrder,
  type TestMerchant,
} from '../helpers/merchant-client.js';
import { gatewaySms, type PairedDevice, pairDevice } from '../helpers/phones.js';

// docs/decisions.md "Rules learned from the review queue". Ak Bars is this file's bank (same-bank
// type `ak_bars`; no built-in rules, read by parts once its sender is listed): no other file takes its orders.
const SENDER = 'AKBARS';
const sbp = (amount: string, mask = '4821') =>
  `Karta*${mask}. SBP-C2C ${amount}RUR. 15.10.20 09:43. Ostatok 9000.00RUR. Detali akbars.ru/sbp/`;
// A real Ak Bars purchase (corpus akbars-008, "Retail 3457.85RUR"), here of the order's amount: no
// word of direction, so the reader leaves it in doubt and an operator may assign it by mistake.
const purchase = (amount: string) =>
  `Karta*0799. Retail ${amount}RUR. KAZAN, USLUGI TATARSTAN RU. 15.10.20 09:43. Ostatok 4651.20RUR. Detali akbars.ru/abol/`;

type Rule = {
  id: string;
  status: string;
  pattern: string;
  bank_code: string;
  examples: Array<{ amount: string }>;
};

describe('rules learned from the review queue: the admin API', () => {
  let t: TestApp;
  let merchant: TestMerchant;
  let device: PairedDevice;
  const tokens: Record<string, string> = {};
  const as = (role: string, method: 'GET' | 'POST', url: string, body?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: {
        authorization: `Bearer ${tokens[role]}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  let next = 61_000;
  const order = async (amount?: string) => {
    next += 37;
    const res = await createOrder(t.app, merchant, {
      type: 'ak_bars',
      currency: 'RUB',
      amount: Number(amount ?? next),
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { id: string; payment_details: { amount: string } };
  };
  const sms = async (text: string) => {
    const res = await gatewaySms(t.app, device, { sender: SENDER, text, receivedAt: new Date() }, Date.now());
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data as { status: string; event_id: string; reason?: string };
  };
  const statusOf = async (id: string) =>
    (await admin<{ status: string }>(t.app, 'GET', `/admin/orders/${id}`)).status;
  /** A message in review assigned by a support operator to an order of its amount. */
  const assigned = async (text: (amount: string) => string, amount?: string) => {
    const o = await order(amount);
    const got = await sms(text(o.payment_details.amount));
    assert.equal(got.status, 'review', JSON.stringify(got));
    const res = await as('support', 'POST', `/admin/device-events/${got.event_id}/assign`, {
      order_id: o.id,
    });
    assert.equal(res.statusCode, 200, res.body);
    return { order: o, eventId: got.event_id };
  };

  before(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app);
    await admin(t.app, 'PATCH', '/admin/banks/ak_bars', { sms_senders: [SENDER] });
    // Its own amount band: another file's Ak Bars orders (below 60,000) never land on this requisite.
    const requisite = await addRequisite(t.app, {
      kind: 'card',
      bank: 'ak_bars',
      min_amount: '60000',
      max_amount: '69999',
    });
    await admin(t.app, 'PATCH', `/admin/requisites/${requisite.id}`, { masks: ['4821', '0799'] });
    device = await pairDevice(t.app, [requisite.id]);
    for (const role of ['admin', 'support', 'viewer']) {
      const username = `rules-${role}-${randomUUID().slice(0, 8)}`;
      await admin(t.app, 'POST', '/admin/operators', { username, role });
      tokens[role] = (
        await admin<{ token: string }>(t.app, 'POST', `/admin/operators/${username}/tokens`, { name: 'test' })
      ).token;
    }
  });
  after(() => t.close());

  it('a support operator proposes a rule from an assigned message, an admin switches it on, and the next message of that shape confirms its order', async () => {
    const { eventId, order: first } = await assigned((a) => sbp(a));
    const proposed = await as('support', 'POST', '/admin/bank-rules', { event_id: eventId });
    assert.equal(proposed.statusCode, 200, proposed.body);
    const rule = proposed.json().data as Rule;
    assert.equal(rule.status, 'proposed');
    assert.equal(rule.bank_code, 'ak_bars');
    assert.match(rule.pattern, /\(\?<amount>/);
    assert.match(rule.pattern, /\(\?<mask>/);
    assert.equal(rule.examples[0]?.amount, first.payment_details.amount.replace(/\.0+$/, ''));

    const before = await order();
    assert.equal(
      (await sms(sbp(before.payment_details.amount))).status,
      'review',
      'a proposed rule reads nothing',
    );
    const enabled = await as('admin', 'POST', `/admin/bank-rules/${rule.id}/enable`);
    assert.equal(enabled.statusCode, 200, enabled.body);
    assert.equal(enabled.json().data.status, 'active');
    assert.match(enabled.json().data.enabled_by, /rules-admin-/);

    const o = await order();
    const read = await sms(sbp(o.payment_details.amount));
    assert.equal(read.status, 'confirmed', JSON.stringify(read));
    assert.equal(await statusOf(o.id), 'success');

    const audit = await admin<Array<{ action: string; target_id: string }>>(
      t.app,
      'GET',
      '/admin/audit?limit=50',
    );
    const actions = audit.filter((a) => a.target_id === rule.id).map((a) => a.action);
    assert.deepEqual(actions.sort(), ['bank_rule.enable', 'bank_rule.propose']);

    const off = await as('admin', 'POST', `/admin/bank-rules/${rule.id}/disable`);
    assert.equal(off.json().data.status, 'off', off.body);
    const later = await order();
    assert.equal(
      (await sms(sbp(later.payment_details.amount))).status,
      'review',
      'a rule switched off reads nothing',
    );
    const list = await as('viewer', 'GET', '/admin/bank-rules?status=off');
    assert.equal(list.statusCode, 200, list.body);
    assert.ok((list.json().data as Rule[]).some((r) => r.id === rule.id));
  });

  it('refuses to switch on a rule that reads a real purchase of the corpus as a credit, naming the text', async () => {
    const { eventId } = await assigned((a) => purchase(a));
    const proposed = await as('admin', 'POST', '/admin/bank-rules', { event_id: eventId });
    assert.equal(proposed.statusCode, 200, proposed.body);
    const res = await as('admin', 'POST', `/admin/bank-rules/${proposed.json().data.id}/enable`);
    assert.equal(res.statusCode, 409, res.body);
    assert.equal(res.json().message, 'RULE_READS_NON_CREDIT');
    assert.match(JSON.stringify(res.json().details), /corpus akbars-008 \(purchase\)/);
    assert.match(JSON.stringify(res.json().details), /Retail 3457\.85RUR/, 'the corpus text itself');
    const rule = (await as('admin', 'GET', '/admin/bank-rules'))
      .json()
      .data.find((r: Rule) => r.id === proposed.json().data.id);
    assert.equal(rule.status, 'proposed', 'a refused rule stays off');
  });

  it('refuses to switch on a rule that reads a message stored as a debit, naming the message', async () => {
    const debit = await sms('Karta*4821. SBP-C2C 700RUR. Spisanie po karte. Ostatok 9000.00RUR');
    const stored = (
      await admin<Array<{ id: string; kind: string }>>(t.app, 'GET', '/admin/device-events?status=ignored')
    ).find((e) => e.id === debit.event_id);
    assert.equal(stored?.kind, 'debit', JSON.stringify(debit));
    const { eventId } = await assigned((a) => sbp(a));
    const pattern = String.raw`^Karta\*(?<mask>\d{4})\. SBP-C2C (?<amount>\d+(?:[.,]\d{1,2})?)₽\..*$`;
    const proposed = await as('admin', 'POST', '/admin/bank-rules', { event_id: eventId, pattern });
    assert.equal(proposed.statusCode, 200, proposed.body);
    const res = await as('admin', 'POST', `/admin/bank-rules/${proposed.json().data.id}/enable`);
    assert.equal(res.json().message, 'RULE_READS_NON_CREDIT', res.body);
    assert.match(JSON.stringify(res.json().details), new RegExp(`message ${debit.event_id} \\(debit\\)`));
  });

  it('refuses malformed, hole-less and too broad patterns, unknown or unassigned messages, with clear codes', async () => {
    const { eventId } = await assigned((a) => sbp(a));
    const bad = async (body: unknown, status: number, code: string, detail?: RegExp) => {
      const res = await as('admin', 'POST', '/admin/bank-rules', body);
      assert.equal(res.statusCode, status, res.body);
      assert.equal(res.json().message, code);
      if (detail) assert.match(JSON.stringify(res.json().details), detail);
    };
    await bad({ event_id: eventId, pattern: '(' }, 400, 'VALIDATION_ERROR', /not a valid regular expression/);
    await bad({ event_id: eventId, pattern: 'Karta' }, 400, 'VALIDATION_ERROR', /no \(\?<amount>/);
    await bad({ event_id: eventId, pattern: '(?<sum>\\d+)' }, 400, 'VALIDATION_ERROR', /group named sum/);
    await bad(
      { event_id: eventId, pattern: '^Nope (?<amount>\\d+)$' },
      400,
      'VALIDATION_ERROR',
      /example's amount/,
    );
    await bad({ event_id: randomUUID() }, 404, 'NOT_FOUND');
    await bad({ event_id: 'not-an-id' }, 404, 'NOT_FOUND');
    const waiting = await sms(sbp(String(next + 999_000)));
    await bad({ event_id: waiting.event_id }, 409, 'RULE_STATE_CONFLICT', /assigned to an order/);
    // A credit the reader read by its words, waiting for want of an order, then assigned by hand.
    next += 37;
    const read = await sms(`Zachislenie ${next}RUR na kartu *4821`);
    assert.equal(read.reason, 'no_order', JSON.stringify(read));
    const late = await order(String(next));
    assert.equal(
      (await as('support', 'POST', `/admin/device-events/${read.event_id}/assign`, { order_id: late.id }))
        .statusCode,
      200,
    );
    await bad({ event_id: read.event_id }, 409, 'RULE_STATE_CONFLICT', /reads this text already/);

    const broad = await as('admin', 'POST', '/admin/bank-rules', {
      event_id: eventId,
      pattern: '(?<amount>\\d+(?:[.,]\\d+)?)₽',
    });
    assert.equal(broad.statusCode, 200, broad.body);
    const enable = await as('admin', 'POST', `/admin/bank-rules/${broad.json().data.id}/enable`);
    assert.equal(enable.json().message, 'RULE_TOO_BROAD', enable.body);
    const unknown = await as('admin', 'POST', `/admin/bank-rules/${randomUUID()}/enable`);
    assert.equal(unknown.json().message, 'NOT_FOUND', unknown.body);
  });

  it('lets only admins switch rules on or off, and viewers only read', async () => {
    const { eventId } = await assigned((a) => sbp(a, '4821'));
    assert.equal(
      (await as('viewer', 'POST', '/admin/bank-rules', { event_id: eventId })).json().message,
      'FORBIDDEN',
    );
    const proposed = await as('support', 'POST', '/admin/bank-rules', { event_id: eventId });
    const id = proposed.json().data.id;
    for (const action of ['enable', 'disable']) {
      const res = await as('support', 'POST', `/admin/bank-rules/${id}/${action}`);
      assert.equal(res.statusCode, 403, res.body);
      assert.equal((await as('viewer', 'POST', `/admin/bank-rules/${id}/${action}`)).statusCode, 403);
    }
    assert.equal((await adminRaw(t.app, 'GET', '/admin/bank-rules')).statusCode, 200);
    const anonymous = await t.app.inject({ method: 'GET', url: '/admin/bank-rules' });
    assert.equal(anonymous.statusCode, 401);
  });
});
