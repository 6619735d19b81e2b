import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bankAppLink,
  formatCard,
  formatCrypto,
  formatFiat,
  formatPhone,
  networkName,
  paymentUri,
} from './form-format.js';
import { FORM_TEXTS } from './form-texts.js';

// Pure formatting of the payment form (docs/api.md "Payment form"): requisites, wallet URIs, page language.
const BTC = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
const LTC = 'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh';
const EVM = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const TRON = 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH';
const TON = 'EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N';
const USDT_ERC20 = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
const USDT_BEP20 = '0x55d398326f99059fF775485246999027B3197955';
const USDT_TON = 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs';

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
    // TRON has no wallet URI standard: the plain address (docs/decisions.md section 31).
    ['USDT', 'TRC20', TRON, '11.111112', TRON],
    ['USDT', 'TRC20', TRON, null, TRON],
    // TON: native amount in nanotons (9 decimals); USDT as a jetton transfer in 6-decimal units
    // (docs.ton.org, wallet apps, deep links: `ton://transfer/<address>?jetton=<master>&amount=<units>`).
    ['TON', 'TON', TON, '2.5', `ton://transfer/${TON}?amount=2500000000`],
    ['TON', 'TON', TON, '0.00000001', `ton://transfer/${TON}?amount=10`],
    ['TON', 'TON', TON, null, `ton://transfer/${TON}`],
    ['USDT', 'TON', TON, '10', `ton://transfer/${TON}?jetton=${USDT_TON}&amount=10000000`],
    ['USDT', 'TON', TON, '0.000001', `ton://transfer/${TON}?jetton=${USDT_TON}&amount=1`],
    ['USDT', 'TON', TON, null, `ton://transfer/${TON}?jetton=${USDT_TON}`],
    // Unknown network: the bare address.
    ['XRP', 'XRP', 'rAddress', '1', 'rAddress'],
  ];
  for (const [coin, network, address, amount, expected] of cases) {
    it(`${coin}/${network} amount=${amount}`, () => {
      assert.equal(paymentUri(coin, network, address, amount), expected, `${coin} ${network} ${amount}`);
    });
  }

  it("a test network's token and chain id (the operator's watcher settings) replace mainnet's", () => {
    const token = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
    assert.equal(
      paymentUri('USDT', 'ERC20', EVM, '2.5', { tokenContract: token, chainId: 31337 }),
      `ethereum:${token}@31337/transfer?address=${EVM}&uint256=2500000`,
    );
    assert.equal(
      paymentUri('ETH', 'ERC20', EVM, '1', { chainId: 11155111 }),
      `ethereum:${EVM}@11155111?value=1000000000000000000`,
    );
    assert.equal(
      paymentUri('USDT', 'TON', TON, '3', { tokenContract: 'EQtestjetton' }),
      `ton://transfer/${TON}?jetton=EQtestjetton&amount=3000000`,
    );
    assert.equal(
      paymentUri('USDT', 'ERC20', EVM, '1', { tokenContract: null, chainId: null }).split('@')[0],
      'ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7',
    );
  });

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

describe('form catalogues', () => {
  it('ru and en catalogues have the same keys, none empty', () => {
    assert.deepEqual(Object.keys(FORM_TEXTS.en).sort(), Object.keys(FORM_TEXTS.ru).sort());
    const all: Array<[string, string]> = [...Object.entries(FORM_TEXTS.ru), ...Object.entries(FORM_TEXTS.en)];
    assert.deepEqual(
      all.filter(([, v]) => !v.trim()),
      [],
    );
  });
});

describe('formatFiat (Intl for the locale; the catalogue word where Intl has no known sign)', () => {
  const nb = (text: string) => text.replace(/ /g, '\u00a0');
  // [amount, currency, lang, expected] (Intl groups with no-break spaces in Russian)
  const cases: Array<[string, string, 'ru' | 'en', string]> = [
    ['12345', 'RUB', 'ru', nb('12 345 ₽')],
    ['25000', 'KZT', 'ru', nb('25 000 ₸')],
    ['1500', 'KGS', 'ru', nb('1 500 сом')],
    ['150000', 'UZS', 'ru', nb('150 000 сўм')],
    ['700', 'TJS', 'ru', nb('700 сомони')],
    ['12345', 'RUB', 'en', '₽12,345'],
    ['1500', 'KGS', 'en', nb('1,500 som')],
    ['100.5', 'RUB', 'ru', nb('100,50 ₽')],
    ['1000.05', 'RUB', 'en', '₽1,000.05'],
    ['1000', 'TRY', 'en', '₺1,000'],
    // Exact beyond a binary float's 15-16 digits.
    ['123456789012345678', 'RUB', 'en', '₽123,456,789,012,345,678'],
  ];
  for (const [amount, currency, lang, expected] of cases) {
    it(`${amount} ${currency} (${lang}) -> ${expected}`, () => {
      assert.equal(formatFiat(amount, currency, FORM_TEXTS[lang]), expected);
    });
  }
});

describe('formatCrypto, networkName, bankAppLink', () => {
  it('keeps the asset decimals: USDT 6, coins 8', () => {
    assert.equal(formatCrypto('11.111112', 6), '11.111112');
    assert.equal(formatCrypto('10', 6), '10.000000');
    assert.equal(formatCrypto('0.0123', 8), '0.01230000');
  });
  it('names networks as payers know them, unknown ones as given', () => {
    assert.equal(networkName('TRC20'), 'TRON (TRC-20)');
    assert.equal(networkName('BEP20'), 'BNB Smart Chain (BEP-20)');
    assert.equal(networkName('__proto__'), '__proto__');
  });
  it('opens only an https payload in the bank app (NSPK SBP links), never an EMV string or another scheme', () => {
    const nspk = 'https://qr.nspk.ru/AS1000670LSS7DN18SJQDNP4B05KLJL2?type=01&bank=100000000111';
    assert.equal(bankAppLink(nspk), nspk);
    assert.equal(bankAppLink('000201010212...6304ABCD'), null);
    assert.equal(bankAppLink('javascript:alert(1)'), null);
    assert.equal(bankAppLink('http://qr.nspk.ru/x'), null);
    assert.equal(bankAppLink(null), null);
  });
});
