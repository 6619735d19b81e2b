import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OrderRow } from '../../modules/orders/index.js';
import { webhookBody, webhookTimestamp } from './webhook-body.js';

/** A successful fiat PAYIN as stored; each test changes what it is about. */
function row(overrides: Partial<OrderRow> = {}): OrderRow {
  return {
    id: 'lux0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
    seq: 1,
    test: false,
    merchantId: 'm_shop',
    externalId: 'shop-42',
    direction: 'PAYIN',
    method: 'fiat',
    type: 'sim',
    returnUrl: null,
    currency: 'RUB',
    amount: '100000',
    payableAmount: '100001',
    feePercent: '2',
    fee: '2000.02',
    amountAfterFee: '98000.98',
    convertToUsdt: false,
    exchangeRate: null,
    usdtAmount: null,
    usdtAmountAfterFee: null,
    cryptoAmount: null,
    cryptoRate: null,
    derivationIndex: null,
    receivedAmount: null,
    creditedCurrency: null,
    creditedAmount: null,
    receiptStatus: null,
    status: 'success',
    statusReason: null,
    requisiteId: null,
    pdAddress: '79001234567',
    pdBank: 'Sberbank',
    pdHolderName: 'Ivan Petrov',
    pdEmv: null,
    successCallbackUrl: 'https://shop.example/hook',
    clientId: null,
    assignedTo: null,
    clientRegisteredAt: null,
    clientOrdersCount: null,
    clientPaidCount: null,
    comment: null,
    expiresAt: null,
    createdAt: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)),
    updatedAt: new Date(Date.UTC(2026, 0, 2, 3, 9, 0, 0)),
    finishedAt: new Date(Date.UTC(2026, 0, 2, 3, 9, 0, 0)),
    ...overrides,
  };
}

const BASE_KEYS = ['id', 'order_id', 'type', 'amount', 'currency', 'status', 'created_at', 'amountAfterFee'];
const OPTIONAL_KEYS = ['usdtAmount', 'usdtAmountAfterFee', 'exchangeRate', 'cryptoAmount', 'direction'];

describe('webhookBody keys: which and in what order (docs/api.md "Webhook body fields"; docs/decisions.md sections 10, 11)', () => {
  it('a fiat PAYIN is exactly the compact JSON of the base keys in contract order', () => {
    const text = webhookBody(row());
    assert.equal(
      text,
      '{"id":"lux0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b","order_id":"shop-42","type":"sim","amount":"100001",' +
        '"currency":"RUB","status":"success","created_at":"2026-01-02 03:04:05.006","amountAfterFee":98000.98}',
    );
  });

  it('fiat without convertToUsdt has no usdt*, exchangeRate, cryptoAmount or direction keys', () => {
    // Even when the row carries values for them (they must not leak into a fiat body).
    const body = JSON.parse(
      webhookBody(row({ exchangeRate: '92.5', usdtAmount: '1081.09', usdtAmountAfterFee: '1059.47' })),
    );
    assert.deepEqual(Object.keys(body), BASE_KEYS, JSON.stringify(body));
    for (const key of OPTIONAL_KEYS) assert.equal(key in body, false, `${key} in ${JSON.stringify(body)}`);
  });

  it('with convertToUsdt the three USDT keys follow amountAfterFee, as numbers', () => {
    const text = webhookBody(
      row({
        convertToUsdt: true,
        exchangeRate: '92.5',
        usdtAmount: '1081.09',
        usdtAmountAfterFee: '1059.47',
      }),
    );
    const body = JSON.parse(text);
    assert.deepEqual(
      Object.keys(body),
      [...BASE_KEYS, 'usdtAmount', 'usdtAmountAfterFee', 'exchangeRate'],
      text,
    );
    assert.equal(body.usdtAmount, 1081.09, text);
    assert.equal(body.usdtAmountAfterFee, 1059.47, text);
    assert.equal(body.exchangeRate, 92.5, text);
    assert.ok(text.endsWith('"usdtAmount":1081.09,"usdtAmountAfterFee":1059.47,"exchangeRate":92.5}'), text);
  });

  it('a PAYOUT gets "direction":"PAYOUT" as the last key', () => {
    const text = webhookBody(
      row({
        direction: 'PAYOUT',
        method: 'payout',
        type: 'card',
        amount: '5000',
        payableAmount: '5000',
        amountAfterFee: '5100',
      }),
    );
    const body = JSON.parse(text);
    assert.deepEqual(Object.keys(body), [...BASE_KEYS, 'direction'], text);
    assert.ok(text.endsWith(',"amountAfterFee":5100,"direction":"PAYOUT"}'), text);
    assert.equal(body.amount, '5000', text);
  });

  it('a PAYOUT with convertToUsdt keeps the USDT keys before direction', () => {
    const text = webhookBody(
      row({
        direction: 'PAYOUT',
        method: 'payout',
        convertToUsdt: true,
        exchangeRate: '90',
        usdtAmount: '10',
        usdtAmountAfterFee: '9.8',
      }),
    );
    assert.deepEqual(
      Object.keys(JSON.parse(text)),
      [...BASE_KEYS, 'usdtAmount', 'usdtAmountAfterFee', 'exchangeRate', 'direction'],
      text,
    );
  });
});

