import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { type Database, openDatabase } from '../../src/db/database.js';
import type { App } from '../../src/http/schemas.js';
import { startTestApp, type TestApp, testConfig } from '../helpers/app.js';
import { needsPostgres, testDatabaseUrl } from '../helpers/database.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  type TestMerchant,
} from '../helpers/merchant-client.js';
import { gatewaySms, type PairedDevice, pairDevice } from '../helpers/phones.js';
import { sleep } from '../helpers/wait.js';

// docs/decisions.md "Rules learned from the review queue": several API and worker processes share one
// database; a rule switched on in one reads in another within LEARNED_RULES_REFRESH_MS, no restart.
// Two instances, each with its own connection pool and its own copy of the active rules. Solidarnost
// is this file's bank (same-bank type `solidarnost`): no other file takes its orders.
const SENDER = 'SOLID-RULES';
const REFRESH_MS = 300;
const notice = (amount: string) => `Solidarnost: schet *7702 SBP-C2C ${amount}RUR. Ostatok 10.00RUR`;

describe('a rule switched on in one instance reads in another without a restart', {
  skip: needsPostgres('two instances with their own connection pools on one database server'),
}, () => {
  let first: TestApp;
  let second: { app: App; database: Database };
  let merchant: TestMerchant;
  let device: PairedDevice;
  let next = 83_000;
  const order = async () => {
    next += 43;
    const res = await createOrder(first.app, merchant, {
      type: 'solidarnost',
      currency: 'RUB',
      amount: next,
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { id: string; payment_details: { amount: string } };
  };
  /** The phone posts to the second instance. */
  const sms = async (text: string) =>
    (
      await gatewaySms(second.app, device, { sender: SENDER, text, receivedAt: new Date() }, Date.now())
    ).json().data as { status: string; event_id: string };

  before(async () => {
    const config = { learnedRules: { refreshMs: REFRESH_MS, corpusDir: undefined } };
    first = await startTestApp({ config });
    const database = await openDatabase({ databaseUrl: testDatabaseUrl(), poolSize: 4 });
    const built = await buildApp({ config: testConfig(config), database });
    await built.app.ready();
    second = { app: built.app, database };
    merchant = await createMerchant(first.app);
    await admin(first.app, 'PATCH', '/admin/banks/solidarnost', { sms_senders: [SENDER] });
    const requisite = await addRequisite(first.app, { kind: 'card', bank: 'solidarnost' });
    await admin(first.app, 'PATCH', `/admin/requisites/${requisite.id}`, { masks: ['7702'] });
    device = await pairDevice(first.app, [requisite.id]);
  });
  after(async () => {
    await second?.app.close();
    await second?.database.close();
    await first?.close();
  });

  it('the second instance, which had read the rules before, reads with the rule the first switched on', async () => {
    const taught = await order();
    const got = await sms(notice(taught.payment_details.amount));
    assert.equal(got.status, 'review', 'the second instance has loaded the (empty) active rules');
    await admin(first.app, 'POST', `/admin/device-events/${got.event_id}/assign`, { order_id: taught.id });
    const rule = await admin<{ id: string }>(first.app, 'POST', '/admin/bank-rules', {
      event_id: got.event_id,
    });
    await admin(first.app, 'POST', `/admin/bank-rules/${rule.id}/enable`);

    await sleep(REFRESH_MS + 200);
    const o = await order();
    const read = await sms(notice(o.payment_details.amount));
    assert.equal(read.status, 'confirmed', JSON.stringify(read));
    assert.equal(
      (await admin<{ status: string }>(first.app, 'GET', `/admin/orders/${o.id}`)).status,
      'success',
    );

    await admin(first.app, 'POST', `/admin/bank-rules/${rule.id}/disable`);
    await sleep(REFRESH_MS + 200);
    const later = await order();
    assert.equal(
      (await sms(notice(later.payment_details.amount))).status,
      'review',
      'switched off everywhere',
    );
  });
});
