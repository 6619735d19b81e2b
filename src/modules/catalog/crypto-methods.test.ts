import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CRYPTO_METHODS, cryptoRequestCurrency, parseCryptoAmount } from './crypto-methods.js';

describe('parseCryptoAmount: a positive JSON number with at most 8 decimals', () => {
  const good: Array<[unknown, string]> = [
    [1, '1'],
    [0.5, '0.5'],
    [0.00000001, '0.00000001'],
    [1000.12345678, '1000.12345678'],
    [1e12, '1000000000000'],
  ];
  for (const [value, parsed] of good) {
    it(`${String(value)} -> ${parsed}`, () => assert.equal(parseCryptoAmount(value)?.toFixed(), parsed));
  }
  const bad: unknown[] = [
    0,
    -1,
    -0.5,
    '1',
    '0.5',
    null,
    undefined,
    true,
    {},
    [1],
    Number.NaN,
    Number.POSITIVE_INFINITY,
    0.123456789,
    1e-9,
    1e12 + 1,
    0.1 + 0.2,
  ];
  for (const value of bad) {
    it(`${typeof value} ${JSON.stringify(value) ?? String(value)} (${String(value)}) is refused`, () =>
      assert.equal(parseCryptoAmount(value), undefined));
  }
});

describe('cryptoRequestCurrency: the pairing table of docs/api.md', () => {
  const pairs: Record<string, string> = {
    usdt_trc20: 'USDT',
    usdt_erc20: 'USDT',
    usdt_ton: 'USDT',
    usdt_bep20: 'USDT',
    btc: 'BTC',
    ltc: 'LTC',
    eth: 'ETH',
    bnb: 'BNB',
    ton: 'TON',
  };
  const coins = ['USDT', 'BTC', 'LTC', 'ETH', 'BNB', 'TON'];
  it('covers exactly the nine crypto types', () =>
    assert.deepEqual(Object.keys(CRYPTO_METHODS).sort(), Object.keys(pairs).sort()));
  for (const [type, coin] of Object.entries(pairs)) {
    it(`${type}: RUB (default) and ${coin} only`, () => {
      assert.equal(cryptoRequestCurrency(type, undefined), 'RUB');
      assert.equal(cryptoRequestCurrency(type, null), 'RUB');
      assert.equal(cryptoRequestCurrency(type, 'RUB'), 'RUB');
      assert.equal(cryptoRequestCurrency(type, coin), coin);
      for (const other of coins.filter((c) => c !== coin))
        assert.equal(cryptoRequestCurrency(type, other), undefined, other);
      for (const junk of [coin.toLowerCase(), 'rub', 'KZT', 'EUR', '', 1, true, {}]) {
        assert.equal(cryptoRequestCurrency(type, junk), undefined, JSON.stringify(junk));
      }
    });
  }
  it('an unknown type pairs with nothing', () => {
    assert.equal(cryptoRequestCurrency('doge', 'RUB'), undefined);
    assert.equal(cryptoRequestCurrency('sim', undefined), undefined);
  });
});
