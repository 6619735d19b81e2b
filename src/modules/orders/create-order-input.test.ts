import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError, type ErrorCode } from '../../lib/errors.js';
import type { MerchantRow } from '../merchants/index.js';
import {
  type CreateOrderBody,
  checkLimits,
  clientFields,
  fiatCurrency,
  fiatType,
  integerAmount,
  MAX_ORDER_AMOUNT,
  orderMode,
} from './create-order-input.js';

function merchant(overrides: Partial<MerchantRow> = {}): MerchantRow {
  const now = new Date('2024-01-01T00:00:00Z');
  return {
    id: 'm_unit',
    enabled: true,
    currencies: ['RUB'],
    paymentTypes: ['sim', 'card'],
    payinFeePercent: '0',
    payinFeePercentByType: {},
    payoutFeePercent: '0',
    allowUsdt: false,
    defaultAmountUp: 0,
    defaultAmountDown: 0,
    displayName: null,
    logoUrl: null,
    returnUrl: null,
    limits: {},
    orderTtlSeconds: 900,
    cryptoOrderTtlSeconds: 3600,
    payinRateLimitPerSecond: 10,
    rateMarkupPercent: null,
    settlement: 'fiat',
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}

/** Asserts `fn` throws an AppError with `code` (and, for VALIDATION_ERROR, the named field). */
function throwsCode(fn: () => unknown, code: ErrorCode, field?: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof AppError, `expected AppError, got ${String(err)}`);
    assert.equal(err.code, code);
    if (field !== undefined) assert.equal(err.details?.[0]?.field, field);
    return true;
  });
}

const body = (fields: Partial<CreateOrderBody>): CreateOrderBody => ({
  amount: 1000,
  type: 'sim',
  ...fields,
});

describe('integerAmount (docs/decisions.md section 3 INVALID_AMOUNT)', () => {
  const invalid: Array<[string, unknown]> = [
    ['0', 0],
    ['-1', -1],
    ['1.5', 1.5],
    ["'100'", '100'],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['1e13 (above the maximum)', 1e13],
    ['null', null],
    ['undefined', undefined],
    ['true', true],
    ['an object', { value: 100 }],
  ];
  for (const [name, value] of invalid) {
    it(`${name} -> INVALID_AMOUNT`, () => throwsCode(() => integerAmount(value), 'INVALID_AMOUNT'));
  }

  const valid: number[] = [1, 1000, 1000.0, MAX_ORDER_AMOUNT];
  for (const value of valid) {
    it(`${value} is taken`, () => assert.equal(integerAmount(value), value));
  }
});

describe('clientFields: invalid values are ignored (docs/api.md fiat PAYIN request)', () => {
  it('keeps valid values', () => {
    const out = clientFields(
      body({
        client_id: 'c-1',
        client_registered_at: '2024-01-15T10:00:00Z',
        client_orders_count: 20,
        client_paid_count: 0,
      }),
    );
    assert.equal(out.clientId, 'c-1');
    assert.equal(out.clientRegisteredAt?.toISOString(), '2024-01-15T10:00:00.000Z');
    assert.equal(out.clientOrdersCount, 20);
    assert.equal(out.clientPaidCount, 0);
  });

  it('accepts a date only and an offset', () => {
    assert.equal(
      clientFields(body({ client_registered_at: '2024-01-15' })).clientRegisteredAt?.toISOString(),
      '2024-01-15T00:00:00.000Z',
    );
    assert.equal(
      clientFields(
        body({ client_registered_at: '2024-01-15T10:00:00+03:00' }),
      ).clientRegisteredAt?.toISOString(),
      '2024-01-15T07:00:00.000Z',
    );
  });

  it('absent fields -> all null', () => {
    assert.deepEqual(clientFields(body({})), {
      clientId: null,
      clientRegisteredAt: null,
      clientOrdersCount: null,
      clientPaidCount: null,
    });
  });

  const badDates: unknown[] = [
    'yesterday',
    'not-a-date',
    '2024-13-45',
    '15.01.2024',
    '',
    12345,
    {},
    null,
    true,
  ];
  for (const value of badDates) {
    it(`client_registered_at ${JSON.stringify(value)} -> null`, () => {
      assert.equal(clientFields(body({ client_registered_at: value })).clientRegisteredAt, null);
    });
  }

  it('client_registered_at of a day that does not exist (2024-02-30) -> null', () => {
    assert.equal(clientFields(body({ client_registered_at: '2024-02-30' })).clientRegisteredAt, null);
    assert.equal(
      clientFields(body({ client_registered_at: '2023-02-29T10:00:00Z' })).clientRegisteredAt,
      null,
    );
  });

  const badCounts: unknown[] = [-1, 1.5, '10', Number.NaN, 2 ** 31, null, {}, true];
  for (const value of badCounts) {
    it(`client_orders_count / client_paid_count ${String(value)} -> null`, () => {
      const out = clientFields(body({ client_orders_count: value, client_paid_count: value }));
      assert.equal(out.clientOrdersCount, null);
      assert.equal(out.clientPaidCount, null);
    });
  }

  it('one invalid field does not drop the valid ones', () => {
    const out = clientFields(
      body({
        client_id: 'c-2',
        client_registered_at: 'garbage',
        client_orders_count: -3,
        client_paid_count: 7,
      }),
    );
    assert.equal(out.clientId, 'c-2');
    assert.equal(out.clientRegisteredAt, null);
    assert.equal(out.clientOrdersCount, null);
    assert.equal(out.clientPaidCount, 7);
  });

  it('an empty client_id -> null', () => {
    assert.equal(clientFields(body({ client_id: '' })).clientId, null);
  });
});

