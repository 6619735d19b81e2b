import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseProviderAnswer } from './rates-provider.js';

describe('parseProviderAnswer: the two answer shapes', () => {
  it('{"rates": [{base, quote, rate}]}, rates as strings or numbers', () => {
    assert.deepEqual(
      parseProviderAnswer({
        rates: [
          { base: 'USDT', quote: 'RUB', rate: '92.5' },
          { base: 'BTC', quote: 'RUB', rate: 9100000 },
          { base: 'TON', quote: 'RUB', rate: 250.123456789012 },
        ],
      }),
      [
        { base: 'USDT', quote: 'RUB', rate: '92.5' },
        { base: 'BTC', quote: 'RUB', rate: '9100000' },
        { base: 'TON', quote: 'RUB', rate: '250.123456789012' },
      ],
    );
  });
  it('a flat map {"USDT/RUB": "92.5", "BTC/RUB": 9100000}', () => {
    assert.deepEqual(parseProviderAnswer({ 'USDT/RUB': '92.5', 'BTC/RUB': 9100000 }), [
      { base: 'USDT', quote: 'RUB', rate: '92.5' },
      { base: 'BTC', quote: 'RUB', rate: '9100000' },
    ]);
  });
});

describe('parseProviderAnswer drops bad entries and keeps the good ones', () => {
  const good = { base: 'LTC', quote: 'RUB', rate: '7000' };
  const badEntries: Array<[string, unknown]> = [
    ['rate 0', { base: 'USDT', quote: 'RUB', rate: 0 }],
    ['rate "0.00"', { base: 'USDT', quote: 'RUB', rate: '0.00' }],
    ['a negative rate', { base: 'USDT', quote: 'RUB', rate: -92.5 }],
    ['a rate that is not a number', { base: 'USDT', quote: 'RUB', rate: 'abc' }],
    ['an empty rate', { base: 'USDT', quote: 'RUB', rate: '' }],
    ['a null rate', { base: 'USDT', quote: 'RUB', rate: null }],
    ['a missing rate', { base: 'USDT', quote: 'RUB' }],
    ['an object rate', { base: 'USDT', quote: 'RUB', rate: { value: 1 } }],
    ['a rate in exponent form', { base: 'USDT', quote: 'RUB', rate: 1e21 }],
    ['13 decimals', { base: 'USDT', quote: 'RUB', rate: '1.0000000000001' }],
    ['16 integer digits', { base: 'USDT', quote: 'RUB', rate: '1000000000000000' }],
    ['a lower-case base', { base: 'usdt', quote: 'RUB', rate: '92.5' }],
    ['a base of 2 letters', { base: 'US', quote: 'RUB', rate: '92.5' }],
    ['a base of 6 letters', { base: 'TETHER', quote: 'RUB', rate: '92.5' }],
    ['a numeric quote', { base: 'USDT', quote: 643, rate: '92.5' }],
    ['a missing quote', { base: 'USDT', rate: '92.5' }],
    ['null', null],
    ['a number', 5],
  ];
  for (const [label, entry] of badEntries) {
    it(`rates shape: ${label}`, () => {
      assert.deepEqual(parseProviderAnswer({ rates: [entry, good] }), [good]);
    });
  }
  const badPairs: Array<[string, unknown]> = [
    ['a key without a slash', ['USDTRUB', '92.5']],
    ['an empty quote', ['USDT/', '92.5']],
    ['a lower-case key', ['usdt/rub', '92.5']],
    ['a zero rate', ['USDT/RUB', '0']],
    ['a negative rate', ['USDT/RUB', -1]],
    ['a null rate', ['USDT/RUB', null]],
  ];
  for (const [label, [key, rate]] of badPairs as Array<[string, [string, unknown]]>) {
    it(`flat shape: ${label}`, () => {
      assert.deepEqual(parseProviderAnswer({ [key]: rate, 'LTC/RUB': '7000' }), [good]);
    });
  }
  it('a rate given as an array ([92.5]) is not a number', () => {
    assert.deepEqual(parseProviderAnswer({ 'USDT/RUB': [92.5], 'LTC/RUB': '7000' }), [good]);
    assert.deepEqual(parseProviderAnswer({ rates: [{ base: 'USDT', quote: 'RUB', rate: ['92.5'] }, good] }), [
      good,
    ]);
  });
  it('flat shape: a key with three parts ("USDT/RUB/X") is not a pair', () => {
    assert.deepEqual(parseProviderAnswer({ 'USDT/RUB/X': '92.5', 'LTC/RUB': '7000' }), [good]);
  });
  it('answers that are neither shape give nothing', () => {
    for (const json of [null, undefined, 'USDT/RUB 92.5', 92.5, true, [], [good], { rates: 'none' }]) {
      assert.deepEqual(parseProviderAnswer(json), [], JSON.stringify(json));
    }
  });
  it('a rates array whose entries are all bad gives nothing', () => {
    assert.deepEqual(parseProviderAnswer({ rates: [{ base: 'USDT', quote: 'RUB', rate: 'x' }] }), []);
  });
});
