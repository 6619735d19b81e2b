import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { HDKey } from '@scure/bip32';
import { generateMnemonic, mnemonicToSeedSync } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { money, roundHalfUp, roundUp } from '../../src/lib/money.js';
import { deriveDepositAddress, parseExtendedPublicKey } from '../../src/rails/crypto/address-derivation.js';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import { onPostgres, testDatabaseUrl } from '../helpers/database.js';
import {
  admin,
  adminRaw,
  createMerchant,
  merchantRequest,
  type TestMerchant,
} from '../helpers/merchant-client.js';
import { tonAddress, withTonPool } from '../helpers/ton-pool.js';

// Global state (xpubs, TON pool, rates) is shared by every file on PostgreSQL. This file owns the ltc
// xpub, LTC/RUB and BNB/RUB; btc, evm and tron use the 'abandon ... about' keys that other files set
// too (the same key keeps the counter), so indexes are found by derivation, exact only where owned.
type Net = 'btc' | 'ltc' | 'evm' | 'tron';
const PATHS: Record<Net, string> = {
  btc: "m/84'/0'/0'",
  ltc: "m/84'/2'/0'",
  evm: "m/44'/60'/0'",
  tron: "m/44'/195'/0'",
};
const ABANDON = `${'abandon '.repeat(11)}about`;
const abandon = HDKey.fromMasterSeed(mnemonicToSeedSync(ABANDON));
const xpubOf = (root: HDKey, net: Net) => root.derive(PATHS[net]).publicExtendedKey;
const derived = new Map<string, { account: HDKey; list: string[] }>();
function addressAt(net: Net, xpub: string, index: number): string {
  const d = derived.get(`${net}:${xpub}`) ?? { account: parseExtendedPublicKey(net, xpub), list: [] };
  derived.set(`${net}:${xpub}`, d);
  while (d.list.length <= index) d.list.push(deriveDepositAddress(net, d.account, d.list.length));
  return d.list[index] as string;
}
function indexOf(net: Net, address: string, xpub = xpubOf(abandon, net)): number {
  for (let i = 0; i < 500; i++) if (addressAt(net, xpub, i) === address) return i;
  return -1;
}
/** EIP-55 checked independently of src: uppercase exactly where keccak(lowercase hex) nibble >= 8. */
function isEip55(address: string): boolean {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return false;
  const hex = address.slice(2);
  const hash = Buffer.from(keccak_256(new TextEncoder().encode(hex.toLowerCase()))).toString('hex');
  return [...hex].every((c, i) =>
    Number.parseInt(hash[i] ?? '0', 16) >= 8 ? c === c.toUpperCase() : c === c.toLowerCase(),
  );
}
const BECH32 = '[02-9ac-hj-np-z]';
const TYPES: Record<string, { coin: string; network: string; net: Net | 'ton'; format?: RegExp }> = {
  btc: { coin: 'BTC', network: 'BTC', net: 'btc', format: new RegExp(`^bc1q${BECH32}{38}$`) },
  ltc: { coin: 'LTC', network: 'LTC', net: 'ltc', format: new RegExp(`^ltc1q${BECH32}{38}$`) },
  eth: { coin: 'ETH', network: 'ERC20', net: 'evm' },
  bnb: { coin: 'BNB', network: 'BEP20', net: 'evm' },
  usdt_erc20: { coin: 'USDT', network: 'ERC20', net: 'evm' },
  usdt_bep20: { coin: 'USDT', network: 'BEP20', net: 'evm' },
  usdt_trc20: { coin: 'USDT', network: 'TRC20', net: 'tron', format: /^T[1-9A-HJ-NP-Za-km-z]{33}$/ },
  ton: { coin: 'TON', network: 'TON', net: 'ton' },
  usdt_ton: { coin: 'USDT', network: 'TON', net: 'ton' },
};
const ALL_TYPES = Object.keys(TYPES);

