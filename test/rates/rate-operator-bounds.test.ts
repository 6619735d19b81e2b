import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/lib/errors.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { isolateDatabase } from '../helpers/database.js';
import { admin, adminRaw } from '../helpers/merchant-client.js';

// An operator's rate has bounds (docs/decisions.md section 34): more than RATE_OPERATOR_MAX_DEVIATION
// (10 %) from the fresh sources' median needs the admin role and a reason, audited with both
// numbers; without a fresh source the pair's sanity band refuses absurd values.
describe('operator rates: deviation from the sources, sanity bounds', () => {
  let t: TestApp;
  let dropDatabase: () => Promise<void>;
  before(async () => {
    dropDatabase = await isolateDatabase('rate_bounds');
    t = await startTestApp();
    // Two fresh source quotes of USDT/RUB: the median is 90.
    await t.services.rates.recordQuotes('coingecko', [{ base: 'USDT', quote: 'RUB', rate: '89' }]);
    await t.services.rates.recordQuotes('rapira', [{ base: 'USDT', quote: 'RUB', rate: '91' }]);
  });
  after(async () => {
    await t?.close();
    await dropDatabase?.();
  });

  it('within 10 % of the median: set as before, no reason needed', async () => {
    const set = await admin<{ rate: string }>(t.app, 'PUT', '/admin/rates', {
      base: 'USDT',
      quote: 'RUB',
      rate: '98.9',
    });
    assert.equal(set.rate, '98.9');
  });

  it('further: an admin must give a reason; the audit entry keeps the rate, the median and the deviation', async () => {
    const refused = await adminRaw(t.app, 'PUT', '/admin/rates', { base: 'USDT', quote: 'RUB', rate: '100' });
    assert.equal(refused.statusCode, 400, refused.body);
    assert.match(
      JSON.stringify(refused.json().details),
      /"reason".*100 is 11.11 % from the sources' median 90 of USDT\/RUB/,
    );
    const set = await adminRaw(t.app, 'PUT', '/admin/rates', {
      base: 'USDT',
      quote: 'RUB',
      rate: '100',
      reason: 'sources lag a sharp move; checked at two exchanges',
    });
    assert.equal(set.statusCode, 200, set.body);
    const audit = await admin<Array<{ action: string; after: Record<string, unknown> }>>(
      t.app,
      'GET',
      '/admin/audit?action=rate.set',
    );
    const entry = audit.find((a) => a.after.rate === '100');
    assert.deepEqual(
      [entry?.after.sources_median, entry?.after.deviation_percent, entry?.after.reason],
      ['90', '11.11', 'sources lag a sharp move; checked at two exchanges'],
    );
  });

  it('another role than admin is refused (403 naming rate), even with a reason', async () => {
    await assert.rejects(
      t.services.rates.set(
        { base: 'USDT', quote: 'RUB', rate: '120', reason: 'because' },
        { name: 'support-op', ip: '127.0.0.1', role: 'support' },
      ),
      (err: unknown) =>
        err instanceof AppError &&
        err.code === 'FORBIDDEN' &&
        /only an admin/.test(JSON.stringify(err.details)),
    );
  });

  it('without a fresh source the sanity band decides: absurd values refused, plausible ones set', async () => {
    for (const [base, rate] of [
      ['USDT', '999999999999999'],
      ['USDT', '0.5'],
      ['BTC', '5'],
      ['TON', '1000000'],
    ] as const) {
      const res = await adminRaw(t.app, 'PUT', '/admin/rates', { base, quote: 'RUB', rate, reason: 'any' });
      assert.equal(res.statusCode, 400, `${base} ${rate}: ${res.body}`);
      assert.match(JSON.stringify(res.json().details), /outside the sanity bounds/);
    }
    const btc = await admin<{ rate: string }>(t.app, 'PUT', '/admin/rates', {
      base: 'BTC',
      quote: 'RUB',
      rate: '8500000',
    });
    assert.equal(btc.rate, '8500000');
  });
});
