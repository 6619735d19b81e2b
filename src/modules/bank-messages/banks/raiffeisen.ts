import { amountGroup as A, type BankFormat, MASK_DIGITS as M, pattern, RUB } from '../bank-rule.js';
import { blockRule, otpRule } from '../common-rules.js';

/** Raiffeisenbank: SMS in transliteration, fields separated by ";". Synthetic examples. */
export const raiffeisen: BankFormat = {
  code: 'raiffeisen',
  name: 'Райффайзенбанк',
  senders: ['Raiffeisen'],
  packages: ['ru.raiffeisennews'],
  rules: [
    {
      id: 'raiffeisen.credit.sms',
      kind: 'credit',
      channels: ['sms'],
      pattern: pattern(
        String.raw`^(?:Karta|Schet) \*${M}; (?:Postuplenie|Zachislenie): ${A('amount')} ?${RUB};(?: Ostatok: ${A('balance')} ?₽)?`,
      ),
      examples: [
        {
          text: 'Karta *1234; Postuplenie: 1500.00 RUR; Ostatok: 25340.50 RUR',
          fields: { amount: '1500.00', currency: 'RUB', mask: '1234', balance: '25340.50' },
        },
      ],
    },
    {
      id: 'raiffeisen.credit.push',
      kind: 'credit',
      channels: ['push'],
      pattern: pattern(String.raw`^Поступление ${A('amount')} ?${RUB}(?: от (?<payer>.+?))?$`),
      examples: [
        {
          text: 'Поступление 990 ₽ от Анна К.',
          fields: { amount: '990', currency: 'RUB', payer: 'Анна К.' },
        },
      ],
    },
    {
      id: 'raiffeisen.debit',
      kind: 'debit',
      channels: ['sms', 'push'],
      pattern: pattern(
        String.raw`^(?:Karta|Schet) \*${M}; (?:Pokupka|Spisanie|Oplata|Perevod): ${A('amount')} ?${RUB}`,
      ),
      examples: [
        {
          text: 'Karta *1234; Pokupka: 350.00 RUR; PYATEROCHKA; Ostatok: 24990.50 RUR',
          fields: { amount: '350.00', currency: 'RUB', mask: '1234' },
        },
      ],
    },
    blockRule('raiffeisen', [
      { text: 'Karta *1234 zablokirovana. Операции по карте ограничены', fields: {} },
    ]),
    otpRule('raiffeisen', [{ text: 'Code 620144. Ne soobshchayte nikomu', fields: {} }]),
  ],
};
