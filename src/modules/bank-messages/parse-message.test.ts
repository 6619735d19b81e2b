import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BANK_FORMATS, bankFormat } from './bank-formats.js';
import type { BankFormat } from './bank-rule.js';
import { normaliseMessage } from './normalise.js';
import { banksOfSource, parseBankMessage } from './parse-message.js';

const bank = (code: string) => bankFormat(code) as BankFormat;
const sms = (code: string, text: string) => parseBankMessage(bank(code), { channel: 'sms', text });

describe('parseBankMessage: the amount comes only from a credit rule (docs/decisions.md section 24)', () => {
  it('never the balance, the mask or the time, even when they come first', () => {
    const parsed = sms('sber', 'СЧЁТ1234 10:15 Перевод 750р от Анна К. Баланс: 99 999р');
    assert.equal(parsed.status, 'parsed');
    assert.equal(parsed.status === 'parsed' && parsed.fields.amount, '750');
    assert.equal(parsed.status === 'parsed' && parsed.fields.balance, '99999');
  });

  it("the bank's own money is a credit marked bankOwn, from the text or from a push's title alone", () => {
    // Corpus sber-005 (money from the holder's deposit); the push is synthetic: a "+" amount whose
    // title alone says it is interest.
    const deposit = sms(
      'sber',
      'VISA6168 09.12.17 19:07 зачисление 10000р с Вашего вклада. Баланс: 12682.45р',
    );
    assert.equal(deposit.status === 'parsed' && deposit.kind === 'credit' && deposit.bankOwn, true);
    const push = parseBankMessage(bank('sber'), {
      channel: 'push',
      title: 'Проценты по вкладу',
      text: '+ 1 562,15 ₽ — Баланс: 12 345,67 ₽ Счёт карты МИР •• 5848',
    });
    assert.equal(
      push.status === 'parsed' && push.kind === 'credit' && push.bankOwn,
      true,
      JSON.stringify(push),
    );
    const transfer = sms('sber', 'СЧЁТ1234 10:15 Перевод 750р от Анна К. Баланс: 99 999р');
    assert.equal(transfer.status === 'parsed' && transfer.bankOwn, undefined);
  });

  it('a purchase and an outgoing transfer are debits, not credits', () => {
    for (const [code, text] of [
      ['sber', 'MIR-4821 14:20 Покупка 1500р PYATEROCHKA Баланс: 3 050р'],
      ['tbank', 'Перевод, счет RUB. 1 500 ₽. Пётр С. Доступно 2 950 ₽'],
      ['vtb', 'Списание 1500р Счет*1234 Перевод Пётр С. Баланс 3000р 14:10'],
    ] as const) {
      const parsed = sms(code, text);
      assert.equal(parsed.status === 'parsed' && parsed.kind, 'debit', text);
    }
  });

  it('a text that moves no money is noise (info), not a credit of its first number', () => {
    for (const text of ['Вам начислено 1500 бонусов СберСпасибо', 'Кэшбэк 150 ₽ за ноябрь']) {
      const parsed = sms('sber', text);
      assert.equal(parsed.status === 'parsed' && parsed.kind, 'info', text);
      assert.equal(parsed.status === 'parsed' && parsed.fields.amount, undefined, text);
    }
  });

  it('rules that disagree make the message ambiguous', () => {
    const format: BankFormat = {
      ...bank('ozon'),
      rules: [
        ...bank('ozon').rules,
        {
          id: 'ozon.test-debit',
          kind: 'debit',
          channels: ['sms'],
          pattern: /^Пополнение на (?<amount>\d+)/u,
          examples: [],
        },
      ],
    };
    const parsed = parseBankMessage(format, { channel: 'sms', text: 'Пополнение на 1500 ₽ от Анна К.' });
    assert.deepEqual(parsed, {
      status: 'ambiguous',
      ruleIds: ['ozon.credit.sms', 'ozon.test-debit'],
      doubt: 'rules_disagree',
      amounts: ['1500'],
    });
  });

  it('an SMS-only rule does not read a push (the parts read it), and a push rule not an SMS', () => {
    const asSms = parseBankMessage(bank('sber'), { channel: 'sms', text: 'Перевод от Анна К. +1 500 ₽' });
    assert.equal(asSms.status === 'parsed' && asSms.ruleId, 'generic.credit');
    const push = parseBankMessage(bank('sber'), { channel: 'push', text: 'Перевод от Анна К. +1 500 ₽' });
    assert.equal(push.status === 'parsed' && push.ruleId, 'sber.credit.push-from');
    assert.equal(push.status === 'parsed' && push.fields.amount, '1500');
  });

  it('a push whose text needs its title is read with the title', () => {
    const parsed = parseBankMessage(bank('alfa'), {
      channel: 'push',
      title: 'Входящий перевод',
      text: '4 100 ₽ от Анна К.',
    });
    assert.equal(parsed.status === 'parsed' && parsed.fields.amount, '4100');
  });
});

