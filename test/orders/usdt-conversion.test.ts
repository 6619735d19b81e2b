import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { money, roundHalfUp } from '../../src/lib/money.js';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import { needsEmbedded, onPostgres } from '../helpers/database.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  merchantRequest,
  type TestMerchant,
  uniqueAmount,
} from '../helpers/merchant-client.js';

function assertError(res: LightMyRequestResponse, status: number, message: string): void {
  assert.equal(res.statusCode, status, res.body);
  assert.equal(res.json().message, message, res.body);
  assert.equal(res.json().success, false, res.body);
}

interface CreatedOrder {
  id: string;
  currency: string;
  exchangeRate: number;
  usdtAmount: number;
  usdtAmountAfterFee: number;
  amountAfterFee: number;
  payment_details: { amount: string };
}

const setUsdtRub = (t: TestApp, rate: string) =>
  admin(t.app, 'PUT', '/admin/rates', { base: 'USDT', quote: 'RUB', rate });

describe('convertToUsdt (docs/api.md fiat PAYIN response; docs/decisions.md section 6)', () => {
  let t: TestApp;
  let usdtMerchant: TestMerchant;

  before(async () => {
    t = await startTestApp();
    usdtMerchant = await createMerchant(t.app, {
      allow_usdt: true,
      payin_fee_percent: 2.5,
      currencies: ['RUB', 'INR'],
    });
    await addRequisite(t.app, { kind: 'phone' });
    await addRequisite(t.app, { kind: 'phone', currency: 'INR' });
  });
  after(() => t.close());

  describe('error', () => {
    it('403 USDT_CONVERSION_NOT_ALLOWED without allow_usdt', async () => {
      await setUsdtRub(t, '92.5');
      const plain = await createMerchant(t.app);
      assertError(
        await createOrder(t.app, plain, { convertToUsdt: true }),
        403,
        'USDT_CONVERSION_NOT_ALLOWED',
      );
      const without = await createOrder(t.app, plain, { convertToUsdt: false });
      assert.equal(without.statusCode, 200, without.body);
      assert.equal(without.json().usdtAmount, null, without.body);
      assert.equal(without.json().exchangeRate, null, without.body);
    });

    it('503 EXCHANGE_RATE_UNAVAILABLE when there is no USDT rate for the currency (INR)', async () => {
      const res = await createOrder(t.app, usdtMerchant, { currency: 'INR', convertToUsdt: true });
      assertError(res, 503, 'EXCHANGE_RATE_UNAVAILABLE');
      // The same order without conversion goes through: only the rate was missing.
      const plain = await createOrder(t.app, usdtMerchant, { currency: 'INR' });
      assert.equal(plain.statusCode, 200, plain.body);
      assert.equal(plain.json().currency, 'INR', plain.body);
      assert.equal(plain.json().exchangeRate, null, plain.body);
    });
  });

  describe('happy', () => {
    let created: CreatedOrder;
    let amount: number;

    it('fixes exchangeRate and the USDT estimates; amountAfterFee stays in RUB', async () => {
      await setUsdtRub(t, '92.5');
      amount = uniqueAmount();
      const res = await createOrder(t.app, usdtMerchant, { amount, convertToUsdt: true });
      assert.equal(res.statusCode, 200, res.body);
      created = res.json();
      // Another file may set USDT/RUB at the same moment on a shared database: expectations use
      // the rate the answer carries.
      if (!onPostgres()) assert.equal(created.exchangeRate, 92.5, res.body);
      assert.equal(typeof created.exchangeRate, 'number', res.body);
      assert.ok(created.exchangeRate > 0, res.body);
      const rate = money(created.exchangeRate);
      const payable = money(created.payment_details.amount);
      assert.equal(created.currency, 'RUB');
      const fee = roundHalfUp(payable.times('2.5').dividedBy(100), 2);
      assert.equal(created.amountAfterFee, payable.minus(fee).toNumber(), res.body);
      assert.equal(created.usdtAmount, roundHalfUp(payable.dividedBy(rate), 2).toNumber(), res.body);
      assert.equal(
        created.usdtAmountAfterFee,
        roundHalfUp(payable.minus(fee).dividedBy(rate), 2).toNumber(),
        res.body,
      );
    });

    it('with 92.5: 1000 RUB at 2.5% -> 10.81 / 10.54 USDT', {
      skip: needsEmbedded('exact figures need a USDT/RUB rate no other file changes (a database of its own)'),
    }, async () => {
      // Exact figures only where no other file can change USDT/RUB in between (PGlite: own database).
      await setUsdtRub(t, '92.5');
      const m = await createMerchant(t.app, { allow_usdt: true, payin_fee_percent: 2.5 });
      const res = await createOrder(t.app, m, { amount: 1000, convertToUsdt: true });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.exchangeRate, 92.5, res.body);
      assert.equal(body.usdtAmount, 10.81, res.body);
      assert.equal(body.usdtAmountAfterFee, 10.54, res.body);
      assert.equal(body.amountAfterFee, 975, res.body);
    });

    it('the order reads back with the same figures', async () => {
      const read = await merchantRequest(t.app, usdtMerchant, `/merchant/order/${created.id}`);
      assert.equal(read.statusCode, 200, read.body);
      const o = read.json();
      assert.equal(o.convertToUsdt, true, read.body);
      assert.equal(o.exchangeRate, created.exchangeRate, read.body);
      assert.equal(o.usdtAmount, created.usdtAmount, read.body);
      assert.equal(o.usdtAmountAfterFee, created.usdtAmountAfterFee, read.body);
      assert.equal(o.amountAfterFee, created.amountAfterFee, read.body);
      assert.equal(o.amount, amount, read.body);
    });

    it('on confirm the USDT balance gets usdtAmountAfterFee and RUB is unchanged', async () => {
      const balanceOf = async () => {
        const res = await merchantRequest(t.app, usdtMerchant, `/merchant/balance/${usdtMerchant.id}`);
        assert.equal(res.statusCode, 200, res.body);
        return res.json();
      };
      const before = await balanceOf();
      assert.equal(before.usdtBalance, 0, JSON.stringify(before));
      assert.equal(before.balance, 0, JSON.stringify(before));

      const confirmed = await admin(t.app, 'POST', `/admin/orders/${created.id}/confirm`, {});
      assert.equal(confirmed.status, 'success', JSON.stringify(confirmed));

      const afterConfirm = await balanceOf();
      assert.equal(afterConfirm.usdtBalance, created.usdtAmountAfterFee, JSON.stringify(afterConfirm));
      assert.equal(afterConfirm.currency, 'RUB', JSON.stringify(afterConfirm));
      assert.equal(afterConfirm.balance, 0, JSON.stringify(afterConfirm));
      const rub = afterConfirm.balances.find((b: { currency: string }) => b.currency === 'RUB');
      assert.equal(rub?.balance, 0, JSON.stringify(afterConfirm));
      assert.equal(afterConfirm.allowUsdt, true, JSON.stringify(afterConfirm));
    });
  });
});

