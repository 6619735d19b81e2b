import { amountGroup as A, type BankFormat, MASK_DIGITS as M, pattern, RUB, TIME } from '../bank-rule.js';
import { blockRule, otpRule } from '../common-rules.js';

/** Sberbank: SMS from 900, pushes of SberBank Online. Example texts are synthetic. */
export const sber: BankFormat = {
  code: 'sber',
  name: 'Сбербанк',
  senders: ['900', 'SberBank'],
  packages: ['ru.sberbankmobile'],
  // The short SMS writes an outgoing transfer as a bare "перевод 2 480р" (no "+", "из" or "от"); the
  // push opens with the amount, signed "+" when money came in and unsigned when it went out
  // ("17 000 ₽ — Ещё есть: 44 111,26 ₽ ... ║ Умчались деньги в МТС Деньги").
  direction: {
    outgoing: [
      /\d{1,2}:\d{2} перевод \d+(?:[.,]\d{1,2})? ?₽(?!\.? (?:от|из) )/iu,
      /^\d+(?:[.,]\d{1,2})? ?₽ - /u,
    ],
  },
  rules: [
    {
      id: 'sber.credit.sms',
      kind: 'credit',
      channels: ['sms'],
      pattern: pattern(
        String.raw`^(?:СЧ[ЁЕ]Т|MIR-|МИР-|VISA|ECMC|MAES)${M} (?:\d{1,2}\.\d{1,2} )?${TIME} `,
        // "Перевод" is incoming only with "из <bank>", a "+" or "от <payer>" (a bare one is outgoing).
        String.raw`(?:Перевод (?:из (?<payerBank>[^+\d]+?) |(?=\+|\d+(?:[.,]\d{1,2})? ?₽\.? от ))|[Зз]ачисление )`,
        String.raw`\+?${A('amount')} ?${RUB}`,
        String.raw`(?: от (?<payer>.+?))?(?: Баланс: ${A('balance')} ?₽)?\.?$`,
      ),
      examples: [
        {
          text: 'СЧЁТ1234 10:15 Перевод из Т-Банк +5000р от Анна К. Баланс: 12 500.50р',
          fields: {
            amount: '5000',
            currency: 'RUB',
            mask: '1234',
            time: '10:15',
            payerBank: 'Т-Банк',
            payer: 'Анна К.',
            balance: '12500.50',
          },
        },
        {
          text: 'СЧЁТ7315 25.11 16:37 зачисление 5000р от Анна К. Баланс: 12 000.50р',
          fields: {
            amount: '5000',
            currency: 'RUB',
            mask: '7315',
            time: '16:37',
            payer: 'Анна К.',
            balance: '12000.50',
          },
        },
        {
          text: 'MIR-4821 09:03 зачисление 1\u00A0250р Баланс: 3\u00A0400р',
          fields: { amount: '1250', currency: 'RUB', mask: '4821', time: '09:03', balance: '3400' },
        },
      ],
    },
    {
      id: 'sber.credit.push-from',
      kind: 'credit',
      channels: ['push'],
      pattern: pattern(String.raw`^Перевод от (?<payer>.+?) \+${A('amount')} ?${RUB}$`),
      examples: [
        {
          text: 'Перевод от Анна К. +1 500 ₽',
          fields: { amount: '1500', currency: 'RUB', payer: 'Анна К.' },
        },
      ],
    },
    {
      id: 'sber.credit.push-sent-you',
      kind: 'credit',
      channels: ['push'],
      pattern: pattern(String.raw`^(?<payer>.+?) перев[её]л(?:\(а\))? вам ${A('amount')} ?${RUB}\.?$`),
      examples: [
        {
          text: 'Анна Константиновна К. перевёл(а) вам 2\u202F700,50 ₽',
          fields: { amount: '2700.50', currency: 'RUB', payer: 'Анна Константиновна К.' },
        },
      ],
    },
    {
      id: 'sber.debit',
      kind: 'debit',
      channels: ['sms', 'push'],
      pattern: pattern(
        String.raw`^(?:СЧ[ЁЕ]Т|MIR-|МИР-|VISA|ECMC|MAES)${M} (?:\d{1,2}\.\d{1,2} )?${TIME} `,
        String.raw`(?:Покупка|Оплата|[Сс]писание|Выдача|Перевод (?:на|для) .+?|Перевод(?= \d+(?:[.,]\d{1,2})? ?₽(?!\.? от )))`,
        String.raw` ${A('amount')} ?${RUB}`,
      ),
      examples: [
        {
          text: 'MIR-4821 14:20 Покупка 350р PYATEROCHKA Баланс: 3 050р',
          fields: { amount: '350', currency: 'RUB', mask: '4821', time: '14:20' },
        },
        {
          text: 'СЧЁТ1234 11:40 Перевод для Пётр С. 700р Баланс: 11 800.50р',
          fields: { amount: '700', currency: 'RUB', mask: '1234', time: '11:40' },
        },
        {
          text: 'СЧЁТ3391 14:22 перевод 2 480р Баланс: 9 980.50р',
          fields: { amount: '2480', currency: 'RUB', mask: '3391', time: '14:22' },
        },
      ],
    },
    blockRule('sber', [
      { text: 'Карта MIR-4821 заблокирована. Для разблокировки позвоните 900', fields: {} },
    ]),
    otpRule('sber', [{ text: 'Код: 482913. Никому не сообщайте его, даже сотруднику банка', fields: {} }]),
  ],
};
