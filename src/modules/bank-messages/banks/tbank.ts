import { amountGroup as A, type BankFormat, MASK_DIGITS as M, pattern, RUB } from '../bank-rule.js';
import { blockRule, otpRule } from '../common-rules.js';

const WHERE = String.raw`(?:сч[её]т RUB|карта \*${M})`;

/** T-Bank (Tinkoff): incoming money is "Пополнение", an outgoing transfer "Перевод". Synthetic examples. */
export const tbank: BankFormat = {
  code: 'tbank',
  name: 'Т-Банк',
  senders: ['T-Bank', 'Tinkoff'],
  packages: ['com.idamob.tinkoff.android'],
  // "Перевод, счет RUB. 700 ₽" and "Перевод. Счет RUB. 14840 ₽" are money going out (incoming money
  // is "Пополнение").
  direction: { outgoing: [/^перевод[,.] /iu] },
  rules: [
    {
      id: 'tbank.credit.sms',
      kind: 'credit',
      channels: ['sms', 'push'],
      pattern: pattern(
        String.raw`^Пополнение, ${WHERE}\. ${A('amount')} ?${RUB}\.`,
        String.raw`(?: (?<payer>.+?))?(?: Доступно ${A('balance')} ?₽)?\.?$`,
      ),
      examples: [
        {
          text: 'Пополнение, счет RUB. 1 500 ₽. Анна К. Доступно 25 340,50 ₽',
          fields: { amount: '1500', currency: 'RUB', payer: 'Анна К.', balance: '25340.50' },
        },
        {
          text: 'Пополнение, карта *4821. 2 000 ₽. Пётр С. Доступно 4 000 ₽',
          fields: { amount: '2000', currency: 'RUB', mask: '4821', payer: 'Пётр С.', balance: '4000' },
        },
      ],
    },
    {
      id: 'tbank.credit.push',
      kind: 'credit',
      channels: ['push'],
      pattern: pattern(
        String.raw`^Пополнение на ${A('amount')} ?${RUB}(?:,? ${WHERE})?\.?(?: (?:от )?(?<payer>.+?))?`,
        String.raw`(?: Доступно ${A('balance')} ?₽)?$`,
      ),
      examples: [
        {
          text: 'Пополнение на 3 200 ₽, счет RUB. Анна К.',
          fields: { amount: '3200', currency: 'RUB', payer: 'Анна К.' },
        },
        {
          text: 'Пополнение на 215 ₽, счет RUB. Пётр С. Доступно 1 693,42 ₽',
          fields: { amount: '215', currency: 'RUB', payer: 'Пётр С.', balance: '1693.42' },
        },
      ],
    },
    {
      id: 'tbank.debit',
      kind: 'debit',
      channels: ['sms', 'push'],
      pattern: pattern(
        String.raw`^(?:Покупка|Оплата|Перевод|Снятие|Списание), ${WHERE}\. ${A('amount')} ?${RUB}`,
      ),
      examples: [
        {
          text: 'Покупка, карта *4821. 350 ₽. PYATEROCHKA. Доступно 3 650 ₽',
          fields: { amount: '350', currency: 'RUB', mask: '4821' },
        },
        {
          text: 'Перевод, счет RUB. 700 ₽. Пётр С. Доступно 2 950 ₽',
          fields: { amount: '700', currency: 'RUB' },
        },
      ],
    },
    blockRule('tbank', [
      { text: 'Операции по счету приостановлены на основании 115-ФЗ. Подробнее в приложении', fields: {} },
    ]),
    otpRule('tbank', [{ text: 'Никому не говорите код 5531. Вход в Т-Банк', fields: {} }]),
  ],
};
