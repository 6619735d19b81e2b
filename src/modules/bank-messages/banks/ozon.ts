import { amountGroup as A, type BankFormat, MASK_DIGITS as M, pattern, RUB } from '../bank-rule.js';
import { blockRule, otpRule } from '../common-rules.js';

/** Ozon Bank. Synthetic examples. */
export const ozon: BankFormat = {
  code: 'ozon',
  name: 'Озон Банк',
  senders: ['OZON.bank', 'Ozon Bank'],
  packages: ['ru.ozon.fintech.finance'],
  rules: [
    {
      id: 'ozon.credit.sms',
      kind: 'credit',
      channels: ['sms'],
      pattern: pattern(
        String.raw`^Пополнение(?: карты \*${M})? на ${A('amount')} ?${RUB}(?: от (?<payer>.+?))?`,
        String.raw`(?: Баланс:? ${A('balance')} ?₽)?\.?$`,
      ),
      examples: [
        {
          text: 'Пополнение на 1500 ₽ от Анна К. Баланс 3000 ₽',
          fields: { amount: '1500', currency: 'RUB', payer: 'Анна К.', balance: '3000' },
        },
      ],
    },
    {
      id: 'ozon.credit.push',
      kind: 'credit',
      channels: ['push'],
      pattern: pattern(String.raw`^Вам перевели ${A('amount')} ?${RUB}(?: от (?<payer>.+?))?$`),
      examples: [
        {
          text: 'Вам перевели 2 250 ₽ от Пётр С.',
          fields: { amount: '2250', currency: 'RUB', payer: 'Пётр С.' },
        },
      ],
    },
    {
      id: 'ozon.debit',
      kind: 'debit',
      channels: ['sms', 'push'],
      pattern: pattern(String.raw`^(?:Покупка|Оплата|Перевод|Списание) на ${A('amount')} ?${RUB}`),
      examples: [
        { text: 'Покупка на 350 ₽ в PYATEROCHKA. Баланс 2650 ₽', fields: { amount: '350', currency: 'RUB' } },
      ],
    },
    blockRule('ozon', [{ text: 'Операции по карте приостановлены в соответствии с 161-ФЗ', fields: {} }]),
    otpRule('ozon', [{ text: 'Код 2290 для входа в Озон Банк', fields: {} }]),
  ],
};
