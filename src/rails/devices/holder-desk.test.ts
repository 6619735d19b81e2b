import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { moscowDayStart } from './holder-desk.js';

describe("a holder's day is Moscow's (docs/decisions.md \"The holder's own page\")", () => {
  it('starts at 00:00 Moscow time, 21:00 UTC the day before', () => {
    assert.equal(moscowDayStart(new Date('2026-11-27T09:00:00Z')).toISOString(), '2026-11-26T21:00:00.000Z');
    assert.equal(moscowDayStart(new Date('2026-11-26T21:00:00Z')).toISOString(), '2026-11-26T21:00:00.000Z');
    assert.equal(moscowDayStart(new Date('2026-11-26T20:59:59Z')).toISOString(), '2026-11-25T21:00:00.000Z');
  });
});
