import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import { isolateDatabase } from '../helpers/database.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  type TestMerchant,
} from '../helpers/merchant-client.js';
import { forwarderPost, gatewaySms, type PairedDevice, pairDevice } from '../helpers/phones.js';

// A compressed day of phones' messages (synthetic: invented names, amounts and endings, in shapes
// of the corpus's texts for banks the reader has no rules for: PSB, OTP Bank, Ak Bars). Orders are
// paid, left unpaid, paid late; the holder moves money out in the same amounts; codes, ads and
// purchases arrive; a second app repeats some messages. No order may be confirmed wrongly, and
// paid orders confirm without a person.
const BANKS = [
  {
    code: 'psb',
    name: 'Promsvyazbank',
    sender: 'PSB',
    mask: '5131',
    credit: (a: string) =>
      `Karta *5131: Vnesenie sredstv ${a} RUR; 03/05, ${hhmm()};MOSCOW;PSB-RETAIL 00777781.Dostupno 15 994,59 RUR`,
    debit: (a: string) => `Karta *5131: Pokupka ${a} RUR; PYATEROCHKA 1234;MOSCOW.Dostupno 15 994,59 RUR`,
  },
  {
    code: 'otp',
    name: 'OTP Bank',
    sender: 'OTPBank',
    mask: '2978',
    credit: (a: string) => `Карта *2978 зачисление ${a}р. OTPBANK. Доступно 8638.66р. otpbank.ru/tr`,
    debit: (a: string) => `Карта *2978 списание ${a}р. Перевод на карту. Доступно 100.00р.`,
  },
  {
    code: 'ak_bars',
    name: 'Ak Bars Bank',
    sender: 'AKBARS',
    mask: '3839',
    credit: (a: string) =>
      `Karta *3839. Popolnenie karty na summu ${a}RUR. Perevod ot IVANOVA R.N. Dostupno 3547.83RUR.`,
    debit: (a: string) => `Karta *3839. Oplata ${a}RUR. MAGNIT. Dostupno 10.00RUR.`,
  },
] as const;
const NOISE = [
  'Код для входа: 4410. Никому не сообщайте',
  'Кредит наличными до 5 000 000 руб. по ставке от 4%! Подробнее на сайте',
  'Вход в приложение выполнен',
];

let clockNow = () => Date.now();
/** `HH:MM` Moscow time now (the banks' clock in their texts). */
const hhmm = () => new Date(clockNow() + 3 * 3600_000).toISOString().slice(11, 16);

/** A repeatable pseudo-random sequence (the day is the same on every run). */
function random(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

describe('a simulated day of phones: no wrong confirmation, paid orders confirm by themselves', () => {
  const clock = manualClock();
  let t: TestApp;
  let merchant: TestMerchant;
  const phones: PairedDevice[] = [];

  // A database of its own on PostgreSQL: other files' requisites of these banks would otherwise take
  // the day's orders, and its bank sender lists would change theirs.
  let dropDatabase: () => Promise<void> = async () => undefined;
  before(async () => {
    dropDatabase = await isolateDatabase('bank_day');
    clockNow = () => clock.now();
    t = await startTestApp({ clock });
    merchant = await createMerchant(t.app, { order_ttl_seconds: 900 });
    for (const bank of BANKS) {
      await admin(t.app, 'PATCH', `/admin/banks/${bank.code}`, { sms_senders: [bank.sender] });
      const digits = String(Math.floor(Math.random() * 1e6)).padStart(6, '0');
      const r = await addRequisite(t.app, {
        kind: 'card',
        bank: bank.name,
        address: `2200${digits}00${bank.mask}`,
        max_active_orders: 1000,
      });
      phones.push(await pairDevice(t.app, [r.id]));
    }
  });
  after(async () => {
    await t.close();
    await dropDatabase();
  });

  it('90 orders, unpaid ones with the holder spending the same amounts, noise, duplicates and late payments', async (ctx) => {
    const rnd = random(31);
    const outcome = { paid: 0, autoConfirmed: 0, wrong: 0, late: 0, lateInReview: 0, reviewItems: 0 };
    for (let i = 0; i < 90; i++) {
      const b = i % BANKS.length;
      const bank = BANKS[b] as (typeof BANKS)[number];
      const phone = phones[b] as PairedDevice;
      const res = await createOrder(t.app, merchant, {
        type: bank.code,
        amount: 1000 + Math.floor(rnd() * 40_000),
      });
      assert.equal(res.statusCode, 200, `order ${i}: ${res.body}`);
      const order = res.json() as { id: string; payment_details: { amount: string } };
      const amount = Number(order.payment_details.amount).toFixed(2);
      const roll = rnd();
      const at = () => new Date(clock.now());
      const send = (text: string) =>
        gatewaySms(t.app, phone, { sender: bank.sender, text, receivedAt: at() }, clock.now());
      clock.advance(20_000);
      if (rnd() < 0.3) await send(NOISE[i % NOISE.length] as string);
      if (roll < 0.15) {
        // Unpaid: the holder spends exactly the order's amount.
        const res2 = await send(bank.debit(amount));
        assert.equal(res2.json().data.status, 'ignored', res2.body);
      } else if (roll < 0.22) {
        // Paid after the order expired: a late payment for a person, never a confirmation.
        outcome.late += 1;
        clock.advance(901_000);
        await t.services.orders.expireDue();
        const res2 = await send(bank.credit(amount));
        if (res2.json().data.reason === 'late') outcome.lateInReview += 1;
      } else {
        outcome.paid += 1;
        const first = await send(bank.credit(amount));
        if (first.json().data.status === 'confirmed') outcome.autoConfirmed += 1;
        if (rnd() < 0.3) {
          const again = await forwarderPost(t.app, phone, {
            from: bank.sender,
            text: bank.credit(amount),
            receivedAt: new Date(clock.now() + 1000),
          });
          assert.equal(again.json().data.status, 'duplicate', again.body);
        }
      }
      const status = (await admin<{ status: string }>(t.app, 'GET', `/admin/orders/${order.id}`)).status;
      if (status === 'success' && roll < 0.22) outcome.wrong += 1;
    }
    const review = await admin<Array<{ device_id: string; reason: string }>>(
      t.app,
      'GET',
      '/admin/device-events?status=review&limit=500',
    );
    outcome.reviewItems = review.filter((e) => phones.some((p) => p.id === e.device_id)).length;
    ctx.diagnostic(JSON.stringify(outcome));
    assert.equal(outcome.wrong, 0, JSON.stringify(outcome));
    assert.ok(outcome.autoConfirmed / outcome.paid >= 0.95, JSON.stringify(outcome));
    assert.equal(outcome.lateInReview, outcome.late, JSON.stringify(outcome));
    assert.equal(
      outcome.reviewItems,
      outcome.late,
      `only late payments wait for a person: ${JSON.stringify(outcome)}`,
    );
  });
});
