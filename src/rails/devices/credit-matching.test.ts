import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BankFormat } from '../../modules/bank-messages/index.js';
import { bankFormat, parseBankMessage } from '../../modules/bank-messages/index.js';
import {
  type CreditContext,
  decideCredit,
  LATE_PAYER_MINUTES,
  type OrderOnRequisite,
  textTimeAgrees,
} from './credit-matching.js';

// 10:15 Moscow time on 24 November 2026.
const AT = new Date('2026-11-24T07:15:07Z');
const sber = bankFormat('sber') as BankFormat;
const parsedSms = (text: string) => parseBankMessage(sber, { channel: 'sms', text });
const CREDIT = 'СЧЁТ1234 10:15 Перевод 1501р от Анна К. Баланс: 2500р';

const order = (over: Partial<OrderOnRequisite> = {}): OrderOnRequisite => ({
  id: 'lux-1',
  status: 'pending',
  payableAmount: '1501',
  createdAt: new Date(AT.getTime() - 5 * 60_000),
  expiresAt: new Date(AT.getTime() + 10 * 60_000),
  ...over,
});

const ctx = (over: Partial<CreditContext> = {}): CreditContext => ({
  parsed: parsedSms(CREDIT),
  receivedAt: AT,
  sourceAllowed: true,
  deviceBound: true,
  needsOperator: false,
  requisiteBlocked: false,
  requisiteMasks: ['1234'],
  orders: [order()],
  ...over,
});

