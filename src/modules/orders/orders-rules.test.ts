import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { money } from '../../lib/money.js';
import {
  amountAfterFee,
  amountKey,
  computeFee,
  type Deviation,
  disambiguateAmount,
  disambiguationCandidates,
  resolveDeviation,
  usdtFigures,
} from './orders-rules.js';

describe('computeFee: round_half_up(amount * percent / 100, 2) (docs/decisions.md section 6)', () => {
  const cases: Array<[amount: string, percent: string, fee: string]> = [
    ['1001', '2.5', '25.03'], // 25.025 rounds up
    ['1000', '2.5', '25.00'],
    ['1000', '0', '0.00'],
    ['333', '1.5', '5.00'], // 4.995 rounds up
    ['100', '99.9999', '100.00'], // 99.9999 rounds up to 100.00
    ['1', '0.5', '0.01'], // 0.005 rounds up
    ['1', '0.4999', '0.00'], // 0.004999 rounds down
    ['123457', '3.3333', '4115.19'], // 4115.1922...
    ['1000000000000', '99.9999', '999999000000.00'], // largest amount, no float error
  ];
  for (const [amount, percent, fee] of cases) {
    it(`${amount} at ${percent}% -> ${fee}`, () => {
      assert.equal(computeFee(money(amount), money(percent)).toFixed(2), fee);
    });
  }

  it('never yields more than 2 decimals', () => {
    const fee = computeFee(money('777'), money('1.2345'));
    assert.equal(fee.decimalPlaces() <= 2, true, fee.toFixed());
    assert.equal(fee.toFixed(2), '9.59'); // 9.592065
  });
});

describe('amountAfterFee: PAYIN minus, PAYOUT plus (docs/decisions.md section 6)', () => {
  const cases: Array<[direction: 'PAYIN' | 'PAYOUT', amount: string, fee: string, expected: string]> = [
    ['PAYIN', '1001', '25.03', '975.97'],
    ['PAYOUT', '1001', '25.03', '1026.03'],
    ['PAYIN', '1000', '0', '1000.00'],
    ['PAYOUT', '1000', '0', '1000.00'],
    ['PAYIN', '100', '100', '0.00'],
    ['PAYOUT', '100', '100', '200.00'],
  ];
  for (const [direction, amount, fee, expected] of cases) {
    it(`${direction} ${amount} with fee ${fee} -> ${expected}`, () => {
      assert.equal(amountAfterFee(direction, money(amount), money(fee)).toFixed(2), expected);
    });
  }

  it('composes with computeFee: 333 at 1.5% PAYIN -> 328.00', () => {
    const amount = money(333);
    assert.equal(amountAfterFee('PAYIN', amount, computeFee(amount, money('1.5'))).toFixed(2), '328.00');
  });
});

describe('usdtFigures (docs/decisions.md section 6)', () => {
  const cases: Array<[amount: string, fee: string, rate: string, usdt: string, usdtAfterFee: string]> = [
    ['1000', '25', '92.5', '10.81', '10.54'], // 10.8108..., 10.5405...
    ['1001', '0', '40', '25.03', '25.03'], // 25.025 rounds half up
    ['9250', '92.5', '92.5', '100.00', '99.00'],
    ['1', '0', '3', '0.33', '0.33'],
    ['2', '0', '3', '0.67', '0.67'],
  ];
  for (const [amount, fee, rate, usdt, usdtAfterFee] of cases) {
    it(`amount ${amount}, fee ${fee}, rate ${rate} -> ${usdt} / ${usdtAfterFee}`, () => {
      const out = usdtFigures(money(amount), money(fee), money(rate));
      assert.equal(out.usdtAmount.toFixed(2), usdt);
      assert.equal(out.usdtAmountAfterFee.toFixed(2), usdtAfterFee);
    });
  }
});

