import { amountGroup as A, type BankFormat, pattern, RUB } from '../bank-rule.js';
import { blockRule, otpRule } from '../common-rules.js';

/** Yandex Bank: mostly app pushes. Synthetic examples. */
export const yandex: BankFormat = {
  code: 'yandex',
  name: 'Яндекс Банк',
  senders: ['Yandex.Bank', 'YandexBank'],
  packages: ['com.yandex.bank'],
  rules: [
    {
      id: 'yandex.credit',
      kind: 'credit',
      channels: ['sms', 'push'],
      pattern: pattern(
        String.raw`^Пополнение ${A('amount')} ?${RUB}(?: от (?<payer>.+?))?(?: через СБП)?\.?$`,
      ),
      examples: [
        {
          text: 'Пополнение 1 500 ₽ от Анна К. через СБП',
          fields: { amount: '1500', currency: 'RUB', payer: 'Анна К.' },
        },
      ],
    },
    {
      id: 'yandex.debit',
      kind: 'debit',
      channels: ['sms', 'push'],
      pattern: pattern(String.raw`^(?:Оплата|Покупка|Перевод|Списание) ${A('amount')} ?${RUB}`),
      examples: [{ text: 'Оплата 350 ₽ PYATEROCHKA', fields: { amount: '350', currency: 'RUB' } }],
    },
    blockRule('yandex', [{ text: 'Доступ к счёту ограничен по 115-ФЗ', fields: {} }]),
    otpRule('yandex', [{ text: 'Код 7312 для подтверждения операции', fields: {} }]),
  ],
};
