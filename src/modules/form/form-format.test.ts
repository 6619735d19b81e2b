import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatCard, formatPhone, paymentUri, pickLang, TEXTS } from './form-format.js';

// Pure formatting of the payment form (issue 7): requisites, wallet URIs, page language.
const BTC = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
const LTC = 'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh';
const EVM = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const TRON = 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH';
const TON = 'EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N';
const USDT_ERC20 = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
const USDT_BEP20 = '0x55d398326f99059fF775485246999027B3197955';

describe('formatCard', () => {
  const cases: Array<[string, string]> = [
    ['2200123456789010', '2200 1234 5678 9010'],
    ['22001234567890123', '2200 1234 5678 9012 3'],
    ['2200123456789012345', '2200 1234 5678 9012 345'],
    // Not a card number: returned as is.
    ['220012345678901', '220012345678901'],
    ['22001234567890123456', '22001234567890123456'],
    ['2200 1234 5678 9010', '2200 1234 5678 9010'],
    ['79001234567', '79001234567'],
    ['https://qr.nspk.ru/AS100', 'https://qr.nspk.ru/AS100'],
    ['', ''],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input)} -> ${JSON.stringify(expected)}`, () => {
      assert.equal(formatCard(input), expected, `formatCard(${JSON.stringify(input)})`);
    });
  }
});

describe('formatPhone', () => {
  const cases: Array<[string, string]> = [
    ['79001234567', '+7 (900) 123-45-67'],
    ['89001234567', '+7 (900) 123-45-67'],
    ['74951112233', '+7 (495) 111-22-33'],
    // Other lengths and shapes are unchanged.
    ['7900123456', '7900123456'],
    ['790012345678', '790012345678'],
    ['9001234567', '9001234567'],
    ['19001234567', '19001234567'],
    ['+79001234567', '+79001234567'],
    ['7900123456a', '7900123456a'],
    ['2200123456789010', '2200123456789010'],
    ['', ''],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input)} -> ${JSON.stringify(expected)}`, () => {
      assert.equal(formatPhone(input), expected, `formatPhone(${JSON.stringify(input)})`);
    });
  }
});

