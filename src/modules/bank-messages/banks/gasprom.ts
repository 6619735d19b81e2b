import { amountGroup as A, type BankFormat, MASK_DIGITS as M, pattern, RUB } from '../bank-rule.js';
import { blockRule, otpRule } from '../common-rules.js';

/** Gazprombank: "Telecard" SMS in transliteration. Synthetic examples. */
export const gasprom: BankFormat = {
  code: 'gasprom',
  name: 'Газпромбанк',
  senders: ['Telecard', 'GPB'],
  packages: ['ru.gazprombank.android.mobilebank.app'],
  // A bare "Перевод" after the card and time is money going out ("*7259 15:36 Перевод 1517р VTB
  // PJSC"); money in is "Получен перевод" or "Poluchen perevod".
  direction: { outgoing: [/^\*?\d{4}(?: \d{1,2}:\d{2})? Перевод \d/iu, /; Perevod; /iu] },
  rules: [
    {
      id: 'gasprom.credit.sms',
      kind: 'credit',
      channels: ['sms'],
      pattern: pattern(
        String.raw`^Telecard; Card${M}; (?:Zachislenie|Popolnenie); ${A('amount')} ?${RUB};(?: Balans:? ${A('balance')} ?₽)?`,
      ),
      examples: [
        {
          text: 'Telecard; Card1234; Zachislenie; 1500.00 RUR; Balans 25340.50 RUR',
          fields: { amount: '1500.00', currency: 'RUB', mask: '1234', balance: '25340.50' },
        },
      ],
    },
    {
      id: 'gasprom.credit.push',
      kind: 'credit',
      channels: ['push'],
      pattern: pattern(String.raw`^Зачисление ${A('amount')} ?${RUB}(?: по СБП)?(?: от (?<payer>.+?))?$`),
      examples: [
        {
          text: 'Зачисление 1 200 ₽ по СБП от Анна К.',
          fields: { amount: '1200', currency: 'RUB', payer: 'Анна К.' },
        },
      ],
    },
    {
      id: 'gasprom.credit.push-topup',
      kind: 'credit',
      channels: ['push'],
      pattern: pattern(
        String.raw`^Пополнение на ${A('amount')} ?${RUB}, сч[её]т RUB\.(?: (?<payer>.+?))?`,
        String.raw`(?: Доступно ${A('balance')} ?₽)?$`,
      ),
      examples: [
        {
          text: 'Пополнение на 215 ₽, счет RUB. Пётр С. Доступно 1 693,42 ₽',
          fields: { amount: '215', currency: 'RUB', payer: 'Пётр С.', balance: '1693.42' },
        },
      ],
    },
    {
      id: 'gasprom.debit',
      kind: 'debit',
      channels: ['sms', 'push'],
      pattern: pattern(
        String.raw`^Telecard; Card${M}; (?:Pokupka|Spisanie|Oplata|Perevod); ${A('amount')} ?${RUB}`,
      ),
      examples: [
        {
          text: 'Telecard; Card1234; Pokupka; 350.00 RUR; PYATEROCHKA',
          fields: { amount: '350.00', currency: 'RUB', mask: '1234' },
        },
      ],
    },
    blockRule('gasprom', [{ text: 'Карта *1234 заблокирована. Газпромбанк', fields: {} }]),
    otpRule('gasprom', [{ text: 'Код: 1937. Никому не сообщайте код', fields: {} }]),
  ],
};