describe('webhookBody values: amounts, ids and compact JSON (docs/api.md "Webhook body fields")', () => {
  it('amount is the payable (paid) amount as an integer string, never the request amount', () => {
    for (const [payable, expected] of [
      ['100001', '100001'],
      ['100001.00', '100001'],
      ['99999', '99999'],
      ['1500000', '1500000'],
    ] as const) {
      const body = JSON.parse(webhookBody(row({ amount: '100000', payableAmount: payable })));
      assert.equal(body.amount, expected, `payable ${payable}: ${JSON.stringify(body)}`);
      assert.equal(typeof body.amount, 'string');
    }
  });

  it('amountAfterFee is a JSON number with at most 2 decimals', () => {
    const body = JSON.parse(webhookBody(row({ amountAfterFee: '98000.50' })));
    assert.equal(body.amountAfterFee, 98000.5, JSON.stringify(body));
  });

  it('id, order_id, type and currency come from the row', () => {
    const body = JSON.parse(
      webhookBody(row({ id: 'lux-x', externalId: 'ext-1', type: 'sbp_pdf', currency: 'KZT' })),
    );
    assert.deepEqual(
      { id: body.id, order_id: body.order_id, type: body.type, currency: body.currency, status: body.status },
      { id: 'lux-x', order_id: 'ext-1', type: 'sbp_pdf', currency: 'KZT', status: 'success' },
    );
  });

  it('is compact JSON: re-serialising the parsed body gives the same text', () => {
    const text = webhookBody(
      row({ convertToUsdt: true, exchangeRate: '92.5', usdtAmount: '1', usdtAmountAfterFee: '0.98' }),
    );
    assert.equal(JSON.stringify(JSON.parse(text)), text);
    assert.doesNotMatch(text, /[\n\t]|": |, "|\{ | \}/, text);
  });

  it('a crypto usdt_trc20 PAYIN: usdtAmount = cryptoAmount, cryptoAmount a string, no exchangeRate', () => {
    const text = webhookBody(
      row({
        method: 'crypto',
        type: 'usdt_trc20',
        amount: '1000',
        payableAmount: '1000',
        cryptoAmount: '12.34567891',
        receivedAmount: '12.34567891',
        exchangeRate: '81',
      }),
    );
    const body = JSON.parse(text);
    assert.equal(body.cryptoAmount, '12.34567891', text);
    assert.equal(body.usdtAmount, 12.34567891, text);
    assert.equal('exchangeRate' in body, false, text);
    assert.equal('direction' in body, false, text);
    const keys = Object.keys(body);
    assert.deepEqual(keys.slice(0, BASE_KEYS.length), BASE_KEYS, text);
    assert.equal(keys.at(-1), 'cryptoAmount', text);
    assert.ok(keys.indexOf('usdtAmount') < keys.indexOf('cryptoAmount'), text);
  });
});

describe('webhookTimestamp (docs/decisions.md section 11: UTC "YYYY-MM-DD HH:MM:SS.mmm")', () => {
  const cases: Array<[number, string]> = [
    [Date.UTC(2026, 0, 2, 3, 4, 5, 6), '2026-01-02 03:04:05.006'],
    [Date.UTC(2025, 11, 31, 23, 59, 59, 999), '2025-12-31 23:59:59.999'],
    [Date.UTC(2024, 1, 29, 0, 0, 0, 0), '2024-02-29 00:00:00.000'],
  ];
  for (const [ms, expected] of cases) {
    it(expected, () => {
      assert.equal(webhookTimestamp(new Date(ms)), expected);
      assert.equal(JSON.parse(webhookBody(row({ createdAt: new Date(ms) }))).created_at, expected);
    });
  }
});
