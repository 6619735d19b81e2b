import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type ConsoleSession, consoleLogin, consolePost } from '../helpers/console.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  type TestMerchant,
} from '../helpers/merchant-client.js';
import { gatewaySms, type PairedDevice, pairDevice } from '../helpers/phones.js';

// docs/decisions.md "Rules learned from the review queue", in the console. Wildberries Bank is this
// file's bank (same-bank type `wildberries`, read by parts once its sender is listed): no other file
// takes its orders.
const SENDER = 'WB-RULES';
const notice = (amount: string) => `WB Bank. Karta *5531. SBP ${amount}RUR. Dostupno 100.00RUR. wb.ru`;
// The shape of a real Ak Bars purchase (corpus akbars-008): no word of direction.
const purchase = (amount: string) =>
  `Karta*0799. Retail ${amount}RUR. KAZAN, USLUGI TATARSTAN RU. 15.10.20 09:43. Ostatok 4651.20RUR. Detali akbars.ru/abol/`;

describe('rules learned from the review queue: the console', () => {
  let t: TestApp;
  let merchant: TestMerchant;
  let device: PairedDevice;
  const sessions: Record<string, ConsoleSession> = {};
  let next = 71_000;
  const order = async () => {
    next += 41;
    const res = await createOrder(t.app, merchant, { type: 'wildberries', currency: 'RUB', amount: next });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { id: string; payment_details: { amount: string } };
  };
  const sms = async (text: string) =>
    (await gatewaySms(t.app, device, { sender: SENDER, text, receivedAt: new Date() }, Date.now())).json()
      .data as {
      status: string;
      event_id: string;
    };
  const page = (role: string, url: string) =>
    t.app.inject({ method: 'GET', url, headers: { cookie: sessions[role]?.cookie ?? '' } });
  /** A message the reader leaves in doubt, assigned to its order through the admin API. */
  const assignedMessage = async (text: (amount: string) => string) => {
    const o = await order();
    const got = await sms(text(o.payment_details.amount));
    assert.equal(got.status, 'review');
    await admin(t.app, 'POST', `/admin/device-events/${got.event_id}/assign`, { order_id: o.id });
    return got.event_id;
  };
  const newestRule = async () =>
    (await admin<Array<{ id: string; status: string }>>(t.app, 'GET', '/admin/bank-rules'))[0];

  before(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app);
    await admin(t.app, 'PATCH', '/admin/banks/wildberries', { sms_senders: [SENDER] });
    const requisite = await addRequisite(t.app, { kind: 'card', bank: 'wildberries' });
    await admin(t.app, 'PATCH', `/admin/requisites/${requisite.id}`, { masks: ['5531', '0799'] });
    device = await pairDevice(t.app, [requisite.id]);
    for (const role of ['admin', 'support', 'viewer']) {
      const user = { username: `rc-${role}-${randomUUID().slice(0, 8)}`, password: `pw-${randomUUID()}` };
      await admin(t.app, 'POST', '/admin/operators', { ...user, role });
      sessions[role] = await consoleLogin(t.app, user.username, user.password);
    }
  });
  after(() => t.close());

  it('assigning a message the reader did not read offers to teach the reader its text', async () => {
    const o = await order();
    const got = await sms(notice(o.payment_details.amount));
    const res = await consolePost(
      t.app,
      sessions.support as ConsoleSession,
      `/backoffice/device-events/${got.event_id}/assign`,
      {
        order_id: o.id,
      },
    );
    assert.equal(res.statusCode, 303, res.body);
    const back = await page('support', String(res.headers.location));
    assert.match(
      back.body,
      new RegExp(`data-testid="teach"[^>]*>|action="/backoffice/device-events/${got.event_id}/rule"`),
    );
    assert.match(back.body, new RegExp(`action="/backoffice/device-events/${got.event_id}/rule"`));
  });

  it('an operator turns an assigned message into a rule; an admin switches it on and assigns a waiting message it reads in one click', async () => {
    const eventId = await assignedMessage(notice);
    const assignedList = await page('support', '/backoffice/device-events?status=assigned');
    assert.match(assignedList.body, new RegExp(`action="/backoffice/device-events/${eventId}/rule"`));
    const proposed = await consolePost(
      t.app,
      sessions.support as ConsoleSession,
      `/backoffice/device-events/${eventId}/rule`,
      {},
    );
    assert.equal(proposed.statusCode, 303, proposed.body);
    assert.equal(proposed.headers.location, '/backoffice/bank-rules?msg=ruleProposed');
    const rule = await newestRule();
    assert.equal(rule?.status, 'proposed');
    const list = await page('support', '/backoffice/bank-rules?msg=ruleProposed&lang=ru');
    assert.match(list.body, /Правило предложено/);
    assert.doesNotMatch(
      list.body,
      new RegExp(`/backoffice/bank-rules/${rule?.id}/enable`),
      'support cannot switch rules on',
    );

    const waiting = await order();
    const queued = await sms(notice(waiting.payment_details.amount));
    assert.equal(queued.status, 'review', 'a proposed rule reads nothing');
    const enabled = await consolePost(
      t.app,
      sessions.admin as ConsoleSession,
      `/backoffice/bank-rules/${rule?.id}/enable`,
      {},
    );
    assert.equal(enabled.statusCode, 303, enabled.body);
    assert.equal(enabled.headers.location, `/backoffice/bank-rules/${rule?.id}?msg=ruleEnabled`);
    const offer = await page('admin', String(enabled.headers.location));
    assert.equal(offer.statusCode, 200);
    assert.match(offer.body, new RegExp(`data-testid="match-${queued.event_id}"`));
    assert.match(offer.body, new RegExp(`name="order_id" value="${waiting.id}"`));
    const assign = await consolePost(
      t.app,
      sessions.admin as ConsoleSession,
      `/backoffice/bank-rules/${rule?.id}/events/${queued.event_id}/assign`,
      { order_id: waiting.id },
    );
    assert.equal(assign.statusCode, 303, assign.body);
    assert.match(String(assign.headers.location), /msg=ruleAssigned/);
    assert.equal(
      (await admin<{ status: string }>(t.app, 'GET', `/admin/orders/${waiting.id}`)).status,
      'success',
    );
    const off = await consolePost(
      t.app,
      sessions.admin as ConsoleSession,
      `/backoffice/bank-rules/${rule?.id}/disable`,
      {},
    );
    assert.equal(off.headers.location, '/backoffice/bank-rules?msg=ruleDisabled');
  });

  it('names the corpus text a rule would read as a credit, and keeps it off', async () => {
    const eventId = await assignedMessage(purchase);
    await consolePost(
      t.app,
      sessions.support as ConsoleSession,
      `/backoffice/device-events/${eventId}/rule`,
      {},
    );
    const rule = await newestRule();
    const refused = await consolePost(
      t.app,
      sessions.admin as ConsoleSession,
      `/backoffice/bank-rules/${rule?.id}/enable`,
      {},
    );
    assert.equal(refused.statusCode, 303);
    assert.match(String(refused.headers.location), /error=RULE_READS_NON_CREDIT/);
    const shown = await page('admin', String(refused.headers.location));
    assert.match(shown.body, /corpus akbars-008 \(purchase\)/);
    assert.equal((await newestRule())?.status, 'proposed');
  });

  it('refuses a viewer and a support operator what their roles do not allow', async () => {
    const eventId = await assignedMessage(notice);
    const viewer = await consolePost(
      t.app,
      sessions.viewer as ConsoleSession,
      `/backoffice/device-events/${eventId}/rule`,
      {},
    );
    assert.equal(viewer.statusCode, 403);
    await consolePost(
      t.app,
      sessions.support as ConsoleSession,
      `/backoffice/device-events/${eventId}/rule`,
      {},
    );
    const rule = await newestRule();
    for (const action of ['enable', 'disable']) {
      const res = await consolePost(
        t.app,
        sessions.support as ConsoleSession,
        `/backoffice/bank-rules/${rule?.id}/${action}`,
        {},
      );
      assert.equal(res.statusCode, 403, action);
    }
    const noCsrf = await t.app.inject({
      method: 'POST',
      url: `/backoffice/bank-rules/${rule?.id}/enable`,
      headers: { cookie: sessions.admin?.cookie ?? '', 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    assert.equal(noCsrf.statusCode, 403);
    assert.equal((await newestRule())?.status, 'proposed');
    const unknown = await page('viewer', `/backoffice/bank-rules/${randomUUID()}`);
    assert.equal(unknown.statusCode, 404);
  });
});
