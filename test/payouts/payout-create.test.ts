// PAYOUT createOrder: answer shape, fees, bank standards and every validation code
// (docs/api.md "POST /merchant/createOrder - PAYOUT", "Errors"; docs/decisions.md sections 2, 3, 6, 10, 12).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { admin, createMerchant, merchantRequest, type TestMerchant } from '../helpers/merchant-client.js';

type Json = Record<string, unknown>;

const SIM = '79001234567';
const CARD = '2200123456789012';

function expectError(res: LightMyRequestResponse, status: number, message: string): Json {
  assert.equal(res.statusCode, status, res.body);
  const { details: _details, ...envelope } = res.json();
  assert.deepEqual(envelope, { success: false, ok: false, status, message }, res.body);
  return res.json();
}

describe('POST /merchant/createOrder PAYOUT', () => {
  let t: TestApp;
  let m: TestMerchant;

  /** A signed PAYOUT createOrder for `merchant`; `fields` override (undefined removes a field). */
  const payout = (merchant: TestMerchant, fields: Json = {}) => {
    const body: Json = {
      merchant_id: merchant.id,
      amount: 1000,
      type: 'sim',
      direction: 'PAYOUT',
      payout_details: { holderAccount: SIM, holderName: 'Ivan Petrov', methodName: 'Sberbank' },
      ...fields,
    };
    for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
    return merchantRequest(t.app, merchant, '/merchant/createOrder', { body });
  };
  const fund = (merchant: TestMerchant, amount: number) =>
    admin(t.app, 'POST', `/admin/merchants/${merchant.id}/ledger-adjustments`, {
      currency: 'RUB',
      amount,
      reason: 'payout test funds',
    });
  const balance = async (merchant: TestMerchant) => {
    const res = await merchantRequest(t.app, merchant, `/merchant/balance/${merchant.id}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { balance: number; reserved: number; available: number };
  };

  before(async () => {
    t = await startTestApp();
    m = await createMerchant(t.app, { payout_fee_percent: 1.5 });
    await fund(m, 1_000_000);
  });
  after(() => t.close());

  describe('happy', () => {
    it('answers exactly the contract keys; amountAfterFee = amount + fee, half-up rounded', async () => {
      // 1003 * 1.5 % = 15.045 -> 15.05 half up (half-even or binary floats would give 15.04).
      const orderId = `po-${randomUUID()}`;
      const res = await payout(m, { amount: 1003, order_id: orderId });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.deepEqual(
        Object.keys(body).sort(),
        ['amountAfterFee', 'currency', 'direction', 'id', 'ok', 'payment_details', 'payment_id', 'status'],
        res.body,
      );
      assert.equal(body.ok, true, res.body);
      assert.match(body.id, /^lux[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/, res.body);
      assert.equal(body.payment_id, orderId, res.body);
      assert.equal(body.status, 'pending', res.body);
      assert.equal(body.direction, 'PAYOUT', res.body);
      assert.equal(body.currency, 'RUB', res.body);
      assert.equal(body.amountAfterFee, 1018.05, res.body);
      assert.deepEqual(
        body.payment_details,
        { address: SIM, bank: 'Sberbank', holder_name: 'Ivan Petrov', type: 'sim', amount: '1003' },
        res.body,
      );
      for (const key of ['usdtAmount', 'usdtAmountAfterFee', 'exchangeRate', 'remainingSeconds']) {
        assert.equal(key in body, false, `${key} must be absent: ${res.body}`);
      }
    });

    it('card payout without order_id: payment_id is the internal id; currency RUB given explicitly', async () => {
      const res = await payout(m, {
        amount: 2000,
        type: 'card',
        currency: 'RUB',
        payout_details: { holderAccount: CARD, holderName: 'Anna Ivanova', methodName: 'T-Bank' },
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.payment_id, body.id, res.body);
      assert.equal(body.amountAfterFee, 2030, res.body);
      assert.deepEqual(
        body.payment_details,
        { address: CARD, bank: 'T-Bank', holder_name: 'Anna Ivanova', type: 'card', amount: '2000' },
        res.body,
      );
    });

    it('a merchant with no payout fee is debited exactly the amount; the order reads back as PAYOUT', async () => {
      const free = await createMerchant(t.app);
      await fund(free, 5000);
      const res = await payout(free, { amount: 4999, order_id: 'free-1' });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().amountAfterFee, 4999, res.body);
      const read = await merchantRequest(t.app, free, '/merchant/order/free-1');
      assert.equal(read.statusCode, 200, read.body);
      const info = read.json();
      assert.equal(info.id, res.json().id, read.body);
      assert.equal(info.direction, 'PAYOUT', read.body);
      assert.equal(info.status, 'pending', read.body);
      assert.equal(info.currency, 'RUB', read.body);
      assert.equal(info.amountAfterFee, 4999, read.body);
      for (const key of ['usdtAmount', 'usdtAmountAfterFee', 'exchangeRate']) {
        assert.equal(key in info, false, `${key} must be absent: ${read.body}`);
      }
    });

    it('GET /merchant/bank-standards: card 16 digits and sim 11 digits per enabled bank', async () => {
      const code = `t_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
      const name = `Sim Only Bank ${code}`;
      await admin(t.app, 'POST', '/admin/banks', { code, name, sbp: true, card: false });
      try {
        const res = await merchantRequest(t.app, m, '/merchant/bank-standards');
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json() as {
          success: boolean;
          count: number;
          data: Array<{ code: string; name: string; types: Array<Json> }>;
        };
        assert.deepEqual(Object.keys(body).sort(), ['count', 'data', 'success'], res.body);
        assert.equal(body.success, true, res.body);
        assert.equal(body.count, body.data.length, res.body);
        const sber = body.data.find((b) => b.code === 'sber');
        assert.equal(sber?.name, 'Sberbank', res.body);
        assert.deepEqual(
          sber?.types.map((x) => [x.type, x.digits]),
          [
            ['card', 16],
            ['sim', 11],
          ],
          res.body,
        );
        const card = sber?.types.find((x) => x.type === 'card');
        const sim = sber?.types.find((x) => x.type === 'sim');
        assert.equal(card?.digits, 16, res.body);
        assert.equal(sim?.digits, 11, res.body);
        assert.equal(new RegExp(String(card?.pattern)).test(CARD), true, res.body);
        assert.equal(new RegExp(String(sim?.pattern)).test(SIM), true, res.body);
        assert.equal(new RegExp(String(sim?.pattern)).test(`+${SIM}`), false, res.body);
        const mine = body.data.find((b) => b.code === code);
        assert.equal(mine?.name, name, res.body);
        assert.deepEqual(
          mine?.types.map((x) => [x.type, x.digits]),
          [['sim', 11]],
          res.body,
        );
        await admin(t.app, 'PATCH', `/admin/banks/${code}`, { enabled: false });
        const after = await merchantRequest(t.app, m, '/merchant/bank-standards');
        assert.equal(after.statusCode, 200, after.body);
        const codes = (after.json().data as Array<{ code: string }>).map((b) => b.code);
        assert.equal(codes.includes(code), false, 'a disabled bank is not listed');
        assert.equal(codes.includes('sber'), true, after.body);
      } finally {
        await admin(t.app, 'PATCH', `/admin/banks/${code}`, { enabled: false });
      }
    });
  });

  describe('errors', () => {
    const cases: Array<[string, Json, number, string]> = [
      ['type sbp_pdf (a PAYIN type)', { type: 'sbp_pdf' }, 400, 'UNSUPPORTED_PAYMENT_TYPE'],
      ['type qr_smart', { type: 'qr_smart' }, 400, 'UNSUPPORTED_PAYMENT_TYPE'],
      ['type usdt_trc20 (crypto)', { type: 'usdt_trc20' }, 400, 'UNSUPPORTED_PAYMENT_TYPE'],
      ['type unknown', { type: 'paypal' }, 400, 'UNSUPPORTED_PAYMENT_TYPE'],
      ['type missing', { type: undefined }, 400, 'VALIDATION_ERROR'],
      ['payout_details missing', { payout_details: undefined }, 400, 'INVALID_PAYOUT_DETAILS'],
      ['payout_details null', { payout_details: null }, 400, 'INVALID_PAYOUT_DETAILS'],
      ['payout_details a string', { payout_details: SIM }, 400, 'INVALID_PAYOUT_DETAILS'],
      [
        'no methodName',
        { payout_details: { holderAccount: SIM, holderName: 'Ivan Petrov' } },
        400,
        'INVALID_PAYOUT_DETAILS',
      ],
      [
        'no holderName',
        { payout_details: { holderAccount: SIM, methodName: 'Sberbank' } },
        400,
        'INVALID_PAYOUT_DETAILS',
      ],
      [
        'no holderAccount',
        { payout_details: { holderName: 'Ivan Petrov', methodName: 'Sberbank' } },
        400,
        'INVALID_PAYOUT_DETAILS',
      ],
      [
        'methodName not a bank of GET /merchant/banks',
        { payout_details: { holderAccount: SIM, holderName: 'Ivan Petrov', methodName: 'Bank of Nowhere' } },
        400,
        'INVALID_PAYOUT_DETAILS',
      ],
      [
        'sim account with a +',
        { payout_details: { holderAccount: `+${SIM}`, holderName: 'I P', methodName: 'Sberbank' } },
        400,
        'INVALID_HOLDER_ACCOUNT',
      ],
      [
        'sim account of 16 digits',
        { payout_details: { holderAccount: CARD, holderName: 'I P', methodName: 'Sberbank' } },
        400,
        'INVALID_HOLDER_ACCOUNT',
      ],
      [
        'card account of 11 digits',
        { type: 'card', payout_details: { holderAccount: SIM, holderName: 'I P', methodName: 'Sberbank' } },
        400,
        'INVALID_HOLDER_ACCOUNT',
      ],
      [
        'card account with spaces',
        {
          type: 'card',
          payout_details: { holderAccount: '2200 1234 5678 9012', holderName: 'I P', methodName: 'Sberbank' },
        },
        400,
        'INVALID_HOLDER_ACCOUNT',
      ],
      ['comment over 500 characters', { comment: 'x'.repeat(501) }, 400, 'VALIDATION_ERROR'],
      ['success_callback_url not a URL', { success_callback_url: 'not a url' }, 400, 'VALIDATION_ERROR'],
      ['amount 0', { amount: 0 }, 400, 'INVALID_AMOUNT'],
      ['amount negative', { amount: -100 }, 400, 'INVALID_AMOUNT'],
      ['amount fractional', { amount: 100.5 }, 400, 'INVALID_AMOUNT'],
      ['amount a string', { amount: '1000' }, 400, 'INVALID_AMOUNT'],
      ['amount missing', { amount: undefined }, 400, 'VALIDATION_ERROR'],
      ['merchant_id of another merchant', { merchant_id: 'm_someone_else' }, 400, 'INVALID_MERCHANT_ID'],
      ['currency USD', { currency: 'USD' }, 400, 'CURRENCY_NOT_ALLOWED'],
      [
        'currency KZT (a fiat currency, but payouts are RUB only)',
        { currency: 'KZT' },
        400,
        'CURRENCY_NOT_ALLOWED',
      ],
    ];
    for (const [name, fields, status, code] of cases) {
      it(`${name} -> ${status} ${code}`, async () => {
        const orderId = `err-${randomUUID()}`;
        const body = expectError(await payout(m, { ...fields, order_id: orderId }), status, code);
        if (code === 'VALIDATION_ERROR') {
          const field = Object.keys(fields)[0];
          const details = body.details as Array<{ field: string }> | undefined;
          assert.equal(details?.[0]?.field, field, JSON.stringify(body));
        }
        const read = await merchantRequest(t.app, m, `/merchant/order/${orderId}`);
        assert.equal(read.statusCode, 404, `no order is created: ${read.body}`);
      });
    }

    it('a rejected payout reserves nothing', async () => {
      const fresh = await createMerchant(t.app);
      await fund(fresh, 10_000);
      expectError(await payout(fresh, { currency: 'KZT' }), 400, 'CURRENCY_NOT_ALLOWED');
      expectError(await payout(fresh, { payout_details: undefined }), 400, 'INVALID_PAYOUT_DETAILS');
      const b = await balance(fresh);
      assert.deepEqual([b.balance, b.reserved, b.available], [10_000, 0, 10_000], JSON.stringify(b));
    });

    it('a repeated order_id -> 409 ORDER_ALREADY_EXISTS and nothing more is reserved', async () => {
      const fresh = await createMerchant(t.app);
      await fund(fresh, 10_000);
      const orderId = `dup-${randomUUID()}`;
      assert.equal((await payout(fresh, { order_id: orderId })).statusCode, 200);
      expectError(await payout(fresh, { order_id: orderId, amount: 500 }), 409, 'ORDER_ALREADY_EXISTS');
      const payin = await merchantRequest(t.app, fresh, '/merchant/createOrder', {
        body: { merchant_id: fresh.id, amount: 1000, type: 'sim', order_id: orderId },
      });
      expectError(payin, 409, 'ORDER_ALREADY_EXISTS');
      const b = await balance(fresh);
      assert.deepEqual([b.balance, b.reserved, b.available], [10_000, 1000, 9000], JSON.stringify(b));
    });

    it('merchant limits {payout:{min,max}} -> ORDER_AMOUNT_ABOVE_MAX_LIMIT / _BELOW_MIN_LIMIT', async () => {
      const limited = await createMerchant(t.app, { limits: { payout: { min: 100, max: 5000 } } });
      await fund(limited, 100_000);
      expectError(await payout(limited, { amount: 5001 }), 400, 'ORDER_AMOUNT_ABOVE_MAX_LIMIT');
      expectError(await payout(limited, { amount: 99 }), 400, 'ORDER_AMOUNT_BELOW_MIN_LIMIT');
      const top = await payout(limited, { amount: 5000 });
      assert.equal(top.statusCode, 200, top.body);
      const bottom = await payout(limited, { amount: 100 });
      assert.equal(bottom.statusCode, 200, bottom.body);
    });

    it('a type not enabled for the merchant -> 403 PAYMENT_TYPE_NOT_ALLOWED', async () => {
      const simOnly = await createMerchant(t.app, { payment_types: ['sim'] });
      await fund(simOnly, 10_000);
      const card = await payout(simOnly, {
        type: 'card',
        payout_details: { holderAccount: CARD, holderName: 'I P', methodName: 'Sberbank' },
      });
      expectError(card, 403, 'PAYMENT_TYPE_NOT_ALLOWED');
      const sim = await payout(simOnly, {});
      assert.equal(sim.statusCode, 200, sim.body);
    });

    it("a disabled bank's name -> 400 INVALID_PAYOUT_DETAILS (accepted while enabled)", async () => {
      const code = `t_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
      const name = `Payout Bank ${code}`;
      await admin(t.app, 'POST', '/admin/banks', { code, name });
      try {
        const details = { holderAccount: SIM, holderName: 'Ivan Petrov', methodName: name };
        const ok = await payout(m, { payout_details: details });
        assert.equal(ok.statusCode, 200, ok.body);
        assert.equal(ok.json().payment_details.bank, name, ok.body);
        await admin(t.app, 'PATCH', `/admin/banks/${code}`, { enabled: false });
        expectError(await payout(m, { payout_details: details }), 400, 'INVALID_PAYOUT_DETAILS');
      } finally {
        await admin(t.app, 'PATCH', `/admin/banks/${code}`, { enabled: false });
      }
    });
  });
});
