/** Every bank whose messages the service reads (docs/decisions.md section 24), by the bank list's code. */
import type { BankFormat } from './bank-rule.js';
import { alfa } from './banks/alfa.js';
import { gasprom } from './banks/gasprom.js';
import { mts } from './banks/mts.js';
import { ozon } from './banks/ozon.js';
import { pochta } from './banks/pochta.js';
import { raiffeisen } from './banks/raiffeisen.js';
import { sber } from './banks/sber.js';
import { sovkom } from './banks/sovkom.js';
import { tbank } from './banks/tbank.js';
import { vtb } from './banks/vtb.js';
import { yandex } from './banks/yandex.js';

export const BANK_FORMATS: readonly BankFormat[] = [
  sber,
  tbank,
  vtb,
  alfa,
  ozon,
  raiffeisen,
  gasprom,
  sovkom,
  pochta,
  mts,
  yandex,
];

/** The format of a bank by its code, or undefined. */
export function bankFormat(code: string): BankFormat | undefined {
  return BANK_FORMATS.find((f) => f.code === code);
}

/**
 * Whether a bank's credit notices may show a card or account ending (a credit rule captures `mask`),
 * so that a requisite of that bank without an ending of its own is asked for one at pairing
 * (docs/decisions.md "The pairing page"). False for an unknown code or a bank whose credit texts
 * never show one (Yandex Bank's SBP notices).
 */
export function creditShowsEnding(code: string | null | undefined): boolean {
  const format = code ? bankFormat(code) : undefined;
  return format?.rules.some((r) => r.kind === 'credit' && r.pattern.source.includes('(?<mask>')) ?? false;
}
