import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../lib/errors.js';
import { periodOf, reportedTime } from './holder-page-service.js';

const NOW = new Date('2026-11-27T09:00:00Z'); // 12:00 in Moscow

describe('holder page rules (docs/decisions.md "The holder\'s own page")', () => {
  it('a reported time is Moscow time, recent and not ahead', () => {
    assert.equal(reportedTime('2026-11-27T11:30', NOW).toISOString(), '2026-11-27T08:30:00.000Z');
    assert.equal(reportedTime(' 2026-11-20T12:05 ', NOW).toISOString(), '2026-11-20T09:05:00.000Z');
    for (const bad of [
      undefined,
      '',
      'yesterday',
      '2026-11-27 11:30',
      '2026-13-01T10:00',
      '2026-11-27T12:30',
      '2026-11-19T11:00',
    ]) {
      assert.throws(
        () => reportedTime(bad, NOW),
        (err) =>
          err instanceof AppError &&
          err.code === 'VALIDATION_ERROR' &&
          err.details?.[0]?.field === 'received_at',
        String(bad),
      );
    }
  });

  it('a statement period ends after the last day shown; times pass as they are', () => {
    assert.deepEqual(periodOf({ from: '2026-11-01', to: '2026-11-27' }), {
      from: '2026-11-01',
      to: '2026-11-28T00:00:00.000Z',
    });
    assert.deepEqual(periodOf({ to: '2026-11-27T10:00:00Z' }), { to: '2026-11-27T10:00:00Z' });
    assert.deepEqual(periodOf({ from: ' ', to: '' }), {});
  });
});
