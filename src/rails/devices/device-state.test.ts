import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deviceState, deviceWarnings } from './device-state.js';

const NOW = new Date('2026-11-24T10:00:00Z');
const ago = (s: number) => new Date(NOW.getTime() - s * 1000);

describe('deviceState and warnings (docs/decisions.md section 24)', () => {
  it('online up to 3 minutes, stale up to 10, then offline; revoked and never seen win', () => {
    const at = (s: number) => deviceState({ revokedAt: null, lastSeenAt: ago(s) }, NOW);
    assert.deepEqual(
      [at(0), at(180), at(181), at(600), at(601)],
      ['online', 'online', 'stale', 'stale', 'offline'],
    );
    assert.equal(deviceState({ revokedAt: ago(1), lastSeenAt: ago(0) }, NOW), 'revoked');
    assert.equal(deviceState({ revokedAt: null, lastSeenAt: null }, NOW), 'never_seen');
  });
  it('low battery only when not charging; a failed connection check; deaf only while online', () => {
    const w = (health: object | null, state: 'online' | 'stale', paid = 0) =>
      deviceWarnings({ health, state, paidWithoutMessage: paid, unboundLegacy: 0 });
    assert.deepEqual(w({ battery_percent: 10, charging: false }, 'online'), ['low_battery']);
    assert.deepEqual(w({ battery_percent: 10, charging: true }, 'online'), []);
    assert.deepEqual(w({ connection: 'fail' }, 'online'), ['no_connection']);
    assert.deepEqual(w(null, 'online', 2), ['deaf']);
    assert.deepEqual(w(null, 'stale', 2), []);
    assert.deepEqual(
      deviceWarnings({ health: null, state: 'online', paidWithoutMessage: 0, unboundLegacy: 1 }),
      ['unbound_legacy_requisites'],
    );
  });
});
