import type { Decimal } from 'decimal.js';
import { money } from '../../lib/money.js';
/** Key families that give deposit addresses: derived from an xpub, or taken from an operator pool. */
export type KeyNetwork = 'btc' | 'ltc' | 'evm' | 'tron' | 'ton';

export interface CryptoMethod {
  /** Coin name shown as `payment_details.bank` and the currency of the crypto-amount mode. */
  coin: 'USDT' | 'BTC' | 'LTC' | 'ETH' | 'BNB' | 'TON';
  /** Network shown as `payment_details.holder_name` (docs/decisions.md section 8). */
  network: 'TRC20' | 'ERC20' | 'BEP20' | 'TON' | 'BTC' | 'LTC';
  keyNetwork: KeyNetwork;
  /**
   * Decimals a `cryptoAmount` is rounded (up) to (docs/decisions.md section 6): USDT 6 on every network
   * (its on-chain precision: an amount with more decimals cannot be sent exactly), coins 8.
   */
  precision: 6 | 8;
}

/**
 * Crypto PAYIN methods (docs/api.md "createOrder - crypto PAYIN", pairing table; docs/decisions.md
 * section 8): coin, network and where the deposit address comes from.
 */
export const CRYPTO_METHODS: Record<string, CryptoMethod> = {
  usdt_trc20: { coin: 'USDT', network: 'TRC20', keyNetwork: 'tron', precision: 6 },
  usdt_erc20: { coin: 'USDT', network: 'ERC20', keyNetwork: 'evm', precision: 6 },
  usdt_bep20: { coin: 'USDT', network: 'BEP20', keyNetwork: 'evm', precision: 6 },
  usdt_ton: { coin: 'USDT', network: 'TON', keyNetwork: 'ton', precision: 6 },
  ton: { coin: 'TON', network: 'TON', keyNetwork: 'ton', precision: 8 },
  btc: { coin: 'BTC', network: 'BTC', keyNetwork: 'btc', precision: 8 },
  ltc: { coin: 'LTC', network: 'LTC', keyNetwork: 'ltc', precision: 8 },
  eth: { coin: 'ETH', network: 'ERC20', keyNetwork: 'evm', precision: 8 },
  bnb: { coin: 'BNB', network: 'BEP20', keyNetwork: 'evm', precision: 8 },
};

/** The method of a crypto `type`, or undefined (an own key only: `__proto__` is no method). */
export function cryptoMethod(type: string): CryptoMethod | undefined {
  return Object.hasOwn(CRYPTO_METHODS, type) ? CRYPTO_METHODS[type] : undefined;
}

/** Networks whose addresses come from an operator-loaded pool rather than an xpub. */
export const POOL_NETWORKS: readonly KeyNetwork[] = ['ton'];
export const XPUB_NETWORKS: readonly KeyNetwork[] = ['btc', 'ltc', 'evm', 'tron'];

/**
 * The request `currency` of a crypto order (docs/api.md pairing table): `RUB` (default) or the
 * method's own coin. Returns undefined for anything else (CURRENCY_NOT_ALLOWED).
 */
export function cryptoRequestCurrency(
  type: string,
  currency: unknown,
): 'RUB' | CryptoMethod['coin'] | undefined {
  const method = cryptoMethod(type);
  if (!method) return undefined;
  if (currency === undefined || currency === null || currency === 'RUB') return 'RUB';
  return currency === method.coin ? method.coin : undefined;
}

/** A coin amount: a positive number with at most 8 decimals (docs/decisions.md section 3 INVALID_AMOUNT). */
export function parseCryptoAmount(value: unknown): Decimal | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > 1e12) return undefined;
  const d = money(String(value));
  return d.decimalPlaces() <= 8 ? d : undefined;
}
