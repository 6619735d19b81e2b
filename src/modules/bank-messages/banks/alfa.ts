import { amountGroup as A, type BankFormat, MASK_DIGITS as M, pattern, RUB } from '../bank-rule.js';
import { blockRule, otpRule } from '../common-rules.js';

/** Alfa-Bank: amounts often in RUR with a decimal comma. Synthetic examples. */
export const alfa: BankFormat = {
  code: 'alfa',
  name: 'Альфа-Банк',
  senders: ['Alfa-Bank', 'AlfaBank'],
  packages: ['ru.alfabank.mobile.android'],
  rules: [
    {
      id: 'alfa.credit.sms',
      kind: 'credit',
      channels: ['sms'],
      pattern: pattern(
        String.raw`^Пополнение \*${M} на ${A('amount')} ?${RUB}\.?(?: Баланс: ${A('balance')} ?₽)?\.?$`,
      ),
      examples: [
        {
          text: 'Пополнение *1234 на 1 500,00 RUR. Баланс: 25 340,50 RUR',
          fields: { amount: '1500.00', currency: 'RUB', mask: '1234', balance: '25340.50' },
        },
      ],
    },
    {
      id: 'alfa.credit.push',
      kind: 'credit',
      channels: ['push'],
      pattern: pattern(String.raw`^Входящий перевод ${A('amount')} ?${RUB}(?: от (?<payer>.+?))?$`),
      examples: [
        {
          text: 'Входящий перевод 4 100 ₽ от Анна К.',
          fields: { amount: '4100', currency: 'RUB', payer: 'Анна К.' },
        },
      ],
    },
    {
      id: 'alfa.debit',
      kind: 'debit',
      channels: ['sms', 'push'],
      pattern: pattern(
        String.raw`^(?:Покупка|Оплата|Списание|Перевод с карты) \*${M} на ${A('amount')} ?${RUB}`,
      ),
      examples: [
        {
          text: 'Покупка *1234 на 350,00 RUR PYATEROCHKA. Баланс: 24 990,50 RUR',
          fields: { amount: '350.00', currency: 'RUB', mask: '1234' },
        },
      ],
    },
    blockRule('alfa', [{ text: 'Карта *1234 заблокирована по вашему обращению', fields: {} }]),
    otpRule('alfa', [{ text: 'Пароль для входа: 8841. Не сообщайте его никому', fields: {} }]),
  ],
};
