import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AssignableMessage, type AssignableOrder, assignRefusal } from './message-assign.js';

// Synthetic message and orders.
const NOW = new Date('2026-11-24T10:00:00Z');
const message: AssignableMessage = {
  status: 'review',
  channel: 'sms',
  parse: 'parsed',
  kind: 'credit',
  amount: '1501',
  fields: { amount: '1501' },
  requisiteId: 'r1',
};
const order: AssignableOrder = {
  direction: 'PAYIN',
  method: 'fiat',
  status: 'pending',
  finishedAt: null,
  requisiteId: 'r1',
  payableAmount: '1501.00',
};
const refusal = (m: Partial<AssignableMessage>, o: Partial<AssignableOrder>, candidates: string[] = []) =>
  assignRefusal({ ...message, ...m }, { ...order, ...o }, candidates, NOW);

describe('assignRefusal: a message confirms by hand only a fiat PAYIN of its requisite and amount', () => {
  it('a pending order, or one ended without success within a day, of the same requisite and amount', () => {
    assert.equal(refusal({}, {}), undefined);
    const ended = new Date(NOW.getTime() - 23 * 3600_000);
    assert.equal(refusal({}, { status: 'error', finishedAt: ended }), undefined);
  });

  it('a 1-ruble message never pays a USDT crypto order, a payout or another amount', () => {
    for (const [o, m] of [
      [{ method: 'crypto' as const, payableAmount: '50' }, { amount: '1' }],
      [{ direction: 'PAYOUT' as const, method: 'payout' as const }, {}],
      [{ payableAmount: '1502' }, {}],
    ] as const) {
      const err = refusal(m, o);
      assert.equal(err?.code, 'MESSAGE_NOT_FOR_ORDER', JSON.stringify(o));
      assert.equal(err?.status, 409);
    }
  });

  it('an order of another requisite, a paid order or one ended over a day ago is refused', () => {
    assert.equal(refusal({}, { requisiteId: 'r2' })?.code, 'MESSAGE_NOT_FOR_ORDER');
    assert.equal(refusal({}, { status: 'success', finishedAt: NOW })?.code, 'MESSAGE_NOT_FOR_ORDER');
    const old = new Date(NOW.getTime() - 25 * 3600_000);
    assert.equal(refusal({}, { status: 'error', finishedAt: old })?.code, 'MESSAGE_NOT_FOR_ORDER');
  });

  it("a message routed to no requisite may pay an order of one of its device's requisites", () => {
    assert.equal(refusal({ requisiteId: null }, {}, ['r0', 'r1']), undefined);
    assert.equal(refusal({ requisiteId: null }, {}, ['r0'])?.code, 'MESSAGE_NOT_FOR_ORDER');
  });

  it('a message read in doubt (two amounts) may pay an order of one of its amounts', () => {
    const twoAmounts = {
      parse: 'ambiguous',
      kind: null,
      amount: '10',
      fields: { amount: '10', amounts: '10 1501' },
    };
    assert.equal(refusal(twoAmounts, {}), undefined);
    assert.equal(refusal(twoAmounts, { payableAmount: '1502' })?.code, 'MESSAGE_NOT_FOR_ORDER');
  });

  it('only a credit still in review: a debit or a resolved message is refused', () => {
    assert.equal(refusal({ kind: 'debit' }, {})?.code, 'MESSAGE_NOT_FOR_ORDER');
    assert.equal(refusal({ status: 'assigned' }, {})?.code, 'ORDER_STATE_CONFLICT');
    assert.equal(refusal({ channel: 'system' }, {})?.code, 'MESSAGE_NOT_FOR_ORDER');
  });
});
