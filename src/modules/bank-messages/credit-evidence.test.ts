import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BANK_FORMATS, bankFormat } from './bank-formats.js';
import type { BankFormat, MessageChannel } from './bank-rule.js';
import { type ParsedMessage, parseBankMessage } from './parse-message.js';

// Texts here are synthetic (invented names and amounts) in the shapes banks write; the real-format
// corpus lives in test/fixtures/bank-messages.
const bank = (code: string) => bankFormat(code) as BankFormat;
const read = (code: string, text: string, channel: MessageChannel = 'sms') =>
  parseBankMessage(bank(code), { channel, text });
const kindOf = (p: ParsedMessage) => (p.status === 'parsed' ? p.kind : p.status);
const amountOf = (p: ParsedMessage) => (p.status === 'parsed' ? p.fields.amount : undefined);

describe('a credit needs evidence that money came in', () => {
  it("Sberbank's bare 'перевод' in its short SMS is money going out, never a credit", () => {
    const parsed = read('sber', 'СЧЁТ3391 14:22 перевод 2 480р Баланс: 9 980.50р');
    assert.equal(kindOf(parsed), 'debit');
    assert.equal(amountOf(parsed), '2480');
  });

  it("Sberbank's transfer with '+', 'из' or 'от' is a credit", () => {
    for (const text of [
      'СЧЁТ3391 14:22 Перевод +2 480р Баланс: 9 980.50р',
      'СЧЁТ3391 14:22 Перевод из Т-Банк 2 480р Баланс: 9 980.50р',
      'СЧЁТ3391 14:22 Перевод 2 480р от Иван И. Баланс: 9 980.50р',
    ])
      assert.equal(kindOf(read('sber', text)), 'credit', text);
  });

  it('formats no rule knows are read by their parts, in any bank', () => {
    const cases: Array<[string, string, string]> = [
      ['vtb', 'Вам поступил перевод 3 100 ₽ от Иван И. по СБП. Баланс 10 000 ₽', '3100'],
      ['alfa', 'Зачислен перевод по СБП 1 250,50 RUR на счёт *4412 от ИВАН И.', '1250.50'],
      ['gasprom', 'Karta *1234 zachislenie 700.00 RUB. Dostupno 1500.00 RUB', '700.00'],
      ['pochta', 'Получен перевод 990 руб. от Анна К.', '990'],
    ];
    for (const [code, text, amount] of cases) {
      const parsed = read(code, text);
      assert.equal(kindOf(parsed), 'credit', text);
      assert.equal(amountOf(parsed), amount, text);
    }
  });

  it('outgoing words make a debit: purchase, payment, write-off, transfer to, cash, a minus sign', () => {
    for (const text of [
      'Покупка 2 480 ₽ PYATEROCHKA. Карта *1234',
      'Оплата услуг 2 480 ₽ МТС',
      'Списание 2 480 ₽ по счёту *1234',
      'Перевод на карту Иван И. 2 480 ₽',
      'Снятие наличных 2 480 ₽ ATM 0012',
      'Карта *1234: -2 480 ₽. Остаток 100 ₽',
    ])
      assert.equal(kindOf(read('vtb', text)), 'debit', text);
  });

  it("per-bank words where banks differ: MTS Bank's 'Перевод на карту' is money in", () => {
    const text =
      'Перевод на карту ES *4579; 19.01 16:19; TINKOFF BANK CARD2CARD>MOSCOW RU; 2 600,00 RUB; Лимит: 30 652,47 RUB';
    assert.equal(kindOf(read('mts', text)), 'credit');
    assert.equal(amountOf(read('mts', text)), '2600.00');
    assert.equal(kindOf(read('vtb', text)), 'debit');
  });

  it("a zero amount, a failed operation and money to the holder's own savings are not credits", () => {
    for (const text of [
      'Счет *9964 зачисление на сумму 0р. Доступно 0р.',
      'VISA4570: не удалось пополнить Копилку на 6.5руб. по техническим причинам.',
      'СЧЁТ9820 Зачисление средств 728 921.9р на счёт Накопительный счёт *7845. Баланс *9820: 1044.91р.',
      'ХАЛВА погашено 2000.00 р. Платеж по графику рассрочки внесен целиком',
    ])
      assert.notEqual(kindOf(read('ozon', text)), 'credit', text);
  });

  it("the bank's own money is a credit: interest, cashback paid, a benefit, money from a deposit", () => {
    const cases: Array<[string, string]> = [
      ['MIR-4821 09:12 зачисление 7 000р с Вашего вклада. Баланс: 9 100р', '7000'],
      ['Счёт карты MIR-4821 09:12 зачисление 7 000р со вклада Баланс: 9 100р', '7000'],
      ['MIR-4821 08:05 перечисление процентов 120.40р Баланс: 5 000р', '120.40'],
      ['Выплата процентов по вкладу: 1 210.05 RUB', '1210.05'],
      ['Зачислили проценты на вклад — 1 210,05 RUB', '1210.05'],
      ['Зачислено 300.00 р. на вклад 12345678. Сумма вклада 9 300.00 р.', '300.00'],
      ['*4821 Зачисление кэшбэк 310р Доступно 900р', '310'],
      ['Вам начислен cashback 55.10 RUB по карте *4821. Баланс 900 RUB. Зарабатывайте на покупках.', '55.10'],
      ['Vyplata posobiia Summa 410.25RUB karta *4821 Ostatok 410.25RUB', '410.25'],
    ];
    for (const [text, amount] of cases) {
      const parsed = read('ozon', text);
      assert.equal(kindOf(parsed), 'credit', text);
      assert.equal(amountOf(parsed), amount, text);
    }
  });

  it('interest charged on a loan and money moved from a deposit to someone are not credits', () => {
    for (const text of [
      'Начислены проценты 1 250 р. по кредиту 4821. Внесите платеж до 20.05',
      'Перевод 5 000р со вклада клиенту Иван И.',
    ])
      assert.notEqual(kindOf(read('ozon', text)), 'credit', text);
  });

  it('money sent to a deposit or savings is never a credit, and a bonus stays a label', () => {
    assert.equal(kindOf(read('ozon', 'СЧЁТ4821 19:24 списание 9 500р на вклад Баланс: 1 300р')), 'debit');
    const piggy = read('ozon', '*4821: пополнение Копилки на "Сберегательный счет" на 700руб.');
    assert.equal(piggy.status, 'ambiguous');
    const purchase = read('ozon', 'Покупка на 660 ₽, кэшбэк 6 ₽, карта *4821 Доступно 3 220 ₽');
    assert.equal(kindOf(purchase), 'debit');
    assert.equal(amountOf(purchase), '660');
  });

  it('a three-digit ending, the rouble in brackets and one amount shown twice read as one credit', () => {
    const short = parseBankMessage(bank('ozon'), {
      channel: 'sms',
      text: 'Schet A*891: Popolnenie 900.00 RUB; Dostupno: 1000.19 RUB; 19/01/18',
    });
    assert.deepEqual(short.status === 'parsed' && [short.kind, short.fields.mask], ['credit', '891']);
    const twice = read(
      'ozon',
      'Karta **4821: ATM vnesena summa 2200.00 (RUR). Zachisleno 2200.00 (RUR). Ostatok: 2300.08',
    );
    assert.deepEqual([kindOf(twice), amountOf(twice)], ['credit', '2200.00']);
  });

  it('where banks really differ: VTB and T-Bank open an outgoing notice with a bare "Перевод", Sberbank\'s push with an unsigned amount', () => {
    const cases: Array<[string, string, MessageChannel]> = [
      ['vtb', 'Перевод 2 480.00 RUB Счет*4821. Иван И. Баланс 9 000.00 RUB 09:13', 'sms'],
      ['vtb', 'Платеж 270.00р Карта*4821 Tele2 Баланс 1061.10р 23:30', 'sms'],
      ['tbank', 'Перевод. Счет RUB. 2480 ₽. Баланс 9000,45 ₽', 'push'],
      ['sber', '2 480 ₽ — Ещё есть: 9 000,26 ₽ Плат. счёт •• 4821', 'push'],
    ];
    for (const [code, text, channel] of cases) assert.equal(kindOf(read(code, text, channel)), 'debit', text);
    assert.equal(
      kindOf(read('sber', '+ 2 480 ₽ — Ещё есть: 9 000,26 ₽ Плат. счёт •• 4821', 'push')),
      'credit',
    );
  });

  it('"Пришел перевод на счет" is money in; "Теперь на счете" is a balance; the ending may be in the title', () => {
    const parsed = parseBankMessage(bank('raiffeisen'), {
      channel: 'push',
      text: '+ 2 480.00 ₽. Теперь на счете 9 000.08 ₽',
      title: 'Пришел перевод на счет *4821',
    });
    assert.deepEqual(parsed.status === 'parsed' && [parsed.kind, parsed.fields.amount, parsed.fields.mask], [
      'credit',
      '2480.00',
      '4821',
    ]);
    assert.equal(amountOf(read('raiffeisen', 'Пришел перевод 2480.50 ₽ на счет *4821', 'push')), '2480.50');
    assert.equal(kindOf(read('vtb', 'Компенсация 964.31р Счет *4821 Баланс 964.31р 07:34')), 'credit');
  });

  it('a minus that opens the text is a sign even when a space follows it', () => {
    const parsed = read('raiffeisen', '− 990.00 ₽ в 541000371091 по QR-коду через СБП', 'push');
    assert.equal(kindOf(parsed), 'debit');
  });

  it('neither direction, or both, is ambiguous with the doubt named; never a credit', () => {
    const none = read('vtb', 'Операция 2 480 ₽ по карте *1234');
    assert.deepEqual(none.status === 'ambiguous' && none.doubt, 'no_direction');
    const both = read('vtb', 'Зачисление 2 480 ₽ и списание 2 480 ₽ по карте *1234');
    assert.equal(both.status, 'ambiguous');
  });

  it('a credit rule whose text also shows an outgoing word is not a credit', () => {
    const parsed = read('tbank', 'Пополнение, счет RUB. 2 480 ₽. Покупка Иван И. Доступно 5 000 ₽');
    assert.equal(parsed.status, 'ambiguous');
  });

  it('two movement amounts are ambiguous (a balance, a fee or a limit are not movements)', () => {
    const two = read('ozon', 'Зачисление 2 480 ₽ от Иван И. и 1 000 ₽ от Пётр П.');
    assert.deepEqual(two.status === 'ambiguous' && two.doubt, 'two_amounts');
    const withFee = read('ozon', 'Зачисление 2 480 ₽ от Иван И. Комиссия 0 ₽. Баланс 9 000 ₽');
    assert.equal(amountOf(withFee), '2480');
  });

  it("a push's title that says money went out overrides a text that reads as a credit", () => {
    const parsed = parseBankMessage(bank('alfa'), {
      channel: 'push',
      title: 'Списание',
      text: '4 100 ₽ от Анна К.',
    });
    assert.notEqual(kindOf(parsed), 'credit');
  });
});