describe('parseBankMessage: normalised before matching', () => {
  const cases: Array<[string, string, string]> = [
    [
      'non-breaking and thin spaces in the amount',
      'Пополнение, счет RUB. 1\u00A0500\u2009₽. Анна К. Доступно 2\u202F000 ₽',
      '1500',
    ],
    ['Latin look-alikes inside Cyrillic words', 'Пoпoлнeниe, cчeт RUB. 1 500 ₽. Анна К.', '1500'],
    ['руб. instead of ₽', 'Пополнение, счет RUB. 1 500 руб.. Анна К.', '1500'],
    ['RUB instead of ₽', 'Пополнение, счет RUB. 1500 RUB. Анна К.', '1500'],
    ['a decimal comma', 'Пополнение, счет RUB. 1 500,75 ₽. Анна К.', '1500.75'],
    ['comma thousands with a decimal dot', 'Пополнение, счет RUB. 1,500.75 ₽. Анна К.', '1500.75'],
    ['line breaks', 'Пополнение, счет RUB.\n1 500 ₽.\nАнна К.', '1500'],
  ];
  for (const [name, text, amount] of cases) {
    it(name, () => {
      const parsed = sms('tbank', text);
      assert.equal(parsed.status, 'parsed', `${text} -> ${JSON.stringify(parsed)}`);
      assert.equal(parsed.status === 'parsed' && parsed.kind, 'credit');
      assert.equal(parsed.status === 'parsed' && parsed.fields.amount, amount);
    });
  }

  it('a time followed by a three-digit amount is not joined into one number', () => {
    const parsed = sms('sber', 'MIR-4821 10:15 зачисление 150р Баланс: 3 400р');
    assert.equal(parsed.status === 'parsed' && parsed.fields.amount, '150');
    assert.equal(parsed.status === 'parsed' && parsed.fields.time, '10:15');
  });

  it('a non-breaking hyphen in the mask', () => {
    const parsed = sms('sber', 'MIR\u20114821 09:03 зачисление 1 250р');
    assert.equal(parsed.status === 'parsed' && parsed.fields.mask, '4821');
  });
});

describe('banksOfSource', () => {
  it('finds a bank by SMS sender (any case, spaces ignored) or by app package', () => {
    assert.deepEqual(
      banksOfSource(BANK_FORMATS, 'sms', '900').map((f) => f.code),
      ['sber'],
    );
    assert.deepEqual(
      banksOfSource(BANK_FORMATS, 'sms', 't-bank').map((f) => f.code),
      ['tbank'],
    );
    assert.deepEqual(
      banksOfSource(BANK_FORMATS, 'push', 'com.idamob.tinkoff.android').map((f) => f.code),
      ['tbank'],
    );
    assert.deepEqual(banksOfSource(BANK_FORMATS, 'sms', '+79001234567'), []);
    assert.deepEqual(banksOfSource(BANK_FORMATS, 'push', 'ru.sberbankmobile.fake'), []);
  });
});

describe('normalisation never glues a time to an amount', () => {
  it('"14:22 500 р" is the time 14:22 and the amount 500, not 22500 (synthetic)', () => {
    const parsed = sms('sber', 'Зачисление 14:22 500 р');
    assert.equal(parsed.status === 'parsed' && parsed.fields.amount, '500');
    assert.equal(parsed.status === 'parsed' && parsed.fields.time, '14:22');
    assert.equal(normaliseMessage('Зачисление 14:22 500 р'), 'Зачисление 14:22 500₽');
    assert.equal(normaliseMessage('12:35:40 1 500 р'), '12:35:40 1500₽');
    assert.equal(normaliseMessage('Summa:1 500 р'), 'Summa:1500₽');
  });
});
