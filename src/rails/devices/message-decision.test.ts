import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BankFormat, ParsedMessage } from '../../modules/bank-messages/index.js';
import { bankFormat, parseBankMessage } from '../../modules/bank-messages/index.js';
import { decideMessage, type MessageFacts } from './message-decision.js';

// Synthetic texts and ids. 10:15 Moscow time on 24 November 2026.
const AT = new Date('2026-11-24T07:15:07Z');
const sber = bankFormat('sber') as BankFormat;
const sms = (text: string) => parseBankMessage(sber, { channel: 'sms', text });
const CREDIT = 'СЧЁТ1234 10:15 Перевод 1501р от Анна К. Баланс: 2500р';
const order = {
  id: 'lux-1',
  status: 'pending' as const,
  payableAmount: '1501',
  createdAt: new Date(AT.getTime() - 60_000),
  expiresAt: new Date(AT.getTime() + 600_000),
};

const facts = (over: Partial<MessageFacts> = {}): MessageFacts => ({
  bankKnown: true,
  parsed: sms(CREDIT),
  sourceAllowed: true,
  channel: 'sms',
  receivedAt: AT,
  requisites: 1,
  maskUnknown: false,
  requisite: { id: 'r1', currency: 'RUB', blocked: false, masks: ['1234'] },
  needsOperator: false,
  orders: [order],
  recentCredits: [],
  ...over,
});

describe('decideMessage: every outcome of a phone message from its facts', () => {
  it('a credit that meets every rule confirms its one order', () => {
    assert.deepEqual(decideMessage(facts()), { action: 'confirm', orderId: 'lux-1' });
  });

  it("the holder's outgoing transfer never confirms the pending order of its amount", () => {
    const outcome = decideMessage(facts({ parsed: sms('СЧЁТ1234 10:15 перевод 1 501р Баланс: 9 980.50р') }));
    assert.deepEqual(outcome, { action: 'noise', kind: 'debit' });
  });

  it('a sender no bank lists: a credit goes to review as unknown_source, a block is only an alert', () => {
    assert.deepEqual(decideMessage(facts({ sourceAllowed: false })), {
      action: 'review',
      reason: 'unknown_source',
    });
    const block = sms('Карта MIR-1234 заблокирована. Для разблокировки позвоните 900');
    assert.deepEqual(decideMessage(facts({ sourceAllowed: false, parsed: block })), {
      action: 'alert',
      reason: 'unknown_source_block',
    });
  });

  it("the bank's block pauses; a code, an ad or a purchase is noise (stored, queued for nobody)", () => {
    const block = sms('Карта MIR-1234 заблокирована. Для разблокировки позвоните 900');
    assert.deepEqual(decideMessage(facts({ parsed: block })), { action: 'block' });
    for (const text of [
      'Код: 482913. Никому не сообщайте',
      'Кэшбэк до 30% в ноябре!',
      'MIR-1234 14:20 Покупка 1501р PYATEROCHKA',
    ]) {
      assert.equal(decideMessage(facts({ parsed: sms(text) })).action, 'noise', text);
    }
  });

  it('a reading in doubt goes to review with the doubt as the reason, never confirms', () => {
    const cases: Array<[ParsedMessage, string]> = [
      [{ status: 'ambiguous', ruleIds: [], doubt: 'no_direction' }, 'no_direction'],
      [{ status: 'ambiguous', ruleIds: [], doubt: 'both_directions' }, 'both_directions'],
      [{ status: 'ambiguous', ruleIds: [], doubt: 'two_amounts' }, 'two_amounts'],
      [{ status: 'ambiguous', ruleIds: ['a', 'b'], doubt: 'rules_disagree' }, 'ambiguous'],
      [{ status: 'unparsed' }, 'unparsed'],
    ];
    for (const [parsed, reason] of cases)
      assert.deepEqual(decideMessage(facts({ parsed })), { action: 'review', reason });
  });

  it('no single requisite: a mask nobody has, several requisites, none', () => {
    const none = { requisite: undefined } as Partial<MessageFacts>;
    assert.equal(decideMessage(facts({ ...none, requisites: 0, maskUnknown: true })).action, 'review');
    assert.deepEqual(decideMessage(facts({ ...none, requisites: 0, maskUnknown: true })), {
      action: 'review',
      reason: 'wrong_mask',
    });
    assert.deepEqual(decideMessage(facts({ ...none, requisites: 2 })), {
      action: 'review',
      reason: 'several_requisites',
    });
    assert.deepEqual(decideMessage(facts({ ...none, requisites: 0 })), {
      action: 'review',
      reason: 'no_requisite',
    });
  });

  it('the other channel of the same transfer is paired with its order, not credited again', () => {
    const recentCredits = [
      {
        id: 'e-push',
        orderId: 'lux-1',
        channel: 'push' as const,
        requisiteId: 'r1',
        receivedAt: AT,
        fields: { amount: '1501' },
      },
    ];
    assert.deepEqual(decideMessage(facts({ recentCredits })), {
      action: 'paired',
      eventId: 'e-push',
      orderId: 'lux-1',
    });
    const sameChannel = recentCredits.map((r) => ({ ...r, channel: 'sms' as const }));
    assert.equal(decideMessage(facts({ recentCredits: sameChannel })).action, 'confirm');
  });

  it('the other channel of a credit read 2-5 minutes before may be the same transfer: review, never a second order', () => {
    // Synthetic: the push of a 1501 transfer confirmed order lux-a 150 s before this SMS; lux-1 is a
    // newer pending order of the same amount. The SMS may be that push's transfer: never lux-1's
    // payment on its own.
    const push = {
      id: 'e-push',
      orderId: 'lux-a',
      channel: 'push' as const,
      requisiteId: 'r1',
      receivedAt: new Date(AT.getTime() - 150_000),
      fields: { amount: '1501' },
    };
    assert.deepEqual(decideMessage(facts({ recentCredits: [push] })), {
      action: 'review',
      reason: 'several_orders',
      orderId: 'lux-1',
    });
    const later = { ...push, receivedAt: new Date(AT.getTime() + 290_000) };
    assert.equal(decideMessage(facts({ recentCredits: [later] })).action, 'review');
    // More than 5 minutes apart, another payer or balance, or the same channel: another payment.
    for (const other of [
      { ...push, receivedAt: new Date(AT.getTime() - 301_000) },
      { ...push, fields: { amount: '1501', payer: 'Пётр С.' } },
      { ...push, fields: { amount: '1501', balance: '9999' } },
      { ...push, channel: 'sms' as const },
      // The push waits in review for this very order (needs_operator): the SMS pays it once.
      { ...push, orderId: 'lux-1' },
    ])
      assert.equal(decideMessage(facts({ recentCredits: [other] })).action, 'confirm', JSON.stringify(other));
  });

  it("a message that is nobody's bank's is private; a credit in another currency is reviewed", () => {
    assert.deepEqual(decideMessage(facts({ bankKnown: false })), { action: 'private' });
    const usd = { id: 'r1', currency: 'USD', blocked: false, masks: ['1234'] };
    assert.deepEqual(decideMessage(facts({ requisite: usd })), {
      action: 'review',
      reason: 'currency_mismatch',
    });
  });
});
