import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import { isolateDatabase } from '../helpers/database.js';
import { startCbrFake } from '../helpers/fakes/cbr.js';
import { startCoinGeckoFake } from '../helpers/fakes/coingecko.js';
import { startRapiraFake } from '../helpers/fakes/rapira.js';
import { admin } from '../helpers/merchant-client.js';

// docs/decisions.md section 22: the three sources against loopback fakes of their documented answers, the
// median of the fresh ones, a failing source skipped, the history of every change.

type Pair = {
  base: string;
  quote: string;
  rate: string | null;
  source: string;
  fresh: boolean;
  stale: boolean;
  sources: Array<{ source: string; rate: string; age_seconds: number; fresh: boolean }>;
  freshest_source_age_seconds: number | null;
};
type History = {
  id: number;
  kind: string;
  rate: string | null;
  sources: Array<{ source: string; rate: string; at: string }>;
};

describe('rate sources: CoinGecko, Rapira, the CBR (loopback fakes)', () => {
  const clock = manualClock();
  let t: TestApp;
  let drop: () => Promise<void>;
  let cg: Awaited<ReturnType<typeof startCoinGeckoFake>>;
  let rp: Awaited<ReturnType<typeof startRapiraFake>>;
  let cbr: Awaited<ReturnType<typeof startCbrFake>>;

  const refresh = () => t.services.rateRefresh.refresh({ force: true });
  const pair = async (base: string, quote: string) => {
    const list = await admin<Pair[]>(t.app, 'GET', '/admin/rates');
    const p = list.find((r) => r.base === base && r.quote === quote);
    assert.ok(p, `${base}/${quote} listed: ${JSON.stringify(list)}`);
    return p;
  };
  const history = (base: string, quote: string, query = '') =>
    admin<History[]>(t.app, 'GET', `/admin/rates/history?base=${base}&quote=${quote}${query}`);

  before(async () => {
    drop = await isolateDatabase('rates_sources');
    cg = await startCoinGeckoFake({ tether: '92.1', bitcoin: '9123456.78', 'the-open-network': '250.5' });
    rp = await startRapiraFake([
      { symbol: 'USDT/RUB', bid: '92.9', ask: '93.1', close: '93' },
      { symbol: 'BTC/USDT', bid: '62292.5', ask: '62580', close: '62580' },
      { symbol: 'TON/RUB', close: '251.5' },
    ]);
    cbr = await startCbrFake();
    t = await startTestApp({
      clock,
      config: {
        rateSources: ['coingecko', 'rapira', 'cbr'],
        rateSourceUrls: { coingecko: cg.url, rapira: rp.url, cbr: cbr.url },
      },
    });
  });
  after(async () => {
    await t.close();
    await Promise.all([cg.close(), rp.close(), cbr.close()]);
    await drop();
  });

  it('each source is read at its documented path; its quotes are stored per pair', async () => {
    const run = await refresh();
    assert.deepEqual(
      run.sources.map((s) => [s.source, s.ok]),
      [
        ['coingecko', true],
        ['rapira', true],
        ['cbr', true],
      ],
      JSON.stringify(run),
    );
    assert.equal(
      cg.received.at(-1)?.url,
      '/api/v3/simple/price?ids=tether,bitcoin,litecoin,ethereum,binancecoin,the-open-network&vs_currencies=rub',
    );
    assert.equal(rp.received.at(-1)?.url, '/open/market/rates');
    assert.equal(cbr.received.at(-1)?.url, '/scripts/XML_daily.asp');
    for (const f of [cg, rp, cbr]) assert.equal(f.received.at(-1)?.method, 'GET');

    const usdt = await pair('USDT', 'RUB');
    assert.deepEqual(
      usdt.sources.map((s) => [s.source, s.rate, s.fresh]),
      [
        ['coingecko', '92.1', true],
        ['rapira', '93', true],
      ],
    );
    assert.deepEqual([usdt.rate, usdt.source, usdt.fresh, usdt.stale], ['92.55', 'median', true, false]);
    assert.equal((await pair('BTC', 'RUB')).rate, '9123456.78'); // BTC/USDT of Rapira is not a RUB pair
    assert.equal((await pair('TON', 'RUB')).rate, '251');
    // The CBR: rubles for ONE unit (Value / Nominal).
    assert.equal((await pair('KZT', 'RUB')).rate, '0.171234');
    assert.equal((await pair('KGS', 'RUB')).rate, '1.04567');
    assert.equal((await pair('UZS', 'RUB')).rate, '0.00729876');
    assert.equal((await pair('USD', 'RUB')).rate, '91.2345');
  });

  it('the median of 3, 2 and 1 fresh sources; a stale one does not count', async () => {
    await t.services.rates.setFromProvider([{ base: 'USDT', quote: 'RUB', rate: '95' }]);
    assert.equal((await pair('USDT', 'RUB')).rate, '93', 'median of 92.1, 93, 95');

    clock.advance(t.config.rateMaxAgeSeconds * 1000 + 1); // every market quote is stale now
    await refresh(); // coingecko and rapira answer again; the provider does not
    const two = await pair('USDT', 'RUB');
    assert.deepEqual(
      two.sources.map((s) => [s.source, s.fresh]),
      [
        ['coingecko', true],
        ['provider', false],
        ['rapira', true],
      ],
    );
    assert.equal(two.rate, '92.55', 'median of 92.1 and 93');

    clock.advance(t.config.rateMaxAgeSeconds * 1000 + 1);
    rp.mode = '500';
    cbr.mode = 'garbage';
    const run = await refresh();
    assert.deepEqual(
      run.sources.map((s) => [s.source, s.ok, 'error' in s ? s.error : '']),
      [
        ['coingecko', true, ''],
        ['rapira', false, 'rapira answered 500'],
        ['cbr', false, 'cbr answered no rates'],
      ],
    );
    assert.equal((await pair('USDT', 'RUB')).rate, '92.1', 'coingecko alone');
    // The CBR's rate stays fresh for RATE_CBR_MAX_AGE (36 h), the markets' for RATE_MAX_AGE.
    const kzt = await pair('KZT', 'RUB');
    assert.deepEqual([kzt.fresh, kzt.rate], [true, '0.171234']);
  });

  it('a source answering 429 or something else is skipped and the others still give a median', async () => {
    clock.advance(t.config.rateMaxAgeSeconds * 1000 + 1);
    cg.mode = '429';
    rp.mode = 'ok';
    rp.tickers[0] = { symbol: 'USDT/RUB', bid: '93.9', ask: '94.1', close: '94' };
    const run = await refresh();
    assert.deepEqual(
      run.sources.map((s) => [s.source, s.ok]),
      [
        ['coingecko', false],
        ['rapira', true],
        ['cbr', false],
      ],
    );
    assert.equal((await pair('USDT', 'RUB')).rate, '94', 'rapira alone');
    assert.equal((await pair('BTC', 'RUB')).stale, true, 'only coingecko quotes BTC');

    clock.advance(t.config.rateMaxAgeSeconds * 1000 + 1);
    rp.mode = 'garbage';
    await refresh();
    const none = await pair('USDT', 'RUB');
    assert.deepEqual([none.rate, none.source, none.fresh, none.stale], [null, 'none', false, true]);
    assert.equal(await t.services.rates.fresh(t.database.db, 'USDT', 'RUB'), undefined);
  });

  it('a cross rate through RUB for fiat conversions: USDT/KZT = USDT/RUB / KZT/RUB', async () => {
    cg.mode = 'ok';
    cbr.mode = 'ok';
    await refresh();
    const rate = await t.services.rates.fresh(t.database.db, 'USDT', 'KZT');
    assert.equal(rate?.toFixed(), '537.860471635306', '92.1 / 0.171234');
  });

  it('the history keeps every change of the effective rate with its sources, newest first, paged', async () => {
    const rows = await history('USDT', 'RUB');
    assert.deepEqual(
      rows.map((r) => [r.kind, r.rate]).reverse(),
      [
        ['median', '92.55'], // one row per refresh, with every source that answered
        ['median', '93'],
        ['median', '92.55'], // the provider went stale
        ['median', '92.1'],
        ['median', '94'],
        ['none', null],
        ['median', '92.1'],
      ],
      JSON.stringify(rows),
    );
    const three = rows.find((r) => r.rate === '93');
    assert.deepEqual(
      three?.sources.map((s) => [s.source, s.rate]),
      [
        ['coingecko', '92.1'],
        ['provider', '95'],
        ['rapira', '93'],
      ],
    );
    assert.deepEqual(rows.find((r) => r.kind === 'none')?.sources, []);
    const first = await history('USDT', 'RUB', '&limit=2');
    assert.equal(first.length, 2);
    const next = await history('USDT', 'RUB', `&limit=2&before_id=${first[1]?.id}`);
    assert.deepEqual(
      next.map((r) => r.id),
      rows.slice(2, 4).map((r) => r.id),
    );
  });

  it('history of a bad pair is 400 VALIDATION_ERROR', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/admin/rates/history?base=usdt&quote=RUB',
      headers: { authorization: `Bearer ${t.config.adminToken}` },
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().message, 'VALIDATION_ERROR');
  });
});