describe('resolveDeviation (docs/api.md amount disambiguation rules 1-3)', () => {
  const none: Deviation = { up: 0, down: 0 };
  const defaults: Deviation = { up: 5, down: 3 };

  it('request values win over merchant defaults', () => {
    assert.deepEqual(resolveDeviation({ amountUp: 10, amountDown: 7 }, defaults, 'RUB', 'PAYIN'), {
      up: 10,
      down: 7,
    });
  });
  it('field by field: a missing request value falls back to its default', () => {
    assert.deepEqual(resolveDeviation({ amountUp: 10 }, defaults, 'RUB', 'PAYIN'), { up: 10, down: 3 });
    assert.deepEqual(resolveDeviation({ amountDown: 1 }, defaults, 'RUB', 'PAYIN'), { up: 5, down: 1 });
  });
  it('a request 0 wins over a non-zero default', () => {
    assert.deepEqual(resolveDeviation({ amountUp: 0 }, defaults, 'RUB', 'PAYIN'), { up: 0, down: 3 });
  });
  it('merchant defaults apply when the request has none', () => {
    assert.deepEqual(resolveDeviation({}, defaults, 'RUB', 'PAYIN'), { up: 5, down: 3 });
  });
  it('request values apply without defaults', () => {
    assert.deepEqual(resolveDeviation({ amountUp: 2 }, none, 'RUB', 'PAYIN'), { up: 2, down: 0 });
    assert.deepEqual(resolveDeviation({ amountDown: 2 }, none, 'RUB', 'PAYIN'), { up: 0, down: 2 });
  });
  it('both zero -> disabled', () => {
    assert.equal(resolveDeviation({}, none, 'RUB', 'PAYIN'), undefined);
    assert.equal(resolveDeviation({ amountUp: 0, amountDown: 0 }, defaults, 'RUB', 'PAYIN'), undefined);
  });
  it('non-RUB currency -> disabled', () => {
    assert.equal(resolveDeviation({ amountUp: 5, amountDown: 5 }, defaults, 'KZT', 'PAYIN'), undefined);
    assert.equal(resolveDeviation({}, defaults, 'USDT', 'PAYIN'), undefined);
  });
  it('PAYOUT -> disabled', () => {
    assert.equal(resolveDeviation({ amountUp: 5, amountDown: 5 }, defaults, 'RUB', 'PAYOUT'), undefined);
  });
});

describe('disambiguationCandidates (docs/decisions.md section 7)', () => {
  const cases: Array<[amount: number, deviation: Deviation, expected: number[]]> = [
    [1000, { up: 2, down: 2 }, [1000, 1001, 999, 1002, 998]],
    [1000, { up: 3, down: 1 }, [1000, 1001, 999, 1002, 1003]],
    [1000, { up: 1, down: 3 }, [1000, 1001, 999, 998, 997]],
    [1000, { up: 0, down: 2 }, [1000, 999, 998]],
    [1000, { up: 2, down: 0 }, [1000, 1001, 1002]],
    [1000, { up: 0, down: 0 }, [1000]],
    [2, { up: 2, down: 5 }, [2, 3, 1, 4]], // never below 1
    [1, { up: 1, down: 3 }, [1, 2]],
  ];
  for (const [amount, deviation, expected] of cases) {
    it(`${amount} up ${deviation.up} down ${deviation.down} -> ${expected.join(',')}`, () => {
      assert.deepEqual(disambiguationCandidates(amount, deviation), expected);
    });
  }

  it('covers the whole range exactly once', () => {
    const out = disambiguationCandidates(5000, { up: 30, down: 30 });
    assert.equal(out.length, 61);
    assert.equal(new Set(out).size, 61);
    assert.equal(Math.min(...out), 4970);
    assert.equal(Math.max(...out), 5030);
  });
});

describe('disambiguateAmount (docs/api.md amount disambiguation rules 4-5)', () => {
  const dev: Deviation = { up: 2, down: 2 };
  const cases: Array<[name: string, taken: string[], expected: number]> = [
    ['a free original is kept', [], 1000],
    ['a free original is kept even when neighbours are taken', ['1001', '999'], 1000],
    ['original taken -> +1', ['1000'], 1001],
    ['original and +1 taken -> -1', ['1000', '1001'], 999],
    ['original, +1, -1 taken -> +2', ['1000', '1001', '999'], 1002],
    ['only -2 free -> -2', ['1000', '1001', '999', '1002'], 998],
    ['all taken -> the original', ['998', '999', '1000', '1001', '1002'], 1000],
    ['values outside the range do not matter', ['1000', '1001', '999', '1002', '998', '1003'], 1000],
  ];
  for (const [name, taken, expected] of cases) {
    it(name, () => {
      assert.equal(disambiguateAmount(1000, dev, new Set(taken)), expected);
    });
  }

  it('asymmetric range: down only', () => {
    assert.equal(disambiguateAmount(1000, { up: 0, down: 3 }, new Set(['1000', '999'])), 998);
  });
  it('taken keys come from amountKey ("1000.00" -> "1000")', () => {
    assert.equal(amountKey('1000.00'), '1000');
    assert.equal(amountKey('1001.50'), '1001.5');
    assert.equal(disambiguateAmount(1000, dev, new Set(['1000.00', '1001.00'].map(amountKey))), 999);
  });
});