describe('convertToUsdt with a stale rate (manual clock)', () => {
  const clock = manualClock();
  let t: TestApp;
  let merchant: TestMerchant;

  before(async () => {
    t = await startTestApp({ clock });
    merchant = await createMerchant(t.app, { allow_usdt: true });
    await addRequisite(t.app, { kind: 'phone' });
  });
  after(() => t.close());

  it('a rate older than RATE_MAX_AGE is unavailable (503), fresh again at real time', async () => {
    clock.set(Date.now());
    await setUsdtRub(t, '92.5');
    // A day ahead: any USDT/RUB written in real time by any test is older than RATE_MAX_AGE.
    clock.advance(86_400_000);
    assertError(
      await createOrder(t.app, merchant, { convertToUsdt: true }),
      503,
      'EXCHANGE_RATE_UNAVAILABLE',
    );
    const list = await admin<Array<{ base: string; quote: string; fresh: boolean }>>(
      t.app,
      'GET',
      '/admin/rates',
    );
    assert.equal(
      list.find((r) => r.base === 'USDT' && r.quote === 'RUB')?.fresh,
      false,
      JSON.stringify(list),
    );
    clock.set(Date.now());
    const ok = await createOrder(t.app, merchant, { convertToUsdt: true });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.ok(ok.json().exchangeRate > 0, ok.body);
  });

  it('RATE_MAX_AGE boundary: fresh at exactly the max age, stale 1 ms later', {
    skip: needsEmbedded(
      'the rate must not change in between: on a shared database another file may write it',
    ),
  }, async () => {
    // Only on the file's own database (PGlite): on a shared one another file may write the rate in between.
    const setAt = Date.now();
    clock.set(setAt);
    await setUsdtRub(t, '92.5');
    clock.set(setAt + t.config.rateMaxAgeSeconds * 1000);
    const fresh = await createOrder(t.app, merchant, { convertToUsdt: true });
    assert.equal(fresh.statusCode, 200, fresh.body);
    clock.set(setAt + t.config.rateMaxAgeSeconds * 1000 + 1);
    assertError(
      await createOrder(t.app, merchant, { convertToUsdt: true }),
      503,
      'EXCHANGE_RATE_UNAVAILABLE',
    );
  });
});
