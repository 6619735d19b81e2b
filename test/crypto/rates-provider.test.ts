import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { fetchProviderRates } from '../../src/modules/rates/rates-provider.js';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import { admin, createMerchant, merchantRequest, type TestMerchant } from '../helpers/merchant-client.js';
import { startReceiver } from '../helpers/receiver.js';

// ETH/RUB and ETH/XTS are this file's only (never USDT/RUB: other files rely on it). The evm xpub
// is the 'abandon ... about' key that crypto-create.test.ts sets too (the same key keeps the counter).
const RECORDED = JSON.stringify({
  timestamp: 1767225600,
  rates: [
    { base: 'ETH', quote: 'RUB', rate: '301234.56' },
    { base: 'ETH', quote: 'XTS', rate: 3712.5 },
    { base: 'eth', quote: 'rub', rate: '1' },
    { base: 'ETH', quote: 'RUB2', rate: '-5' },
  ],
});
const FLAT = JSON.stringify({ 'ETH/RUB': 287000, 'ETH/XTS': '3500.25', 'ETH/': '1', 'ETH/JPY': 'n/a' });

type Rate = {
  base: string;
  quote: string;
  rate: string | null;
  source: string;
  updated_at: string | null;
  fresh: boolean;
  sources: Array<{ source: string; rate: string; fetched_at: string }>;
};
/** A pair without the ages (they move with the clock). */
const still = (r: Rate) => [
  r.quote,
  r.rate,
  r.source,
  r.sources.map((s) => [s.source, s.rate, s.fetched_at]),
];

describe('rates provider: a loopback HTTP source (docs/decisions.md section 6)', () => {
  const clock = manualClock();
  let t: TestApp;
  let merchant: TestMerchant;
  let provider: Awaited<ReturnType<typeof startReceiver>>;
  let answer: { status: number; body: string } = { status: 200, body: RECORDED };

  const ethRates = async () =>
    (await admin<Rate[]>(t.app, 'GET', '/admin/rates'))
      .filter((r) => r.base === 'ETH')
      .sort((a, b) => a.quote.localeCompare(b.quote));
  const refresh = async () =>
    t.services.rates.setFromProvider(await fetchProviderRates(`${provider.url}/rates`));
  const ethOrder = async () => {
    const res = await merchantRequest(t.app, merchant, '/merchant/createOrder', {
      body: { merchant_id: merchant.id, amount: 10000, type: 'eth' },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  before(async () => {
    t = await startTestApp({ clock });
    provider = await startReceiver(() => ({ ...answer, headers: { 'content-type': 'application/json' } }));
    merchant = await createMerchant(t.app, { payment_types: ['eth'], payin_fee_percent: 2 });
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(`${'abandon '.repeat(11)}about`));
    await admin(t.app, 'PUT', '/admin/crypto/xpubs', {
      network: 'evm',
      xpub: root.derive("m/44'/60'/0'").publicExtendedKey,
    });
  });
  after(async () => {
    await provider.close();
    await t.close();
  });
  beforeEach(() => {
    clock.set(Date.now());
    answer = { status: 200, body: RECORDED };
  });

  it('the recorded answer is fetched and stored as source "provider"; bad entries dropped', async () => {
    // An operator's rate wins over the provider until it expires (docs/decisions.md section 22).
    await admin(t.app, 'PUT', '/admin/rates', { base: 'ETH', quote: 'XTS', rate: '1', ttl_seconds: 1 });
    const fetched = await fetchProviderRates(`${provider.url}/rates`);
    assert.deepEqual(fetched, [
      { base: 'ETH', quote: 'RUB', rate: '301234.56' },
      { base: 'ETH', quote: 'XTS', rate: '3712.5' },
    ]);
    assert.equal(provider.received.at(-1)?.method, 'GET');
    assert.equal(provider.received.at(-1)?.headers.accept, 'application/json');
    const at = new Date(clock.now()).toISOString();
    assert.equal(await t.services.rates.setFromProvider(fetched), 2);
    assert.deepEqual((await ethRates()).map(still), [
      ['RUB', '301234.56', 'median', [['provider', '301234.56', at]]],
      ['XTS', '1', 'operator', [['provider', '3712.5', at]]],
    ]);
    clock.advance(1001); // the operator's rate expired: the provider's is the rate again
    assert.deepEqual(
      (await ethRates()).map((r) => [r.quote, r.rate, r.source, r.updated_at, r.fresh]),
      [
        ['RUB', '301234.56', 'median', at, true],
        ['XTS', '3712.5', 'median', at, true],
      ],
    );
    const order = await ethOrder();
    assert.deepEqual(
      [order.payment_details.cryptoAmount, order.amountAfterFee],
      ['0.03319673', 9800],
      JSON.stringify(order),
    );
  });

  it('the flat map shape works too', async () => {
    answer = { status: 200, body: FLAT };
    await refresh();
    const rates = await ethRates();
    assert.deepEqual(
      rates.map((r) => [r.quote, r.sources.find((s) => s.source === 'provider')?.rate]),
      [
        ['RUB', '287000'],
        ['XTS', '3500.25'],
      ],
      JSON.stringify(rates),
    );
    assert.equal((await ethOrder()).payment_details.cryptoAmount, '0.03484321');
  });

  it('a 500 answer (or one that is not JSON) changes nothing', async () => {
    await refresh();
    const stored = (r: Rate) => still(r)[3]; // the quotes (an operator's rate may expire meanwhile)
    const before = (await ethRates()).map(stored);
    clock.advance(5000);
    for (const bad of [
      { status: 500, body: RECORDED },
      { status: 503, body: 'busy' },
      { status: 200, body: 'not json' },
    ]) {
      answer = bad;
      await assert.rejects(refresh(), `${bad.status} ${bad.body}`);
    }
    answer = { status: 200, body: '{"rates": []}' };
    assert.equal(await refresh(), 0);
    assert.deepEqual((await ethRates()).map(stored), before);
  });

  it('a rate older than rateMaxAgeSeconds counts as missing: cryptoAmount null', async () => {
    await refresh();
    const setAt = clock.now();
    clock.set(setAt + t.config.rateMaxAgeSeconds * 1000); // exactly the max age: still fresh
    assert.equal((await ethOrder()).payment_details.cryptoAmount, '0.03319673');
    clock.set(setAt + t.config.rateMaxAgeSeconds * 1000 + 1);
    const stale = await ethOrder();
    assert.deepEqual(
      [stale.payment_details.cryptoAmount, stale.amountAfterFee, stale.status],
      [null, 9800, 'pending'],
      JSON.stringify(stale),
    );
    assert.deepEqual(
      (await ethRates()).map((r) => r.fresh),
      [false, false],
    );
    await refresh(); // the next refresh makes it fresh again
    assert.equal((await ethOrder()).payment_details.cryptoAmount, '0.03319673');
  });
});