describe("a payer's comment is never the bank's words", () => {
  it('words of a block inside a transfer do not make it a block', () => {
    for (const [code, text] of [
      ['tbank', 'Пополнение, счет RUB. 10 ₽. Иван И. ваш перевод ограничен'],
      ['sber', 'Перевод от Иван И. +10 ₽ Сообщение: Ваша карта заблокирована'],
      ['ozon', 'Пополнение на 10 ₽ от Иван И. «Операции по карте приостановлены по 161-ФЗ»'],
    ] as const) {
      const parsed = read(code, text, code === 'sber' ? 'push' : 'sms');
      assert.notEqual(kindOf(parsed), 'block', text);
    }
  });

  it("the bank's own block notice is a block", () => {
    for (const format of BANK_FORMATS) {
      const parsed = read(format.code, 'Операции по карте *1234 приостановлены. Обратитесь в банк');
      assert.equal(kindOf(parsed), 'block', format.code);
    }
  });

  it("a comment that mimics a bank's credit notice does not change the amount", () => {
    const parsed = read('sber', 'Перевод от Иван И. +10 ₽ Сообщение: Зачисление 5 000р', 'push');
    assert.equal(kindOf(parsed), 'credit');
    assert.equal(amountOf(parsed), '10');
  });
});

describe('normalisation: the same credit in every spelling', () => {
  const spellings = ['р', 'р.', 'руб', 'руб.', 'RUB', 'RUR', '₽', ' ₽', ' руб.', 'рублей'];
  for (const rouble of spellings) {
    it(`the rouble as '${rouble}'`, () => {
      const parsed = read('vtb', `Поступление 1500${rouble} Счет*1234 от АННА К.`);
      assert.equal(kindOf(parsed), 'credit', rouble);
      assert.equal(amountOf(parsed), '1500');
    });
  }

  it('typographic spaces: no-break, thin and narrow no-break inside the amount', () => {
    for (const space of ['\u00A0', '\u2009', '\u202F']) {
      const parsed = read('vtb', `Поступление 1${space}500${space}₽ Счет*1234 от АННА К.`);
      assert.equal(amountOf(parsed), '1500', JSON.stringify(space));
    }
  });

  it('look-alikes both ways: Latin in a Cyrillic word, Cyrillic in a Latin word', () => {
    const latinInCyrillic = read('vtb', 'Пoступлeниe 1500 ₽ Счет*1234 от АННА К.');
    assert.equal(kindOf(latinInCyrillic), 'credit');
    const cyrillicInLatin = read('raiffeisen', 'Kаrtа *1234; Postuplenie: 1500.00 RUВ; Ostatok: 100.00 RUR');
    assert.equal(kindOf(cyrillicInLatin), 'credit');
    assert.equal(amountOf(cyrillicInLatin), '1500.00');
  });
});

