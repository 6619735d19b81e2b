import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { money } from '../../lib/money.js';
import { CRYPTO_METHODS, type CryptoMethod } from '../../modules/catalog/index.js';
import { chainCreditHold, cryptoCredit, quoteCryptoOrder } from './crypto-rules.js';

const method = (type: string): CryptoMethod => {
  const m = CRYPTO_METHODS[type];
  assert.ok(m, `no method ${type}`);
  return m;
};
// Cases are written as text: "type amount currency fee% coinRub usdtRub" ("-" for a missing rate) and the
// expected figures in order ("-" for null).
const dash = (v: string | undefined) => (v === undefined || v === '-' ? undefined : money(v));
const text = (v: { toFixed(): string } | null | undefined) =>
  v === null || v === undefined ? '-' : v.toFixed();

describe('quoteCryptoOrder (docs/decisions.md section 6: rounded up to the asset precision, USDT 6, coins 8)', () => {
  // => cryptoAmount cryptoRate rubAmount fee amountAfterFee usdtAmount usdtAmountAfterFee
  const cases: Array<[input: string, expected: string, note: string]> = [
    ['usdt_trc20 1000 RUB 2 - 90', '11.111112 90 1000 20 980 11.111112 10.891112', 'USDT: 6 decimals, up'],
    ['usdt_erc20 900 RUB 0 - 90', '10 90 900 0 900 10 10', 'exact: no bump'],
    ['usdt_bep20 1000 RUB 1 100 -', '10 100 1000 10 990 10 9.9', 'no USDT/RUB: the coin rate'],
    ['btc 10000 RUB 2 3000000 90', '0.00333334 3000000 10000 200 9800 111.11 108.89', 'USDT estimate'],
    ['ltc 1 RUB 0 3 -', '0.33333334 3 1 0 1 - -', 'never short by a unit'],
    ['btc 5000 RUB 2 - 100', '- - 5000 100 4900 50 49', 'no coin rate: cryptoAmount null'],
    ['usdt_trc20 5000 RUB 2 - -', '- - 5000 100 4900 - -', 'no rate at all'],
    ['btc 0.005 BTC 2 3000000 90', '0.005 3000000 15000 300 14700 166.67 163.34', 'coin mode: RUB back'],
    ['ton 12.5 TON 1.5 250.55 -', '12.5 250.55 3131.88 46.98 3084.9 - -', 'RUB half up'],
    ['usdt_ton 25 USDT 2 - 90', '25 90 2250 45 2205 25 24.5', 'usdtAmount is the coin amount'],
    [
      'usdt_trc20 10.1234567 USDT 0 - 90',
      '10.123457 90 911.11 0 911.11 10.123457 10.123457',
      'coin mode: up to 6',
    ],
    ['btc 0.123456789 BTC 0 3000000 -', '0.12345679 3000000 370370.37 0 370370.37 - -', 'coin mode: up to 8'],
    ['eth 0.1 ETH 2 - -', '0.1 - - - - - -', 'coin mode without a rate'],
  ];
  for (const [input, expected, note] of cases) {
    it(`${input} -> ${expected} (${note})`, () => {
      const [type = '', amount = '', currency = '', fee = '', coinRub, usdtRub] = input.split(' ');
      const q = quoteCryptoOrder({
        amount: money(amount),
        requestCurrency: currency,
        method: method(type),
        feePercent: money(fee),
        rates: { coinRub: dash(coinRub), usdtRub: dash(usdtRub) },
      });
      const got = [
        q.cryptoAmount,
        q.cryptoRate,
        q.rubAmount,
        q.fee,
        q.amountAfterFee,
        q.usdtAmount,
        q.usdtAmountAfterFee,
      ];
      assert.equal(got.map(text).join(' '), expected);
    });
  }
  it('cryptoAmount has the asset precision (USDT 6), covers the RUB amount and is the smallest that does', () => {
    for (const [amount, rate] of [
      ['1000', '91.37'],
      ['123457', '97.3'],
      ['1', '89.99'],
    ] as const) {
      const q = quoteCryptoOrder({
        amount: money(amount),
        requestCurrency: 'RUB',
        method: method('usdt_erc20'),
        feePercent: money(0),
        rates: { usdtRub: money(rate) },
      });
      const c = q.cryptoAmount;
      assert.ok(c && c.decimalPlaces() <= 6, `${amount}/${rate}: ${text(c)}`);
      assert.ok(c.times(rate).gte(amount), `${c.toFixed()} * ${rate} < ${amount}`);
      assert.ok(c.minus('0.000001').times(rate).lt(amount), `${c.toFixed()} not minimal`);
    }
  });
  it('cryptoAmount has at most 8 decimals, covers the RUB amount and is the smallest that does', () => {
    for (const [amount, rate] of [
      ['1000', '7'],
      ['123457', '9123456.789'],
      ['1', '97.3'],
    ] as const) {
      const q = quoteCryptoOrder({
        amount: money(amount),
        requestCurrency: 'RUB',
        method: method('btc'),
        feePercent: money(0),
        rates: { coinRub: money(rate) },
      });
      const c = q.cryptoAmount;
      assert.ok(c && c.decimalPlaces() <= 8, `${amount}/${rate}: ${text(c)}`);
      assert.ok(c.times(rate).gte(amount), `${c.toFixed()} * ${rate} < ${amount}`);
      assert.ok(c.minus('0.00000001').times(rate).lt(amount), `${c.toFixed()} not minimal`);
    }
  });
});