describe('paymentUri', () => {
  // [coin, network, address, amount, expected URI]
  const cases: Array<[string, string, string, string | null, string]> = [
    // BIP21: the amount in coins, as a plain decimal.
    ['BTC', 'BTC', BTC, '0.01234567', `bitcoin:${BTC}?amount=0.01234567`],
    ['BTC', 'BTC', BTC, '0.50000000', `bitcoin:${BTC}?amount=0.5`],
    ['BTC', 'BTC', BTC, '1.00000000', `bitcoin:${BTC}?amount=1`],
    ['BTC', 'BTC', BTC, '0.00000001', `bitcoin:${BTC}?amount=0.00000001`],
    ['BTC', 'BTC', BTC, null, `bitcoin:${BTC}`],
    ['LTC', 'LTC', LTC, '1.42857143', `litecoin:${LTC}?amount=1.42857143`],
    ['LTC', 'LTC', LTC, null, `litecoin:${LTC}`],
    // EIP-681 native: value in wei (18 decimals), chain 1 / 56.
    ['ETH', 'ERC20', EVM, '1.5', `ethereum:${EVM}@1?value=1500000000000000000`],
    ['ETH', 'ERC20', EVM, '0.00000001', `ethereum:${EVM}@1?value=10000000000`],
    ['ETH', 'ERC20', EVM, '12345.67891234', `ethereum:${EVM}@1?value=12345678912340000000000`],
    ['ETH', 'ERC20', EVM, null, `ethereum:${EVM}@1`],
    ['BNB', 'BEP20', EVM, '0.01800001', `ethereum:${EVM}@56?value=18000010000000000`],
    ['BNB', 'BEP20', EVM, null, `ethereum:${EVM}@56`],
    // EIP-681 token transfer: USDT has 6 decimals on Ethereum, 18 on BSC.
    ['USDT', 'ERC20', EVM, '25.5', `ethereum:${USDT_ERC20}@1/transfer?address=${EVM}&uint256=25500000`],
    ['USDT', 'ERC20', EVM, '0.000001', `ethereum:${USDT_ERC20}@1/transfer?address=${EVM}&uint256=1`],
    ['USDT', 'ERC20', EVM, null, `ethereum:${USDT_ERC20}@1/transfer?address=${EVM}`],
    [
      'USDT',
      'BEP20',
      EVM,
      '25.5',
      `ethereum:${USDT_BEP20}@56/transfer?address=${EVM}&uint256=25500000000000000000`,
    ],
    [
      'USDT',
      'BEP20',
      EVM,
      '11.11111112',
      `ethereum:${USDT_BEP20}@56/transfer?address=${EVM}&uint256=11111111120000000000`,
    ],
    ['USDT', 'BEP20', EVM, null, `ethereum:${USDT_BEP20}@56/transfer?address=${EVM}`],
    // TRON: address URI with the decimal amount.
    ['USDT', 'TRC20', TRON, '11.11111112', `tron:${TRON}?amount=11.11111112`],
    ['USDT', 'TRC20', TRON, '100.00000000', `tron:${TRON}?amount=100`],
    ['USDT', 'TRC20', TRON, null, `tron:${TRON}`],
    // TON: native amount in nanotons (9 decimals); USDT on TON carries the address only.
    ['TON', 'TON', TON, '2.5', `ton://transfer/${TON}?amount=2500000000`],
    ['TON', 'TON', TON, '0.00000001', `ton://transfer/${TON}?amount=10`],
    ['TON', 'TON', TON, null, `ton://transfer/${TON}`],
    ['USDT', 'TON', TON, '10', `ton://transfer/${TON}`],
    ['USDT', 'TON', TON, null, `ton://transfer/${TON}`],
    // Unknown network: the bare address.
    ['XRP', 'XRP', 'rAddress', '1', 'rAddress'],
  ];
  for (const [coin, network, address, amount, expected] of cases) {
    it(`${coin}/${network} amount=${amount}`, () => {
      assert.equal(paymentUri(coin, network, address, amount), expected, `${coin} ${network} ${amount}`);
    });
  }

  it('integer units never use exponent notation, even for large and tiny amounts', () => {
    const uris = [
      paymentUri('ETH', 'ERC20', EVM, '99999999.99999999'),
      paymentUri('USDT', 'BEP20', EVM, '123456789.12345678'),
      paymentUri('TON', 'TON', TON, '99999999.99999999'),
      paymentUri('ETH', 'ERC20', EVM, '0.00000001'),
    ];
    assert.deepEqual(
      uris.map((u) => /[?&](?:value|uint256|amount)=(\d+)$/.exec(u)?.[1]),
      ['99999999999999990000000000', '123456789123456780000000000', '99999999999999990', '10000000000'],
      uris.join('\n'),
    );
  });

  it('USDT ERC20 (6 decimals): the QR never asks for less than the 8-decimal cryptoAmount', () => {
    // cryptoAmount is rounded up to 8 decimals (crypto-rules.ts); 1000 RUB / 90 = 11.11111112.
    const uri = paymentUri('USDT', 'ERC20', EVM, '11.11111112');
    assert.equal(uri, `ethereum:${USDT_ERC20}@1/transfer?address=${EVM}&uint256=11111112`, uri);
  });
});

describe('pickLang', () => {
  // [?lang, Accept-Language, expected]
  const cases: Array<[string | undefined, string | undefined, 'ru' | 'en']> = [
    [undefined, undefined, 'ru'],
    [undefined, '', 'ru'],
    ['en', undefined, 'en'],
    ['ru', undefined, 'ru'],
    ['en', 'ru-RU,ru;q=0.9', 'en'],
    ['ru', 'en-US,en;q=0.9', 'ru'],
    [undefined, 'en-US', 'en'],
    [undefined, 'en', 'en'],
    [undefined, 'EN-GB', 'en'],
    [undefined, 'en-US,en;q=0.9,ru;q=0.8', 'en'],
    [undefined, 'ru-RU,ru;q=0.9,en-US;q=0.8', 'ru'],
    [undefined, 'de-DE,de;q=0.9,en;q=0.8', 'en'],
    [undefined, 'de-DE, fr;q=0.5', 'ru'],
    [undefined, '*', 'ru'],
    // An unknown ?lang is ignored: Accept-Language decides.
    ['de', 'en-US', 'en'],
    ['de', undefined, 'ru'],
    ['', 'en', 'en'],
  ];
  for (const [query, accept, expected] of cases) {
    it(`lang=${JSON.stringify(query)} Accept-Language=${JSON.stringify(accept)} -> ${expected}`, () => {
      assert.equal(pickLang(query, accept), expected);
    });
  }

  it('ru and en texts have the same keys, none empty', () => {
    assert.deepEqual(Object.keys(TEXTS.en).sort(), Object.keys(TEXTS.ru).sort());
    const empty = [...Object.entries(TEXTS.ru), ...Object.entries(TEXTS.en)].filter(([, v]) => !v.trim());
    assert.deepEqual(empty, []);
  });
});
