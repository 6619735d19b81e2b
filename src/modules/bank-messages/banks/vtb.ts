import { amountGroup as A, type BankFormat, MASK_DIGITS as M, pattern, RUB, TIME } from '../bank-rule.js';
import { blockRule, otpRule } from '../common-rules.js';

const WHERE = String.raw`(?:Сч[её]т|Карта) ?\*${M}`;

/** VTB: "Поступление" in, "Списание"/"Оплата" out. Synthetic examples. */
export const vtb: BankFormat = {
  code: 'vtb',
  name: 'ВТБ',
  senders: ['VTB'],
  packages: ['ru.vtb24.mobilebanking.android'],
  // VTB opens a notice with its operation: a bare "Перевод 5000.00 RUB Счет*0645. Антон З." or
  // "Платеж 270.00р Карта*3296" is money going out (incoming money is "Поступление").
  direction: { outgoing: [/^(?:перевод|плат[её]ж) \d/iu] },
  rules: [
    {
      id: 'vtb.credit.sms',
      kind: 'credit',
      channels: ['sms'],
      pattern: pattern(
        String.raw`^Поступление ${A('amount')} ?${RUB} ${WHERE}(?: от (?<payer>.+?))?`,
        String.raw`(?: Баланс ${A('balance')} ?₽)?(?: ${TIME})?$`,
      ),
      examples: [
        {
          text: 'Поступление 1500р Счет*1234 от АННА К. Баланс 25340.50р 12:05',
          fields: {
            amount: '1500',
            currency: 'RUB',
            mask: '1234',
            payer: 'АННА К.',
            balance: '25340.50',
            time: '12:05',
          },
        },
      ],
    },
    {
      id: 'vtb.credit.push',
      kind: 'credit',
      channels: ['push'],
      pattern: pattern(String.raw`^Зачисление ${A('amount')} ?${RUB}(?: от (?<payer>.+?))?(?: по СБП)?\.?$`),
      examples: [
        {
          text: 'Зачисление 1 800 ₽ от Анна К. по СБП',
          fields: { amount: '1800', currency: 'RUB', payer: 'Анна К.' },
        },
      ],
    },
    {
      id: 'vtb.debit',
      kind: 'debit',
      channels: ['sms', 'push'],
      pattern: pattern(String.raw`^(?:Списание|Оплата|Снятие) ${A('amount')} ?${RUB} ${WHERE}`),
      examples: [
        {
          text: 'Списание 700р Счет*1234 Перевод Пётр С. Баланс 3000р 14:10',
          fields: { amount: '700', currency: 'RUB', mask: '1234' },
        },
      ],
    },
    blockRule('vtb', [{ text: 'ВТБ: доступ к счету *1234 ограничен. Обратитесь в банк', fields: {} }]),
    otpRule('vtb', [{ text: 'Код подтверждения: 739201. Никому его не сообщайте. ВТБ', fields: {} }]),
  ],
};
