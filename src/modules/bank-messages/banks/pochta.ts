import { amountGroup as A, type BankFormat, MASK_DIGITS as M, pattern, RUB } from '../bank-rule.js';
import { blockRule, otpRule } from '../common-rules.js';

/** Pochta Bank. Synthetic examples. */
export const pochta: BankFormat = {
  code: 'pochta',
  name: 'Почта Банк',
  senders: ['Pochtabank'],
  packages: ['ru.pochtabank.pochtaapp'],
  rules: [
    {
      id: 'pochta.credit',
      kind: 'credit',
      channels: ['sms', 'push'],
      pattern: pattern(
        String.raw`^Поступление средств ${A('amount')} ?${RUB} на (?:сч[её]т|карту) \*${M}\.?`,
        String.raw`(?: Баланс:? ${A('balance')} ?₽)?`,
      ),
      examples: [
        {
          text: 'Поступление средств 1500.00 руб. на счет *1234. Баланс 25340.50 руб.',
          fields: { amount: '1500.00', currency: 'RUB', mask: '1234', balance: '25340.50' },
        },
      ],
    },
    {
      id: 'pochta.debit',
      kind: 'debit',
      channels: ['sms', 'push'],
      pattern: pattern(String.raw`^(?:Списание средств|Покупка|Оплата) ${A('amount')} ?${RUB}`),
      examples: [
        {
          text: 'Списание средств 700.00 руб. со счета *1234',
          fields: { amount: '700.00', currency: 'RUB' },
        },
      ],
    },
    blockRule('pochta', [{ text: 'Операции по счету *1234 приостановлены', fields: {} }]),
    otpRule('pochta', [{ text: 'Код для входа: 4410', fields: {} }]),
  ],
};