describe('decideCredit: a credit confirms one order only when every rule holds (docs/decisions.md section 24)', () => {
  it('all hold: confirms the one order of that exact amount', () => {
    assert.deepEqual(decideCredit(ctx()), { action: 'confirm', orderId: 'lux-1' });
  });

  it('no tolerance: 1500 or 1502 does not pay the 1501 order (disambiguation stays sound)', () => {
    const neighbours = [
      order({ id: 'lux-1500', payableAmount: '1500' }),
      order({ id: 'lux-1502', payableAmount: '1502' }),
    ];
    assert.deepEqual(decideCredit(ctx({ orders: neighbours })), { action: 'review', reason: 'no_order' });
    assert.deepEqual(decideCredit(ctx({ orders: [...neighbours, order()] })), {
      action: 'confirm',
      orderId: 'lux-1',
    });
  });

  it('the amount is exact to the kopeck: 1501.00 pays 1501, 1501.01 does not', () => {
    const text = (amount: string) => CREDIT.replace('1501р', `${amount}р`);
    assert.equal(decideCredit(ctx({ parsed: parsedSms(text('1501.00')) })).action, 'confirm');
    assert.deepEqual(decideCredit(ctx({ parsed: parsedSms(text('1501,01')) })), {
      action: 'review',
      reason: 'no_order',
    });
  });

  const reviews: Array<[string, Partial<CreditContext>, string]> = [
    ['a source off the bank allowlist', { sourceAllowed: false }, 'unknown_source'],
    ['a device not bound to the requisite (or revoked)', { deviceBound: false }, 'device_not_bound'],
    ['a mask the requisite does not have', { requisiteMasks: ['9999'] }, 'wrong_mask'],
    ['two pending orders of that amount', { orders: [order(), order({ id: 'lux-2' })] }, 'several_orders'],
    ['an unparsed text', { parsed: { status: 'unparsed' } }, 'unparsed'],
    [
      'rules that disagree',
      { parsed: { status: 'ambiguous', ruleIds: ['a', 'b'], doubt: 'rules_disagree' } },
      'ambiguous',
    ],
    [
      'a time in the text far from the receive time',
      { parsed: parsedSms(CREDIT.replace('10:15', '09:40')) },
      'time_mismatch',
    ],
  ];
  for (const [name, over, reason] of reviews) {
    it(`review: ${name}`, () => {
      const decision = decideCredit(ctx(over));
      assert.equal(decision.action, 'review');
      assert.equal(decision.action === 'review' && decision.reason, reason);
    });
  }

  it('a blocked requisite, or a weaker source the deployment wants checked: review', () => {
    assert.deepEqual(decideCredit(ctx({ requisiteBlocked: true })), {
      action: 'review',
      reason: 'requisite_blocked',
    });
    assert.deepEqual(decideCredit(ctx({ needsOperator: true })), {
      action: 'review',
      reason: 'needs_operator',
      orderId: 'lux-1',
    });
  });

  it('the order life holds the receive time with a 2-minute margin, no more', () => {
    const created = (ms: number) => [order({ createdAt: new Date(AT.getTime() + ms) })];
    assert.equal(decideCredit(ctx({ orders: created(119_000) })).action, 'confirm');
    assert.deepEqual(decideCredit(ctx({ orders: created(121_000) })), {
      action: 'review',
      reason: 'outside_life',
      orderId: 'lux-1',
    });
    const expired = (ms: number) => [order({ expiresAt: new Date(AT.getTime() - ms) })];
    assert.equal(decideCredit(ctx({ orders: expired(119_000) })).action, 'confirm');
    assert.equal(decideCredit(ctx({ orders: expired(121_000) })).action, 'review');
  });

  it('a credit for an order that already expired is a late payment for an operator, never ignored', () => {
    assert.deepEqual(decideCredit(ctx({ orders: [order({ status: 'expired' })] })), {
      action: 'review',
      reason: 'late',
      orderId: 'lux-1',
    });
  });

  it('a pending order of the amount beside an expired one of the same amount (late window): review late, never confirm', () => {
    // Synthetic: order A (lux-a) expired unpaid 20 minutes ago; B (lux-1) later got the same amount.
    // A's payer paying late and B's payer paying read the same: an operator decides.
    const a = order({
      id: 'lux-a',
      status: 'expired',
      createdAt: new Date(AT.getTime() - 40 * 60_000),
      expiresAt: new Date(AT.getTime() - 20 * 60_000),
    });
    for (const orders of [
      [order(), a],
      [a, order()],
    ])
      assert.deepEqual(decideCredit(ctx({ orders })), { action: 'review', reason: 'late', orderId: 'lux-a' });
    assert.equal(decideCredit(ctx({ orders: [order()] })).action, 'confirm');
  });

  it('an order of the amount that expired more than LATE_PAYER_MINUTES before the credit does not hold a pending one back', () => {
    // Synthetic: A's deadline passed 61 minutes before the credit; B is pending with the same amount.
    const a = order({
      id: 'lux-a',
      status: 'expired',
      createdAt: new Date(AT.getTime() - (LATE_PAYER_MINUTES + 21) * 60_000),
      expiresAt: new Date(AT.getTime() - (LATE_PAYER_MINUTES + 1) * 60_000),
    });
    assert.equal(decideCredit(ctx({ orders: [order(), a] })).action, 'confirm');
    assert.deepEqual(decideCredit(ctx({ orders: [a] })), {
      action: 'review',
      reason: 'late',
      orderId: 'lux-a',
    });
  });

  it("the bank's own money of a pending order's amount (a deposit's money, cashback) never confirms it: review", () => {
    // Corpus sber-005 (money from the holder's deposit) and mts-043 (cashback paid), each with a
    // pending order of exactly its amount on a requisite with its ending.
    const deposit = parsedSms('VISA6168 09.12.17 19:07 зачисление 10000р с Вашего вклада. Баланс: 12682.45р');
    const cashback = parseBankMessage(bankFormat('mts') as BankFormat, {
      channel: 'sms',
      text: 'Светлана Викторовна, на карту *4809 зачислен кэшбэк за предыдущую неделю: 54.23 RUR. Приятных выходных! Ваш МТС Банк',
    });
    for (const [parsed, amount, mask] of [
      [deposit, '10000', '6168'],
      [cashback, '54.23', '4809'],
    ] as const) {
      assert.equal(parsed.status === 'parsed' && parsed.kind, 'credit', 'still read as money in');
      const decision = decideCredit(
        ctx({ parsed, requisiteMasks: [mask], orders: [order({ payableAmount: amount })] }),
      );
      assert.deepEqual(decision, { action: 'review', reason: 'bank_own_money' });
    }
  });

  it('debits and one-time codes are ignored; a block pauses, from an unknown sender only alerts', () => {
    assert.deepEqual(decideCredit(ctx({ parsed: parsedSms('MIR-1234 10:15 Покупка 1501р PYATEROCHKA') })), {
      action: 'ignore',
      reason: 'debit',
    });
    assert.deepEqual(decideCredit(ctx({ parsed: parsedSms('Код: 482913. Никому не сообщайте') })), {
      action: 'ignore',
      reason: 'otp',
    });
    const block = parsedSms('Карта MIR-1234 заблокирована. Позвоните 900');
    assert.deepEqual(decideCredit(ctx({ parsed: block })), { action: 'block' });
    assert.deepEqual(decideCredit(ctx({ parsed: block, sourceAllowed: false })), {
      action: 'alert',
      reason: 'unknown_source_block',
    });
  });
});

describe('textTimeAgrees', () => {
  it('compares in Moscow time, within 5 minutes, across midnight', () => {
    assert.equal(textTimeAgrees({ time: '10:15' }, AT), true);
    assert.equal(textTimeAgrees({ time: '10:20' }, AT), true);
    assert.equal(textTimeAgrees({ time: '10:21' }, AT), false);
    assert.equal(textTimeAgrees({}, AT), true);
    const nearMidnight = new Date('2026-11-24T20:58:00Z'); // 23:58 Moscow
    assert.equal(textTimeAgrees({ time: '00:01' }, nearMidnight), true);
  });
});