describe('orderMode', () => {
  it('PAYOUT direction wins, crypto type, else fiat', () => {
    assert.equal(orderMode(body({ direction: 'PAYOUT', type: 'btc' })), 'payout');
    assert.equal(orderMode(body({ type: 'usdt_trc20' })), 'crypto');
    assert.equal(orderMode(body({ type: 'sim' })), 'fiat');
    assert.equal(orderMode(body({ type: 'paypal' })), 'fiat');
    assert.equal(orderMode(body({ type: 42 })), 'fiat');
  });
});

describe('fiatType', () => {
  const m = merchant({ paymentTypes: ['sim', 'tbank'] });
  it('an enabled type is returned', () => {
    assert.equal(fiatType('sim', m), 'sim');
    assert.equal(fiatType('tbank', m), 'tbank');
  });
  const unknown: unknown[] = ['paypal', 'SIM', '', 'btc', 42, null, undefined];
  for (const value of unknown) {
    it(`${JSON.stringify(value)} -> UNSUPPORTED_PAYMENT_TYPE`, () =>
      throwsCode(() => fiatType(value, m), 'UNSUPPORTED_PAYMENT_TYPE'));
  }
  it('a known type not enabled for the merchant -> PAYMENT_TYPE_NOT_ALLOWED', () => {
    throwsCode(() => fiatType('card', m), 'PAYMENT_TYPE_NOT_ALLOWED');
    throwsCode(() => fiatType('qr_smart', m), 'PAYMENT_TYPE_NOT_ALLOWED');
  });
});

describe('fiatCurrency', () => {
  const m = merchant({ currencies: ['RUB', 'KGS'] });
  it('absent or null -> RUB', () => {
    assert.equal(fiatCurrency(undefined, m), 'RUB');
    assert.equal(fiatCurrency(null, m), 'RUB');
  });
  it('an enabled currency is returned', () => {
    assert.equal(fiatCurrency('KGS', m), 'KGS');
  });
  const bad: unknown[] = ['XXX', 'KZT', 'rub', 'USDT', '', 643, {}];
  for (const value of bad) {
    it(`${JSON.stringify(value)} -> CURRENCY_NOT_ALLOWED`, () =>
      throwsCode(() => fiatCurrency(value, m), 'CURRENCY_NOT_ALLOWED'));
  }
  it('absent currency with RUB not enabled -> CURRENCY_NOT_ALLOWED', () => {
    throwsCode(() => fiatCurrency(undefined, merchant({ currencies: ['KZT'] })), 'CURRENCY_NOT_ALLOWED');
  });
});

describe('checkLimits', () => {
  const m = merchant({
    limits: { sim: { min: '100', max: '100000' }, card: { min: '50' }, any: { max: '10' } },
  });
  it('boundaries are accepted', () => {
    assert.doesNotThrow(() => checkLimits(m, 'sim', 100));
    assert.doesNotThrow(() => checkLimits(m, 'sim', 100000));
    assert.doesNotThrow(() => checkLimits(m, 'sim', '100000.00'));
  });
  it('below min -> ORDER_AMOUNT_BELOW_MIN_LIMIT', () => {
    throwsCode(() => checkLimits(m, 'sim', 99), 'ORDER_AMOUNT_BELOW_MIN_LIMIT');
    throwsCode(() => checkLimits(m, 'sim', '99.99'), 'ORDER_AMOUNT_BELOW_MIN_LIMIT');
  });
  it('above max -> ORDER_AMOUNT_ABOVE_MAX_LIMIT', () => {
    throwsCode(() => checkLimits(m, 'sim', 100001), 'ORDER_AMOUNT_ABOVE_MAX_LIMIT');
    throwsCode(() => checkLimits(m, 'sim', '100000.01'), 'ORDER_AMOUNT_ABOVE_MAX_LIMIT');
  });
  it('only the limit that is set applies', () => {
    throwsCode(() => checkLimits(m, 'card', 49), 'ORDER_AMOUNT_BELOW_MIN_LIMIT');
    assert.doesNotThrow(() => checkLimits(m, 'card', 10 ** 12));
    throwsCode(() => checkLimits(m, 'any', 11), 'ORDER_AMOUNT_ABOVE_MAX_LIMIT');
    assert.doesNotThrow(() => checkLimits(m, 'any', 1));
  });
  it('a type without limits takes any amount', () => {
    assert.doesNotThrow(() => checkLimits(m, 'sbp_pdf', 1));
    assert.doesNotThrow(() => checkLimits(m, 'sbp_pdf', 10 ** 12));
  });
});
