import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { money, roundUp } from '../../src/lib/money.js';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import { isolateDatabase } from '../helpers/database.js';
import { startCoinGeckoFake } from '../helpers/fakes/coingecko.js';
import {
  admin,
  adminRaw,
  createMerchant,
  merchantRequest,
  type TestMerchant,
} from '../helpers/merchant-client.js';

// docs/decisions.md section 22: the markup (per direction: RATE_MARKUP_PAYIN_PERCENT; per merchant), the
// order keeping its rate, the operator's rate winning until it expires, staleness (docs/decisions.md
// section 6: cryptoAmount null, filled later) with its alert in GET /admin/rates and the metrics.

type Pair = { base: string; quote: string; rate: string | null; source: string; stale: boolean };

describe('rates: markup, override, staleness (crypto RUB-mode orders)', () => {
  const clock = manualClock();
  let t: TestApp;
  let drop: () => Promise<void>;
  let cg: Awaited<ReturnType<typeof startCoinGeckoFake>>;
  let byDefault: TestMerchant;
  let own: TestMerchant;
  let none: TestMerchant;

  const refresh = () => t.services.rateRefresh.refresh({ force: true });
  const bnbOrder = async (merchant: TestMerchant, amount = 10000) => {
    const res = await merchantRequest(t.app, merchant, '/merchant/createOrder', {
      body: { merchant_id: merchant.id, amount, type: 'bnb' },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  /** cryptoAmount = amount / (rate * (1 - markup / 100)), rounded up to 8 decimals. */
  const expected = (amount: number, rate: string, markup: string) =>
    roundUp(money(amount).dividedBy(money(rate).times(money(100).minus(markup).dividedBy(100))), 8).toFixed(
      8,
    );
  const bnbPair = async () =>
    (await admin<Pair[]>(t.app, 'GET', '/admin/rates')).find((p) => p.base === 'BNB' && p.quote === 'RUB');

  before(async () => {
    drop = await isolateDatabase('rates_markup');
    cg = await startCoinGeckoFake({ binancecoin: '55000' });
    t = await startTestApp({
      clock,
      config: {
        rateSources: ['coingecko'],
        rateSourceUrls: { coingecko: cg.url, rapira: 'http://127.0.0.1:9', cbr: 'http://127.0.0.1:9' },
        rateMarkupPayinPercent: '2',
      },
    });
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(`${'abandon '.repeat(11)}about`));
    await admin(t.app, 'PUT', '/admin/crypto/xpubs', {
      network: 'evm',
      xpub: root.derive("m/44'/60'/0'").publicExtendedKey,
    });
    byDefault = await createMerchant(t.app, { payment_types: ['bnb'] });
    own = await createMerchant(t.app, { payment_types: ['bnb'], rate_markup_percent: '0.5' });
    none = await createMerchant(t.app, { payment_types: ['bnb'], rate_markup_percent: 0 });
  });
  after(async () => {
    await t.close();
    await cg.close();
    await drop();
  });

  it('the PAYIN markup lowers the rate: RATE_MARKUP_PAYIN_PERCENT, or the merchant own', async () => {
    await refresh();
    const a = await bnbOrder(byDefault);
    assert.equal(a.payment_details.cryptoAmount, expected(10000, '55000', '2'), JSON.stringify(a));
    const b = await bnbOrder(own);
    assert.equal(b.payment_details.cryptoAmount, expected(10000, '55000', '0.5'));
    const c = await bnbOrder(none);
    assert.equal(c.payment_details.cryptoAmount, expected(10000, '55000', '0'));
    assert.ok(
      money(a.payment_details.cryptoAmount).gt(c.payment_details.cryptoAmount),
      'the client pays more',
    );
    const m = await admin<{ rate_markup_percent: string | null }>(t.app, 'GET', `/admin/merchants/${own.id}`);
    assert.equal(m.rate_markup_percent, '0.5');

    // The order keeps the rate it was created with.
    cg.prices.binancecoin = '60000';
    clock.advance(1000);
    await refresh();
    const read = await merchantRequest(t.app, byDefault, `/merchant/order/${a.id}`);
    assert.equal(
      read.json().payment_details?.cryptoAmount ?? read.json().cryptoAmount,
      a.payment_details.cryptoAmount,
    );
    assert.equal((await bnbOrder(byDefault)).payment_details.cryptoAmount, expected(10000, '60000', '2'));
  });

  it("a merchant's markup is validated: 50 or more is 400, null returns to the default", async () => {
    for (const bad of [50, '50', '-1', 'abc', '1.00001']) {
      const res = await adminRaw(t.app, 'PATCH', `/admin/merchants/${own.id}`, { rate_markup_percent: bad });
      assert.equal(res.statusCode, 400, `${bad}: ${res.body}`);
    }
    await admin(t.app, 'PATCH', `/admin/merchants/${none.id}`, { rate_markup_percent: null });
    assert.equal((await bnbOrder(none)).payment_details.cryptoAmount, expected(10000, '60000', '2'));
    await admin(t.app, 'PATCH', `/admin/merchants/${none.id}`, { rate_markup_percent: 0 });
  });

  it("an operator's rate wins until it expires, then the median returns; both in the history", async () => {
    const set = await admin<{ expires_at: string }>(t.app, 'PUT', '/admin/rates', {
      base: 'BNB',
      quote: 'RUB',
      rate: '50000',
      ttl_seconds: 3600,
      // 16.67 % below the sources' median: an admin's reason (docs/decisions.md section 34).
      reason: 'the sources lag a sharp fall',
    });
    assert.equal(set.expires_at, new Date(clock.now() + 3600_000).toISOString());
    clock.advance(3599_000);
    await refresh(); // the sources are fresh: the operator's rate still wins
    assert.deepEqual([(await bnbPair())?.rate, (await bnbPair())?.source], ['50000', 'operator']);
    assert.equal((await bnbOrder(none)).payment_details.cryptoAmount, expected(10000, '50000', '0'));
    clock.advance(1001);
    assert.deepEqual([(await bnbPair())?.rate, (await bnbPair())?.source], ['60000', 'median']);
    assert.equal((await bnbOrder(none)).payment_details.cryptoAmount, expected(10000, '60000', '0'));
    await refresh(); // records the expiry
    const rows = await admin<Array<{ kind: string; rate: string; actor: string | null; sources: unknown[] }>>(
      t.app,
      'GET',
      '/admin/rates/history?base=BNB&quote=RUB',
    );
    assert.deepEqual(rows.map((r) => [r.kind, r.rate]).reverse(), [
      ['median', '55000'],
      ['median', '60000'],
      ['override', '50000'],
      ['median', '60000'],
    ]);
    assert.equal(rows[1]?.actor, 'admin-token');
    assert.equal(rows[1]?.sources.length, 1, 'the fresh quotes at the time are kept with an override');
  });

  it('no fresh source: cryptoAmount null, the pair stale in GET /admin/rates and the metrics; filled later', async () => {
    clock.advance(t.config.rateMaxAgeSeconds * 1000 + 1);
    cg.mode = '500';
    await refresh();
    const order = await bnbOrder(byDefault, 12345);
    assert.deepEqual(
      [order.payment_details.cryptoAmount, order.status],
      [null, 'pending'],
      JSON.stringify(order),
    );
    const pair = await bnbPair();
    assert.deepEqual([pair?.rate, pair?.source, pair?.stale], [null, 'none', true]);
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.match(metrics.body, /^rate_stale_pairs 1$/m);
    assert.match(
      metrics.body,
      new RegExp(`^rate_source_age_seconds\\{pair="BNB/RUB"\\} ${t.config.rateMaxAgeSeconds}\\.001$`, 'm'),
    );

    cg.mode = 'ok';
    await refresh();
    assert.equal(await t.services.crypto.fillMissingAmounts(), 1);
    const read = await merchantRequest(t.app, byDefault, `/merchant/order/${order.id}`);
    assert.match(read.body, new RegExp(`"cryptoAmount":"?${expected(12345, '60000', '2')}`), read.body);
    const metricsAfter = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.match(metricsAfter.body, /^rate_stale_pairs 0$/m);
  });
});
