import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCbrBytes, parseCbrDaily } from './cbr.js';
import { COINGECKO_PATH, parseCoinGecko } from './coingecko.js';
import { parseRapira } from './rapira.js';
import { positiveRate } from './source-http.js';

describe('positiveRate: JSON numbers and strings, never floats', () => {
  it('keeps the text of a number, rounds past 12 decimals half up', () => {
    assert.equal(positiveRate(92.1), '92.1');
    assert.equal(positiveRate('0.1712'), '0.1712');
    assert.equal(positiveRate(JSON.parse('9123456.78')), '9123456.78');
    assert.equal(positiveRate('1.0000000000005'), '1.000000000001');
  });
  it('drops 0, negatives, exponents, NaN and non-numbers', () => {
    for (const v of [0, '0.0', -1, '-1', 1e-7, 1e21, Number.NaN, 'abc', '', null, true, {}, [1]])
      assert.equal(positiveRate(v), undefined, String(v));
  });
});

describe('CoinGecko /simple/price', () => {
  it('asks for the six coins in rubles', () => {
    assert.equal(
      COINGECKO_PATH,
      '/api/v3/simple/price?ids=tether,bitcoin,litecoin,ethereum,binancecoin,the-open-network&vs_currencies=rub',
    );
  });
  it('maps ids to codes, drops unknown ids, missing rub and bad prices', () => {
    const json = JSON.parse(
      '{"tether":{"rub":92.1},"bitcoin":{"rub":9123456.78},"the-open-network":{"rub":250.123456789},' +
        '"litecoin":{"usd":80},"ethereum":{"rub":0},"binancecoin":{"rub":"n/a"},"dogecoin":{"rub":12}}',
    );
    assert.deepEqual(parseCoinGecko(json), [
      { base: 'USDT', quote: 'RUB', rate: '92.1' },
      { base: 'BTC', quote: 'RUB', rate: '9123456.78' },
      { base: 'TON', quote: 'RUB', rate: '250.123456789' },
    ]);
  });
  it('an answer of another shape gives nothing', () => {
    for (const json of [null, [], 'x', 5, { tether: 92 }, { error: 'rate limited' }])
      assert.deepEqual(parseCoinGecko(json), [], JSON.stringify(json));
  });
});

describe('Rapira /open/market/rates', () => {
  const row = (symbol: string, extra: Record<string, unknown>) => ({ symbol, ...extra });
  it('the middle of bid and ask of X/RUB symbols, else close; other symbols ignored', () => {
    const json = {
      code: 0,
      message: 'SUCCESS',
      data: [
        row('USDT/RUB', {
          close: 80.11,
          askPrice: 80.12,
          bidPrice: 80.11,
          baseCurrency: 'RUB',
          quoteCurrency: 'USDT',
        }),
        row('BTC/USDT', { close: 62580, askPrice: 62580, bidPrice: 62292.5 }),
        row('TON/RUB', { close: 251.5 }),
        row('ETH/RUB', { close: 'x' }),
        { unexpected: 'drift' },
        null,
      ],
    };
    assert.deepEqual(parseRapira(json), [
      { base: 'USDT', quote: 'RUB', rate: '80.115' },
      { base: 'TON', quote: 'RUB', rate: '251.5' },
    ]);
  });
  it('a crossed book (ask below bid) falls back to close', () => {
    const json = { code: 0, data: [row('USDT/RUB', { close: 80, askPrice: 79, bidPrice: 81 })] };
    assert.deepEqual(parseRapira(json), [{ base: 'USDT', quote: 'RUB', rate: '80' }]);
  });
  it('an error code or a body without data gives nothing', () => {
    assert.deepEqual(parseRapira({ code: 500, data: [row('USDT/RUB', { close: 80 })] }), []);
    for (const json of [null, {}, { data: 'x' }, [], 'SUCCESS']) assert.deepEqual(parseRapira(json), []);
  });
});

describe('CBR XML_daily', () => {
  const valute = (code: string, nominal: string, value: string) =>
    `<Valute ID="R0"><NumCode>000</NumCode><CharCode>${code}</CharCode><Nominal>${nominal}</Nominal><Name>Имя</Name><Value>${value}</Value></Valute>`;
  const doc = (body: string) =>
    `<?xml version="1.0" encoding="windows-1251"?><ValCurs Date="21.05.2026" name="Foreign Currency Market">${body}</ValCurs>`;
  it('RUB per ONE unit: Value / Nominal, decimal comma', () => {
    assert.deepEqual(
      parseCbrDaily(
        doc(
          valute('KZT', '100', '17,1234') + valute('UZS', '10000', '72,9876') + valute('USD', '1', '91,2345'),
        ),
      ),
      [
        { base: 'KZT', quote: 'RUB', rate: '0.171234' },
        { base: 'UZS', quote: 'RUB', rate: '0.00729876' },
        { base: 'USD', quote: 'RUB', rate: '91.2345' },
      ],
    );
  });
  it('drops bad codes, nominals and values', () => {
    const bad = [
      valute('kzt', '100', '17,1'),
      valute('KZT', '0', '17,1'),
      valute('KZT', 'x', '17,1'),
      valute('KZT', '100', '-1'),
      valute('KZT', '100', '17.1.2'),
      valute('KZT', '100', '0,0000'),
    ];
    assert.deepEqual(parseCbrDaily(doc(bad.join('') + valute('KGS', '10', '10,4567'))), [
      { base: 'KGS', quote: 'RUB', rate: '1.04567' },
    ]);
    assert.deepEqual(parseCbrDaily('<html>not the rates</html>'), []);
  });
  it('decodes windows-1251 bytes', () => {
    // "Казахстанских тенге" in windows-1251, then the rest in ASCII.
    const name = Buffer.from([0xca, 0xe0, 0xe7, 0xe0, 0xf5]);
    const bytes = Buffer.concat([
      Buffer.from(
        doc('<Valute ID="R01335"><CharCode>KZT</CharCode><Nominal>100</Nominal><Name>').replace(
          '</ValCurs>',
          '',
        ),
      ),
      name,
      Buffer.from('</Name><Value>17,1234</Value></Valute></ValCurs>'),
    ]);
    assert.deepEqual(parseCbrBytes(bytes), [{ base: 'KZT', quote: 'RUB', rate: '0.171234' }]);
  });
});
