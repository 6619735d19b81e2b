import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventBody, eventOfMove, isEventType } from './event-types.js';

describe('which order move is which event (docs/decisions.md section 26)', () => {
  const move = (direction: string, from: string, to: 'success' | 'error', reason: string | null = null) =>
    eventOfMove({ direction, from, to, reason });
  it('payouts: sent on success, failed on error', () => {
    assert.equal(move('PAYOUT', 'pending', 'success'), 'payout.sent');
    assert.equal(move('PAYOUT', 'pending', 'error', 'bank refused'), 'payout.failed');
  });
  it('PAYINs: expired, cancelled, late payment; an ordinary success has no event', () => {
    assert.equal(move('PAYIN', 'pending', 'error', 'expired'), 'order.expired');
    assert.equal(move('PAYIN', 'pending', 'error', 'client asked'), 'order.cancelled');
    assert.equal(move('PAYIN', 'error', 'success', 'paid late'), 'order.late_payment');
    assert.equal(move('PAYIN', 'pending', 'success'), undefined);
  });
  it('event types are a closed list; the body keeps its keys in order', () => {
    assert.equal(isEventType('order.expired'), true);
    assert.equal(isEventType('order.exploded'), false);
    const body = eventBody({
      id: 'e1',
      type: 'order.expired',
      at: new Date(0),
      order: { id: 'o' },
      livemode: false,
    });
    assert.equal(
      body,
      '{"id":"e1","type":"order.expired","created_at":"1970-01-01T00:00:00.000Z","livemode":false,"data":{"order":{"id":"o"}}}',
    );
  });
});
