import { amountGroup as A, type BankFormat, MASK_DIGITS as M, pattern, RUB } from '../bank-rule.js';
import { blockRule, otpRule } from '../common-rules.js';

/** Sovcombank (and its Halva card). Synthetic examples. */
export const sovkom: BankFormat = {
  code: 'sovkom',
  name: 'Совкомбанк',
  senders: ['SOVCOMBANK', 'Halva'],
  packages: ['ru.sovcomcard.halva.v1'],
  rules: [
    {
      id: 'sovkom.credit',
      kind: 'credit',
      channels: ['sms', 'push'],
      pattern: pattern(
        String.raw`^Зачисление ${A('amount')} ?${RUB} на (?:карту|сч[её]т) \*${M}\.?(?: Доступно:? ${A('balance')} ?₽)?`,
      ),
      examples: [
        {
          text: 'Зачисление 1500.00 RUB на карту *1234. Доступно 25340.50 RUB',
          fields: { amount: '1500.00', currency: 'RUB', mask: '1234', balance: '25340.50' },
        },
      ],
    },
    {
      id: 'sovkom.debit',
      kind: 'debit',
      channels: ['sms', 'push'],
      pattern: pattern(
        String.raw`^(?:Покупка|Оплата|Списание|Перевод) ${A('amount')} ?${RUB} (?:по карте|со сч[её]та) \*${M}`,
      ),
      examples: [
        {
          text: 'Покупка 350.00 RUB по карте *1234. PYATEROCHKA',
          fields: { amount: '350.00', currency: 'RUB', mask: '1234' },
        },
      ],
    },
    blockRule('sovkom', [{ text: 'Ваша карта *1234 заблокирована', fields: {} }]),
    otpRule('sovkom', [{ text: 'Код подтверждения 66120. Совкомбанк', fields: {} }]),
  ],
};