describe('crypto PAYIN createOrder (docs/api.md "createOrder - crypto PAYIN"; docs/decisions.md 6, 8)', () => {
  const clock = manualClock();
  let t: TestApp;
  let merchant: TestMerchant;
  const handedOut = new Map<string, string>(); // xpub address -> the order that got it (this file)
  let usdtRub: string[] = ['90'];

  const create = (fields: Record<string, unknown>, m = merchant) =>
    merchantRequest(t.app, m, '/merchant/createOrder', { body: { merchant_id: m.id, ...fields } });
  const createOk = async (fields: Record<string, unknown>, m = merchant) => {
    const res = await create(fields, m);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    if (TYPES[body.payment_details.type]?.net !== 'ton') handedOut.set(body.payment_details.address, body.id);
    return body;
  };
  const same = (actual: unknown, expected: unknown, body?: unknown) =>
    assert.deepEqual(actual, expected, JSON.stringify(body ?? actual));
  const expectError = (res: LightMyRequestResponse, status: number, code: string) =>
    same([res.statusCode, res.json().message], [status, code], res.body);
  const setRate = (base: string, rate: string) =>
    admin(t.app, 'PUT', '/admin/rates', { base, quote: 'RUB', rate });
  type XpubAnswer = { network: string; first_address: string; next_index: number };
  const putXpub = (network: string, xpub: string) =>
    admin<XpubAnswer>(t.app, 'PUT', '/admin/crypto/xpubs', { network, xpub });
  /** USDT/RUB is shared: 90 (what every file sets) or, on PostgreSQL, whatever another file set. */
  const readUsdtRub = async () => {
    const list = await admin<Array<{ base: string; quote: string; rate: string }>>(
      t.app,
      'GET',
      '/admin/rates',
    );
    usdtRub = onPostgres()
      ? ['90', list.find((r) => r.base === 'USDT' && r.quote === 'RUB')?.rate ?? '90']
      : ['90'];
  };
  type Dec = ReturnType<typeof money>;
  const fits = (expected: (r: Dec) => unknown, actual: unknown, body: unknown) =>
    assert.ok(
      usdtRub.some((r) => isDeepStrictEqual(expected(money(r)), actual)),
      `${usdtRub}: ${JSON.stringify(body)}`,
    );
  const afterFee = (v: Dec) => v.minus(roundHalfUp(v.times(2).dividedBy(100), 2));
  const estimate = (rub: number) => (r: Dec) => {
    const u = roundHalfUp(money(rub).dividedBy(r), 2);
    return [u.toNumber(), afterFee(u).toNumber()];
  };

  before(async () => {
    t = await startTestApp({ clock });
    merchant = await createMerchant(t.app, { payment_types: ALL_TYPES, payin_fee_percent: 2 });
  });
  after(() => t.close());
  beforeEach(() => clock.set(Date.now()));

  it('ltc without an xpub: 409 REQUISITES_NOT_FOUND (no other file configures ltc)', async () => {
    expectError(await create({ amount: 1, type: 'ltc', currency: 'LTC' }), 409, 'REQUISITES_NOT_FOUND');
  });

  it('invalid xpubs are 400 VALIDATION_ERROR and store nothing', async () => {
    // An Ltub (LTC's own version bytes) is an LTC key, not a BTC one.
    const ltub = HDKey.fromMasterSeed(mnemonicToSeedSync(ABANDON), {
      private: 0x019d9cfe,
      public: 0x019da462,
    }).derive(PATHS.ltc).publicExtendedKey;
    const bad: Array<[string, string, string]> = [
      ['ltc', `xpub${'1'.repeat(107)}`, 'xpub'],
      ['ltc', abandon.derive(PATHS.ltc).privateExtendedKey, 'xpub'],
      ['ltc', `${xpubOf(abandon, 'ltc').slice(0, -1)}x`, 'xpub'],
      [
        'evm',
        'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs',
        'xpub',
      ],
      ['btc', ltub, 'xpub'],
      ['ton', xpubOf(abandon, 'evm'), 'network'],
      ['doge', xpubOf(abandon, 'evm'), 'network'],
      ['ltc', 'short', 'xpub'],
    ];
    for (const [network, xpub, field] of bad) {
      const res = await adminRaw(t.app, 'PUT', '/admin/crypto/xpubs', { network, xpub });
      expectError(res, 400, 'VALIDATION_ERROR');
      assert.ok(JSON.stringify(res.json().details).includes(field), res.body);
    }
    expectError(await create({ amount: 1, type: 'ltc', currency: 'LTC' }), 409, 'REQUISITES_NOT_FOUND');
  });

  it("PUT /admin/crypto/xpubs answers the index-0 address of the 'abandon' keys", async () => {
    const known: Record<Net, string> = {
      btc: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
      evm: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
      tron: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
      ltc: addressAt('ltc', xpubOf(abandon, 'ltc'), 0),
    };
    for (const net of ['btc', 'ltc', 'evm', 'tron'] as const) {
      const data = await putXpub(net, xpubOf(abandon, net));
      same([data.network, data.first_address], [net, known[net]], data);
      assert.equal(data.first_address, addressAt(net, xpubOf(abandon, net), 0));
      if (net === 'ltc') assert.equal(data.next_index, 0, JSON.stringify(data));
    }
  });

  it('every xpub type: its address format, coin, network; coin mode needs no rate', async () => {
    for (const type of ALL_TYPES.filter((x) => TYPES[x]?.net !== 'ton')) {
      const { coin, network, net, format } = TYPES[type] as (typeof TYPES)[string];
      const body = await createOk({ amount: 0.5, type, currency: coin });
      const { address, ...pd } = body.payment_details;
      same([body.ok, body.status, body.currency, body.remainingSeconds], [true, 'pending', coin, 3600], body);
      same(pd, { bank: coin, holder_name: network, type, amount: '0.5', cryptoAmount: '0.50000000' }, body);
      assert.equal('exchangeRate' in body, false, JSON.stringify(body));
      if (net === 'evm') assert.ok(isEip55(address), `${type} not EIP-55: ${address}`);
      else assert.match(address, format ?? /^$/, type);
      assert.ok(indexOf(net as Net, address) >= 0, `${type} ${address} is not an 'abandon' address`);
      if (coin === 'USDT') same([body.usdtAmount, body.usdtAmountAfterFee], [0.5, 0.49], body);
    }
  });

  it('consecutive orders get the next derivation indexes and distinct addresses', async () => {
    const cases = [
      ['ltc', 'ltc'],
      ['btc', 'btc'],
      ['eth', 'evm'],
      ['usdt_trc20', 'tron'],
    ] as const;
    for (const [type, net] of cases) {
      const indexes: number[] = [];
      for (let i = 0; i < 3; i++) {
        const body = await createOk({ amount: 1, type, currency: TYPES[type]?.coin });
        indexes.push(indexOf(net, body.payment_details.address));
      }
      const rising = indexes.every((x, i) => x >= 0 && (i === 0 || x > (indexes[i - 1] as number)));
      assert.ok(rising, `${type}: ${indexes}`);
      // Exact where nobody else takes indexes in between: ltc always, everything on PGlite.
      const first = indexes[0] as number;
      if (net === 'ltc' || !onPostgres()) same(indexes, [first, first + 1, first + 2]);
    }
  });

  it('RUB mode: cryptoAmount = amount / COIN/RUB rounded up to the asset precision (USDT 6, coins 8); RUB after fee', async () => {
    await setRate('LTC', '7000');
    await setRate('BNB', '55555.55');
    await setRate('USDT', '90');
    const ltc = await createOk({ amount: 10000, type: 'ltc' });
    const bnb = await createOk({ amount: 1000, type: 'bnb', currency: 'RUB' });
    const trc = await createOk({ amount: 1000, type: 'usdt_trc20' });
    await readUsdtRub();
    const pdOf = (b: {
      currency: string;
      amountAfterFee: number;
      payment_details: Record<string, string>;
    }) => [b.currency, b.payment_details.amount, b.payment_details.cryptoAmount, b.amountAfterFee];
    same(pdOf(ltc), ['RUB', '10000', '1.42857143', 9800], ltc);
    fits(estimate(10000), [ltc.usdtAmount, ltc.usdtAmountAfterFee], ltc);
    same(pdOf(bnb), ['RUB', '1000', '0.01800001', 980], bnb); // 0.0180000018 rounds up
    same([trc.currency, trc.amountAfterFee], ['RUB', 980], trc);
    fits((r) => roundUp(money(1000).dividedBy(r), 6).toFixed(8), trc.payment_details.cryptoAmount, trc);
    const c = money(trc.payment_details.cryptoAmount);
    same([trc.usdtAmount, trc.usdtAmountAfterFee], [c.toNumber(), afterFee(c).toNumber()], trc);
    for (const body of [ltc, bnb, trc]) assert.equal('exchangeRate' in body, false, JSON.stringify(body));
    const read = await merchantRequest(t.app, merchant, `/merchant/order/${ltc.id}`);
    const o = read.json();
    same(
      [read.statusCode, o.payment_details, o.amountAfterFee, 'exchangeRate' in o],
      [200, ltc.payment_details, 9800, false],
      o,
    );
  });

  it('coin mode: the amount is the crypto amount; amountAfterFee converted back to RUB', async () => {
    await setRate('LTC', '7000');
    await setRate('USDT', '90');
    const ltc = await createOk({ amount: 1.5, type: 'ltc', currency: 'LTC' });
    const erc = await createOk({ amount: 25.5, type: 'usdt_erc20', currency: 'USDT' });
    await readUsdtRub();
    const pd = ltc.payment_details;
    same(
      [ltc.currency, pd.amount, pd.cryptoAmount, ltc.amountAfterFee],
      ['LTC', '1.5', '1.50000000', 10290],
      ltc,
    );
    fits(estimate(10500), [ltc.usdtAmount, ltc.usdtAmountAfterFee], ltc);
    const e = [erc.currency, erc.payment_details.cryptoAmount, erc.usdtAmount, erc.usdtAmountAfterFee];
    same(e, ['USDT', '25.50000000', 25.5, 24.99], erc);
    fits((r) => afterFee(roundHalfUp(money('25.5').times(r), 2)).toNumber(), erc.amountAfterFee, erc);
  });

  it('every type refuses every currency it does not pair with: 400 CURRENCY_NOT_ALLOWED', async () => {
    const coins = ['USDT', 'BTC', 'LTC', 'ETH', 'BNB', 'TON'];
    for (const type of ALL_TYPES) {
      for (const currency of [...coins.filter((c) => c !== TYPES[type]?.coin), 'usdt', 'EUR', 'KZT', 643]) {
        expectError(await create({ amount: 1, type, currency }), 400, 'CURRENCY_NOT_ALLOWED');
      }
    }
  });

  it('convertToUsdt: with ton 400 USDT_CONVERSION_NOT_SUPPORTED; with btc ignored (no permission needed)', async () => {
    const ton = await create({ amount: 1, type: 'ton', currency: 'TON', convertToUsdt: true });
    expectError(ton, 400, 'USDT_CONVERSION_NOT_SUPPORTED');
    const body = await createOk({ amount: 0.01, type: 'btc', currency: 'BTC', convertToUsdt: true });
    same([body.payment_details.cryptoAmount, 'exchangeRate' in body], ['0.01000000', false], body);
    const read = await merchantRequest(t.app, merchant, `/merchant/order/${body.id}`);
    assert.equal(read.json().convertToUsdt, false, read.body);
  });

  it('amountUp and amountDown are ignored: same amount twice keeps the requested amount', async () => {
    await setRate('LTC', '7000');
    const a = await createOk({ amount: 7000, type: 'ltc', amountUp: 50, amountDown: 50 });
    const b = await createOk({ amount: 7000, type: 'ltc', amountUp: 50 });
    for (const x of [a, b]) {
      same(
        [x.payment_details.amount, x.payment_details.cryptoAmount, x.amountAfterFee],
        ['7000', '1.00000000', 6860],
        x,
      );
    }
  });

  it('INVALID_AMOUNT for 0, negative, a string, 9 decimals; PAYMENT_TYPE_NOT_ALLOWED without the type', async () => {
    for (const amount of [0, -1, -0.5, '1', '0.5', 0.123456789, 1e-9, null]) {
      expectError(await create({ amount, type: 'btc', currency: 'BTC' }), 400, 'INVALID_AMOUNT');
    }
    const fiatOnly = await createMerchant(t.app, { payment_types: ['sim', 'btc'] });
    for (const type of ALL_TYPES.filter((x) => x !== 'btc')) {
      expectError(await create({ amount: 1, type }, fiatOnly), 403, 'PAYMENT_TYPE_NOT_ALLOWED');
    }
  });

  it('no fresh rate: cryptoAmount null; filled once a rate exists, and GET /merchant/order shows it', async () => {
    await setRate('BNB', '55555.55');
    clock.advance((t.config.rateMaxAgeSeconds + 1) * 1000); // every rate is now older than RATE_MAX_AGE
    const body = await createOk({ amount: 1000, type: 'bnb' });
    same([body.payment_details.cryptoAmount, body.amountAfterFee, body.status], [null, 980, 'pending'], body);
    const read = async () => (await merchantRequest(t.app, merchant, `/merchant/order/${body.id}`)).json();
    assert.equal((await read()).payment_details.cryptoAmount, null);
    await setRate('BNB', '60000'); // written at the advanced clock: fresh for it
    assert.ok((await t.services.crypto.fillMissingAmounts()) >= 1);
    const filled = await read();
    same(
      [filled.payment_details.cryptoAmount, filled.payment_details.address],
      ['0.01666667', body.payment_details.address],
      filled,
    );
  });

  it('an xpub change resets the index; the same xpub again keeps it', async () => {
    const other = xpubOf(HDKey.fromMasterSeed(mnemonicToSeedSync(generateMnemonic(wordlist))), 'ltc');
    same(await putXpub('ltc', other), {
      network: 'ltc',
      first_address: addressAt('ltc', other, 0),
      next_index: 0,
    });
    const ltcAddress = async () =>
      (await createOk({ amount: 1, type: 'ltc', currency: 'LTC' })).payment_details.address;
    same([await ltcAddress(), await ltcAddress()], [addressAt('ltc', other, 0), addressAt('ltc', other, 1)]);
    assert.equal((await putXpub('ltc', other)).next_index, 2);
    assert.equal(await ltcAddress(), addressAt('ltc', other, 2));
  });

  it('switching back to an earlier xpub never hands out an address again', async () => {
    const earlier = new Map(handedOut);
    await putXpub('ltc', xpubOf(abandon, 'ltc'));
    const body = await createOk({ amount: 1, type: 'ltc', currency: 'LTC' });
    const previous = earlier.get(body.payment_details.address);
    assert.equal(
      previous,
      undefined,
      `${body.id} got ${body.payment_details.address}, given before to ${previous}`,
    );
  });

  describe('TON pool (ton, usdt_ton)', () => {
    let pool: TestMerchant;
    before(async () => {
      pool = await createMerchant(t.app, {
        payment_types: ['ton', 'usdt_ton'],
        crypto_order_ttl_seconds: 7 * 86_400,
      });
    });
    const createTon = (type = 'ton') =>
      create({ amount: 2, type, currency: type === 'ton' ? 'TON' : 'USDT' }, pool);
    const load = (addresses: string[]) =>
      admin(t.app, 'POST', '/admin/crypto/pool-addresses', { network: 'ton', addresses });
    /** Takes every free pool address (left over by a failed run) so that what follows is exact. */
    const drain = async () => {
      for (let i = 0; i < 50 && (await createTon()).statusCode === 200; i++);
    };

    it('invalid pool loads are 400 VALIDATION_ERROR', async () => {
      const bodies = [
        { network: 'btc', addresses: [tonAddress()] },
        { network: 'ton', addresses: ['bc1qnotaton'] },
        // One character changed: the shape of a TON address, a wrong checksum.
        { network: 'ton', addresses: [tonAddress().replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))] },
        { network: 'ton', addresses: [] },
      ];
      for (const body of bodies) {
        expectError(
          await adminRaw(t.app, 'POST', '/admin/crypto/pool-addresses', body),
          400,
          'VALIDATION_ERROR',
        );
      }
    });

    it('one pool address per pending order; none free: 409 REQUISITES_NOT_FOUND', () =>
      withTonPool(async () => {
        await drain();
        const loaded = [tonAddress(), tonAddress()];
        same(await load([...loaded, loaded[0] as string]), { network: 'ton', added: 2, skipped: 1 });
        const [a, b] = [await createTon('ton'), await createTon('usdt_ton')].map((r) => {
          assert.equal(r.statusCode, 200, r.body);
          return r.json().payment_details;
        });
        same([a.bank, a.holder_name, b.bank, b.holder_name], ['TON', 'TON', 'USDT', 'TON'], [a, b]);
        same([a.address, b.address].sort(), [...loaded].sort(), [a, b]);
        expectError(await createTon('ton'), 409, 'REQUISITES_NOT_FOUND');
        expectError(await createTon('usdt_ton'), 409, 'REQUISITES_NOT_FOUND');
      }));

    it('an ended order keeps its address 24 h, then the address is reused', () =>
      withTonPool(async () => {
        await drain();
        const start = Date.now() - 3 * 86_400_000; // before any real-time assignment: first in line when free
        clock.set(start);
        const address = tonAddress();
        await load([address]);
        const first = await createTon();
        assert.equal(first.json().payment_details?.address, address, first.body);
        clock.set(start + 60_000);
        await admin(t.app, 'POST', `/admin/orders/${first.json().id}/cancel`, { reason: 'client left' });
        clock.set(start + 60_000 + 86_400_000 - 1000);
        expectError(await createTon(), 409, 'REQUISITES_NOT_FOUND');
        clock.set(start + 60_000 + 86_400_000 + 1000);
        const again = await createTon();
        same([again.statusCode, again.json().payment_details?.address], [200, address], again.body);
      }));
  });
});
