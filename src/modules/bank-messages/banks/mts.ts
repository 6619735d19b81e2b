import { amountGroup as A, type BankFormat, MASK_DIGITS as M, pattern, RUB } from '../bank-rule.js';
import { blockRule, otpRule } from '../common-rules.js';

/** MTS Bank: fields separated by ";". Synthetic examples. */
export const mts: BankFormat = {
  code: 'mts',
  name: 'МТС Банк',
  senders: ['MTS-Bank', 'MTSBank'],
  packages: ['ru.mts.money'],
  // MTS Bank writes money in to a card as "Перевод на карту ES *4579; ...; 2 600,00 RUB".
  direction: { incoming: [/перевод на карту/iu, /perevod na kartu/iu] },
  rules: [
    {
      id: 'mts.credit',
      kind: 'credit',
      channels: ['sms', 'push'],
      pattern: pattern(
        String.raw`^Поступление ${A('amount')} ?${RUB}; (?:Карта|Сч[её]т) \*${M};`,
        String.raw`(?: от (?<payer>[^;]+);)?(?: Остаток:? ${A('balance')} ?₽)?`,
      ),
      examples: [
        {
          text: 'Поступление 1500 RUB; Карта *1234; от Анна К.; Остаток 25340.50 RUB',
          fields: { amount: '1500', currency: 'RUB', mask: '1234', payer: 'Анна К.', balance: '25340.50' },
        },
      ],
    },
    {
      id: 'mts.debit',
      kind: 'debit',
      channels: ['sms', 'push'],
      pattern: pattern(
        String.raw`^(?:Оплата|Списание|Перевод) ${A('amount')} ?${RUB}; (?:Карта|Сч[её]т) \*${M};`,
      ),
      examples: [
        {
          text: 'Оплата 350 RUB; Карта *1234; PYATEROCHKA; Остаток 24990.50 RUB',
          fields: { amount: '350', currency: 'RUB', mask: '1234' },
        },
      ],
    },
    blockRule('mts', [{ text: 'Карта *1234 заблокирована. МТС Банк', fields: {} }]),
    otpRule('mts', [{ text: 'Код: 51873. Никому не сообщайте', fields: {} }]),
  ],
};