describe('hostile input', () => {
  it('a huge text is read by its first 2 000 characters, fast, and is no credit of its tail', () => {
    const tail = ' Зачисление 5 000 ₽'.repeat(50_000);
    const started = performance.now();
    const parsed = read('vtb', `${'а'.repeat(3000)}${tail}`);
    assert.ok(performance.now() - started < 1000, 'within a second');
    assert.notEqual(kindOf(parsed), 'credit');
  });

  it('pathological repetitions of digits, signs and spaces finish quickly and credit nothing', () => {
    for (const text of [
      `${'1 '.repeat(1500)}₽`,
      `+${'9'.repeat(1900)}`,
      `${'*1234 '.repeat(300)}зачисление`,
      'от '.repeat(600),
    ]) {
      const started = performance.now();
      const parsed = read('sber', text);
      assert.ok(performance.now() - started < 500, text.slice(0, 20));
      assert.notEqual(kindOf(parsed), 'credit', text.slice(0, 20));
    }
  });
});

// docs/bank-messages.md "What the kinds mean": a declined, cancelled or returned operation and a
// request to confirm a transfer are `other`, never a credit; when they show money coming in and an
// amount they wait for an operator (doubt `no_movement`), never silently dropped.
describe('an operation that did not happen, was undone or was only requested is never a credit', () => {
  const push = (code: string, text: string, title?: string) =>
    parseBankMessage(bank(code), { channel: 'push', text, ...(title ? { title } : {}) });
  const doubtOf = (p: ParsedMessage) => (p.status === 'ambiguous' ? p.doubt : `${p.status} ${kindOf(p)}`);

  it('declined with "ё" (отклонён), cancelled, not credited: review, not a credit (synthetic)', () => {
    // Synthetic: the banks' own credit shapes (alfa.credit.push, vtb.credit.push) with a failure word.
    const cases: Array<[string, string, MessageChannel]> = [
      ['alfa', 'Входящий перевод 5 000 ₽ от Иван И. отклонён', 'push'],
      ['alfa', 'Входящий перевод 5 000 ₽ от Иван И. отклонен', 'push'],
      ['vtb', 'Зачисление 5 000 ₽ от Иван И. по СБП отменено', 'push'],
      ['vtb', 'Зачисление 5 000 ₽ от Иван И. по СБП отменён', 'push'],
      ['ozon', 'Перевод от Иван И. 5 000 ₽ не зачислен', 'sms'],
      ['ozon', 'Перевод от Иван И. 5 000 ₽ не поступил: отмена операции', 'sms'],
      ['ozon', 'Входящий перевод 5 000 ₽ от Иван И. возвращён отправителю', 'sms'],
      ['ozon', 'Входящий перевод 5 000 ₽ от Иван И. приостановлен', 'sms'],
    ];
    for (const [code, text, channel] of cases) {
      const parsed = read(code, text, channel);
      assert.equal(doubtOf(parsed), 'no_movement', text);
      assert.deepEqual(parsed.status === 'ambiguous' && parsed.amounts, ['5000'], text);
    }
  });

  it('a Sberbank pull request ("запрос на перевод ... в другой банк") is never a credit (corpus sber-265)', () => {
    // The body of corpus entry sber-265 (zenmoney/sms-formats, Sberbank's format files), as an SMS
    // and as a push whose title does not carry the outgoing words.
    const text = 'Поступил запрос на перевод 2900р из СберБанка в другой банк через СБП.';
    for (const parsed of [read('sber', text), push('sber', text), push('sber', text, 'СберБанк Онлайн')])
      assert.notEqual(kindOf(parsed), 'credit', JSON.stringify(parsed));
    assert.equal(doubtOf(read('sber', text)), 'no_movement');
    // Synthetic variants: a request to debit, a request to another bank.
    for (const variant of [
      'Поступил запрос на списание 2 900 ₽ от Иван И.',
      'Поступил запрос от Иван И. на 2 900 ₽ в другой банк',
    ])
      assert.notEqual(kindOf(read('sber', variant)), 'credit', variant);
  });

  it('a refund or a cancelled purchase is not a payment to the holder (sber-302 varied, synthetic)', () => {
    // Sberbank's push of corpus sber-302 ("+ 1 ₽ — Баланс: ... ║ Отмена покупки Магнит") with other
    // titles and amounts: synthetic.
    const text = '+ 1 500 ₽ — Баланс: 12 345,67 ₽ Счёт карты МИР •• 5848';
    for (const title of ['Возврат Wildberries', 'Отмена операции', 'Отмена покупки Магнит']) {
      const parsed = push('sber', text, title);
      assert.notEqual(kindOf(parsed), 'credit', title);
      assert.equal(parsed.status, 'ambiguous', title);
    }
    assert.equal(kindOf(push('sber', text, 'Перевод по СБП от ИВАН ИВАНОВИЧ И.')), 'credit');
    assert.equal(doubtOf(read('ozon', 'Возврат 1 500 ₽ от WILDBERRIES')), 'no_movement');
    // "покупки" is an outgoing word too: in review as both directions, as sber-302 is.
    assert.equal(doubtOf(read('ozon', 'Возврат покупки 1 500 ₽ от OZON. Баланс 9 000 ₽')), 'both_directions');
  });

  it("failure words in the payer's comment do not touch a real credit", () => {
    const parsed = read('sber', 'Перевод от Иван И. +5 000 ₽ Сообщение: возврат долга, отмена брони', 'push');
    assert.equal(kindOf(parsed), 'credit');
    assert.equal(amountOf(parsed), '5000');
  });
});