describe('cryptoCredit: the amount received, in USDT or RUB by settlement', () => {
  // "type settlement received fee% coinRub usdtRub" => "currency gross net", or "-" for no credit
  const cases: Array<[input: string, expected: string]> = [
    ['usdt_trc20 usdt 11.2 2 - 90', 'USDT 11.2 10.98'],
    ['usdt_ton usdt 100 1 - -', 'USDT 100 99'],
    ['btc usdt 0.01 2 3000000 90', 'USDT 333.33 326.66'],
    ['btc usdt 0.01 2 3000000 -', '-'],
    ['btc usdt 0.01 2 - 90', '-'],
    ['usdt_trc20 fiat 11.2 2 - 90', 'RUB 1008 987.84'],
    ['usdt_erc20 fiat 10 0 91 -', 'RUB 910 910'],
    ['ton fiat 12.5 1.5 250.5 90', 'RUB 3131.25 3084.28'],
    ['btc fiat 0.00333334 2 3000000 -', 'RUB 10000.02 9800.02'],
    ['ltc fiat 1 2 - 90', '-'],
  ];
  for (const [input, expected] of cases) {
    it(`${input} -> ${expected}`, () => {
      const [type = '', settlement, received = '', fee = '', coinRub, usdtRub] = input.split(' ');
      const c = cryptoCredit({
        received: money(received),
        method: method(type),
        settlement: settlement as 'fiat' | 'usdt',
        feePercent: money(fee),
        rates: { coinRub: dash(coinRub), usdtRub: dash(usdtRub) },
      });
      assert.equal(c ? `${c.currency} ${c.gross.toFixed()} ${c.net.toFixed()}` : '-', expected);
    });
  }
});

describe('chainCreditHold (docs/decisions.md section 34)', () => {
  const base = { coin: 'USDT', ratio: money('2'), rubRate: money('92.5'), orderRub: money('925') };
  it('within 2 x the crypto amount and its RUB value: credited (null)', () => {
    assert.equal(chainCreditHold({ ...base, received: money('20'), cryptoAmount: money('10') }), null);
  });
  it('more coins than 2 x: held with the numbers', () => {
    assert.match(
      chainCreditHold({ ...base, received: money('20.000001'), cryptoAmount: money('10') }) ?? '',
      /received 20\.000001 USDT, more than 2 x the order's 10 USDT/,
    );
  });
  it('2^256-1 units compare exactly, no float', () => {
    const huge = money('115792089237316195423570985008687907853269984665640564039457.584007913129639935');
    assert.match(
      chainCreditHold({ ...base, received: huge, cryptoAmount: money('10') }) ?? '',
      /more than 2 x/,
    );
  });
  it('a RUB value more than 2 x the order at the rate the credit uses: held, whatever the crypto ratio', () => {
    const reason = chainCreditHold({
      coin: 'USDT',
      ratio: money('2'),
      received: money('0.000001'),
      cryptoAmount: money('0.000001'),
      rubRate: money('999999999999999'),
      orderRub: money('100000'),
    });
    assert.match(reason ?? '', /is worth 1000000000\.00 RUB .* more than 2 x the order's 100000 RUB/);
  });
});
