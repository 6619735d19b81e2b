import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BANK_FORMATS } from '../../src/modules/bank-messages/index.js';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  type TestMerchant,
} from '../helpers/merchant-client.js';
import { atMoscow, forwarderPost, gatewaySms, type PairedDevice, pairDevice } from '../helpers/phones.js';

// Every bank's own credit fixtures, posted as the apps post
// them (SMS through SMS Gateway for Android, pushes through SmsForwarder), confirm an order of
// exactly that amount. Banks whose same-bank type another file uses (T-Bank, VTB, Alfa) or that
// other files' requisites share (Sberbank) or that have no same-bank type (Pochta Bank) get a
// disabled requisite here: their messages must be read and wait as `no_order`.
const CONFIRMING = new Set(['ozon', 'raiffeisen', 'mts', 'sovkom', 'gasprom', 'yandex']);

describe("every bank's credit fixtures through the apps (docs/decisions.md section 24)", () => {
  const clock = manualClock();
  let t: TestApp;
  let merchant: TestMerchant;
  const devices = new Map<string, PairedDevice>();

  before(async () => {
    t = await startTestApp({ clock });
    merchant = await createMerchant(t.app);
    for (const format of BANK_FORMATS) {
      const masks = new Set(
        format.rules.flatMap((r) => r.examples.map((e) => e.fields.mask)).filter((m): m is string => !!m),
      );
      // Created unable to take an order (max 1 ₽) until it is disabled below: on PostgreSQL the files
      // share one database, and another file's order of this bank's type must never land here.
      const requisite = await addRequisite(t.app, {
        kind: 'card',
        bank: format.code,
        address: `22000000${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`,
        ...(CONFIRMING.has(format.code) ? {} : { max_amount: '1' }),
      });
      await admin(t.app, 'PATCH', `/admin/requisites/${requisite.id}`, {
        masks: [...masks],
        ...(CONFIRMING.has(format.code) ? {} : { enabled: false }),
      });
      devices.set(format.code, await pairDevice(t.app, [requisite.id]));
    }
  });
  after(() => t.close());

  for (const format of BANK_FORMATS) {
    it(`${format.name}: each credit example is read from its SMS or push and ${CONFIRMING.has(format.code) ? 'confirms its order' : 'waits as no_order'}`, async () => {
      const device = devices.get(format.code) as PairedDevice;
      let tried = 0;
      for (const rule of format.rules.filter((r) => r.kind === 'credit')) {
        for (const example of rule.examples) {
          const amount = example.fields.amount as string;
          const at = example.fields.time
            ? atMoscow(new Date(clock.now()), example.fields.time)
            : new Date(clock.now());
          clock.set(at.getTime() - 60_000);
          let orderId: string | undefined;
          if (CONFIRMING.has(format.code)) {
            const res = await createOrder(t.app, merchant, {
              type: format.code,
              currency: 'RUB',
              amount: Number(amount),
            });
            assert.equal(res.statusCode, 200, res.body);
            assert.equal(
              Number(res.json().payment_details.amount),
              Number(amount),
              'no disambiguation shift',
            );
            orderId = res.json().id;
          }
          clock.set(at.getTime());
          const channel = rule.channels.includes('sms') ? 'sms' : 'push';
          const res =
            channel === 'sms'
              ? await gatewaySms(
                  t.app,
                  device,
                  { sender: format.senders[0] as string, text: example.text, receivedAt: at },
                  clock.now(),
                )
              : await forwarderPost(t.app, device, {
                  from: format.packages[0] as string,
                  text: example.text,
                  receivedAt: at,
                });
          assert.equal(res.statusCode, 200, res.body);
          const data = res.json().data;
          if (orderId) {
            assert.equal(data.status, 'confirmed', `${example.text}: ${res.body}`);
            assert.equal(
              (await admin<{ status: string }>(t.app, 'GET', `/admin/orders/${orderId}`)).status,
              'success',
            );
          } else {
            assert.deepEqual(
              [data.status, data.reason],
              ['review', 'no_order'],
              `${example.text}: ${res.body}`,
            );
          }
          const [event] = await admin<Array<{ amount: string; bank_code: string }>>(
            t.app,
            'GET',
            `/admin/device-events?device_id=${device.id}&limit=1`,
          );
          assert.equal(Number(event?.amount), Number(amount));
          assert.equal(event?.bank_code, format.code);
          tried++;
          clock.advance(10 * 60_000);
        }
      }
      assert.ok(tried > 0, 'the bank has credit examples');
    });
  }
});
