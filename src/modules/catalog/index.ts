/**
 * The catalog of what the service offers (docs/api.md "Payment methods" and "Currencies";
 * docs/decisions.md sections 7-8): payment types, currencies, crypto methods, and what each fiat
 * type needs from a requisite. Pure data and lookups: every module may use it.
 */
export {
  CRYPTO_METHODS,
  type CryptoMethod,
  cryptoMethod,
  cryptoRequestCurrency,
  type KeyNetwork,
  POOL_NETWORKS,
  parseCryptoAmount,
  XPUB_NETWORKS,
} from './crypto-methods.js';
export {
  CRYPTO_TYPES,
  FIAT_CURRENCIES,
  FIAT_TYPES,
  FORM_TYPES,
  PAYOUT_TYPES,
  type RequisiteKind,
  type RequisiteNeed,
  requisiteNeedFor,
  SAME_BANK_TYPES,
} from './payment-types.js';
export {
  HOLDER_ACCOUNT_DIGITS,
  type PayoutDetails,
  parsePayoutDetails,
  payoutDetailsShape,
} from './payout-details.js';
