import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../lib/errors.js';
import { money } from '../../lib/money.js';
import {
  checkSettlement,
  commissionOf,
  HOLDER_KINDS,
  holderBooks,
  overLimit,
  parseAmount,
  parsePercent,
} from './holders-rules.js';

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof AppError ? err.code : 'other';
  }
  return 'none';
};

describe('holders rules', () => {
  it('reads amounts from decimal strings and numbers without floats', () => {
    assert.equal(parseAmount('1500.50', 'amount', 'positive').toFixed(), '1500.5');
    assert.equal(parseAmount(0.1, 'amount', 'positive').plus(0.2).toFixed(), '0.3');
    assert.equal(parseAmount('-20', 'amount', 'non-zero').toFixed(), '-20');
    assert.equal(parseAmount('0', 'limit', 'non-negative').toFixed(), '0');
  });

  it('refuses negative, zero, non-numeric and over-precise amounts with INVALID_AMOUNT', () => {
    for (const bad of ['-1', '0', 'abc', '1e5', '1.234', '', ' ', 'NaN'])
      assert.equal(
        code(() => parseAmount(bad, 'amount', 'positive')),
        'INVALID_AMOUNT',
        bad,
      );
    assert.equal(
      code(() => parseAmount(Number.NaN, 'amount', 'positive')),
      'INVALID_AMOUNT',
    );
    assert.equal(
      code(() => parseAmount(Number.POSITIVE_INFINITY, 'amount', 'positive')),
      'INVALID_AMOUNT',
    );
    assert.equal(
      code(() => parseAmount('0', 'amount', 'non-zero')),
      'INVALID_AMOUNT',
    );
    assert.equal(
      code(() => parseAmount('-1', 'limit', 'non-negative')),
      'INVALID_AMOUNT',
    );
  });

  it('reads percents from 0 to 100 only', () => {
    assert.equal(parsePercent('2.5').toFixed(), '2.5');
    assert.equal(parsePercent(100).toFixed(), '100');
    for (const bad of ['100.01', '-1', 'x', '1.23456'])
      assert.equal(
        code(() => parsePercent(bad)),
        'VALIDATION_ERROR',
        bad,
      );
  });

  it('rounds the commission half up to kopecks', () => {
    assert.equal(commissionOf(money('1000.10'), money('2.5')).toFixed(), '25');
    assert.equal(commissionOf(money('1234.5'), money('1.5')).toFixed(), '18.52');
  });

  it('computes held = received − settled − paid out + corrections', () => {
    const books = holderBooks(
      'RUB',
      new Map([
        [HOLDER_KINDS.receipt, money('30000')],
        [HOLDER_KINDS.settlement, money('-12000.50')],
        [HOLDER_KINDS.correction, money('-100')],
      ]),
      money('450'),
    );
    assert.deepEqual(books, {
      currency: 'RUB',
      received: '30000',
      settled: '12000.5',
      corrections: '-100',
      paid_out: '0',
      held: '17899.5',
      commission: '450',
    });
  });

  it('refuses a settlement above what is held, allows exactly what is held', () => {
    assert.equal(
      code(() => checkSettlement(money('100'), money('100.01'))),
      'SETTLEMENT_EXCEEDS_HELD',
    );
    assert.equal(
      code(() => checkSettlement(money('100'), money('100'))),
      'none',
    );
  });

  it('is over the limit only past limit plus deposit', () => {
    assert.equal(overLimit(money(900), money(100), money(1000), null), false);
    assert.equal(overLimit(money(900), money(101), money(1000), null), true);
    assert.equal(overLimit(money(900), money(101), money(1000), money(50)), false);
    assert.equal(overLimit(money(1e9), money(0), null, null), false);
  });
});
