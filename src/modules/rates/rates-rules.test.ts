import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { money } from '../../lib/money.js';
import {
  applyPayinMarkup,
  deviationPercent,
  effectiveRate,
  isFresh,
  median,
  sanityBounds,
} from './rates-rules.js';

const d = (values: string[]) => values.map((v) => money(v));

describe('median', () => {
  it('none, one, two (mean of the middle two), three, four', () => {
    assert.equal(median([]), undefined);
    assert.equal(median(d(['92.1']))?.toFixed(), '92.1');
    assert.equal(median(d(['92.1', '93']))?.toFixed(), '92.55');
    assert.equal(median(d(['95', '92.1', '93']))?.toFixed(), '93');
    assert.equal(median(d(['1', '4', '2', '3']))?.toFixed(), '2.5');
    assert.equal(median(d(['1', '2']).concat(d(['0.000000000001'])))?.toFixed(), '1');
  });
});

describe('isFresh', () => {
  const at = new Date(1_000_000);
  it('the limit itself is fresh, one ms more is not; the future only within a minute', () => {
    assert.equal(isFresh(at, 1_000_000 + 600_000, 600), true);
    assert.equal(isFresh(at, 1_000_000 + 600_001, 600), false);
    assert.equal(isFresh(at, 1_000_000 - 60_000, 600), true);
    assert.equal(isFresh(at, 1_000_000 - 60_001, 600), false);
  });
});

describe('effectiveRate: override, else median of fresh sources, else none', () => {
  const now = 10_000_000;
  const q = (source: string, rate: string, ageS: number) => ({
    source,
    rate,
    fetchedAt: new Date(now - ageS * 1000),
  });
  const maxAgeOf = (s: string) => (s === 'cbr' ? 129_600 : 600);
  it('the median of the fresh quotes, each against its own limit', () => {
    const e = effectiveRate({
      nowMs: now,
      override: undefined,
      quotes: [
        q('coingecko', '92', 10),
        q('rapira', '94', 700),
        q('provider', '93', 30),
        q('cbr', '90', 86_400),
      ],
      maxAgeOf,
    });
    assert.equal(e.kind, 'median');
    assert.equal(e.rate?.toFixed(), '92');
    assert.deepEqual(
      e.sources.map((s) => s.source),
      ['cbr', 'coingecko', 'provider'],
    );
  });
  it('an unexpired override wins; expired, the median returns', () => {
    const quotes = [q('coingecko', '92', 10)];
    const override = { rate: '100', updatedAt: new Date(now - 5000), expiresAt: new Date(now) };
    assert.equal(effectiveRate({ nowMs: now, override, quotes, maxAgeOf }).rate?.toFixed(), '100');
    const later = effectiveRate({ nowMs: now + 1, override, quotes: [q('coingecko', '92', 0)], maxAgeOf });
    assert.deepEqual([later.kind, later.rate?.toFixed()], ['median', '92']);
  });
  it('nothing fresh: none', () => {
    const e = effectiveRate({ nowMs: now, override: undefined, quotes: [q('rapira', '94', 601)], maxAgeOf });
    assert.deepEqual([e.kind, e.rate, e.sources], ['none', undefined, []]);
  });
});

describe('applyPayinMarkup: the rate lowered by the percent', () => {
  it('0 keeps it; 2% of 100 gives 98; rounding at 12 decimals', () => {
    assert.equal(applyPayinMarkup(money('92.5'), '0').toFixed(), '92.5');
    assert.equal(applyPayinMarkup(money('100'), '2').toFixed(), '98');
    assert.equal(applyPayinMarkup(money('3000000'), '1.5').toFixed(), '2955000');
    assert.equal(applyPayinMarkup(money('0.333333333333'), '33.3333').toFixed(), '0.222222333333');
  });
});

describe('operator rate bounds (docs/decisions.md section 34)', () => {
  it('each pair has a sanity band; an unlisted pair the default one', () => {
    const usdt = sanityBounds('USDT', 'RUB');
    assert.deepEqual([usdt.min.toFixed(), usdt.max.toFixed()], ['10', '1000']);
    assert.ok(money('999999999999999').gt(usdt.max));
    const other = sanityBounds('KZT', 'RUB');
    assert.deepEqual([other.min.toFixed(), other.max.toFixed()], ['0.000001', '1000000000']);
  });
  it('the deviation from the median in percent, 2 decimals', () => {
    assert.equal(deviationPercent(money('100'), money('90')).toFixed(), '11.11');
    assert.equal(deviationPercent(money('81'), money('90')).toFixed(), '10');
  });
});
