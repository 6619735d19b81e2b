/**
 * The catalog of payment methods and currencies (docs/api.md "Payment methods", docs/decisions.md
 * sections 7-8) and what each fiat method needs from a requisite.
 */

/** Same-bank fiat types: the payer transfers within one bank, so the requisite must be at that bank. */
export const SAME_BANK_TYPES = [
  'alfa',
  'ozon',
  'vtb',
  'sber',
  'psb',
  'uralsib',
  'raiffeisen',
  'yumoney',
  'mts',
  'ak_bars',
  'sovkom',
  'wildberries',
  'solidarnost',
  'gasprom',
  'yandex',
  'tbank',
  'rshb',
  'otp',
] as const;

const QR_BANK_TYPES = ['qr_sber', 'qr_alfa', 'qr_ozon', 'qr_gasprom', 'qr_otp', 'qr_vtb', 'qr_mts'] as const;

/** Every fiat `type` value (docs/decisions.md section 7). */
export const FIAT_TYPES: readonly string[] = [
  'any',
  'card',
  'sim',
  'sngs',
  'sngs_abh',
  'sngc_abh',
  'simcard',
  'nspk',
  'wire',
  'card_pdf',
  'sbp_pdf',
  'qr_smart',
  ...SAME_BANK_TYPES,
  ...QR_BANK_TYPES,
  'wire_alfa',
  'wire_kg',
];

/** Every crypto `type` value (docs/api.md "crypto PAYIN"). */
export const CRYPTO_TYPES: readonly string[] = [
  'usdt_trc20',
  'usdt_erc20',
  'usdt_ton',
  'usdt_bep20',
  'ton',
  'btc',
  'ltc',
  'eth',
  'bnb',
];

/** Payout `type` values (docs/api.md "PAYOUT"). */
export const PAYOUT_TYPES: readonly string[] = ['card', 'sim'];

/** Fiat currencies (docs/decisions.md section 7). */
export const FIAT_CURRENCIES: readonly string[] = [
  'RUB',
  'KGS',
  'KZT',
  'UZS',
  'TJS',
  'TRY',
  'INR',
  'KRW',
  'BRL',
  'ARS',
  'ZAR',
  'CNY',
];

/** Methods whose answer carries `form_url` (docs/api.md "Payment methods"). */
export const FORM_TYPES: readonly string[] = ['card_pdf', 'sbp_pdf', 'qr_smart'];

export type RequisiteKind = 'card' | 'phone' | 'qr' | 'account';

/** What a fiat type needs from a requisite: the kinds that fit and, for same-bank types, the bank. */
export interface RequisiteNeed {
  kinds: RequisiteKind[];
  bankCode?: string;
}

const SIMPLE_NEEDS: Record<string, RequisiteKind[]> = {
  any: ['card', 'phone'],
  card: ['card'],
  card_pdf: ['card'],
  sngc_abh: ['card'],
  sim: ['phone'],
  simcard: ['phone'],
  sbp_pdf: ['phone'],
  nspk: ['phone'],
  sngs: ['phone'],
  sngs_abh: ['phone'],
  qr_smart: ['qr'],
  wire: ['account'],
  wire_kg: ['account'],
};

/**
 * The requisite a fiat type needs (docs/decisions.md section 7: "kind fits the type; a same-bank type
 * needs that bank"). Returns undefined for a type that is not fiat.
 */
export function requisiteNeedFor(type: string): RequisiteNeed | undefined {
  const simple = Object.hasOwn(SIMPLE_NEEDS, type) ? SIMPLE_NEEDS[type] : undefined;
  if (simple) return { kinds: simple };
  if ((SAME_BANK_TYPES as readonly string[]).includes(type))
    return { kinds: ['card', 'phone'], bankCode: type };
  if ((QR_BANK_TYPES as readonly string[]).includes(type)) return { kinds: ['qr'], bankCode: type.slice(3) };
  if (type === 'wire_alfa') return { kinds: ['account'], bankCode: 'alfa' };
  return undefined;
}
