/** Key families that give deposit addresses: derived from an xpub, or taken from an operator pool. */
export type KeyNetwork = 'btc' | 'ltc' | 'evm' | 'tron' | 'ton';

export interface CryptoMethod {
  /** Coin name shown as `payment_details.bank` and the currency of the crypto-amount mode. */
  coin: 'USDT' | 'BTC' | 'LTC' | 'ETH' | 'BNB' | 'TON';
  /** Network shown as `payment_details.holder_name` (decisions.md section 8). */
  network: 'TRC20' | 'ERC20' | 'BEP20' | 'TON' | 'BTC' | 'LTC';
  keyNetwork: KeyNetwork;
}

/**
 * Crypto PAYIN methods (merchant-api.md "createOrder - crypto PAYIN", pairing table; decisions.md
 * section 8): coin, network and where the deposit address comes from.
 */
export const CRYPTO_METHODS: Record<string, CryptoMethod> = {
  usdt_trc20: { coin: 'USDT', network: 'TRC20', keyNetwork: 'tron' },
  usdt_erc20: { coin: 'USDT', network: 'ERC20', keyNetwork: 'evm' },
  usdt_bep20: { coin: 'USDT', network: 'BEP20', keyNetwork: 'evm' },
  usdt_ton: { coin: 'USDT', network: 'TON', keyNetwork: 'ton' },
  ton: { coin: 'TON', network: 'TON', keyNetwork: 'ton' },
  btc: { coin: 'BTC', network: 'BTC', keyNetwork: 'btc' },
  ltc: { coin: 'LTC', network: 'LTC', keyNetwork: 'ltc' },
  eth: { coin: 'ETH', network: 'ERC20', keyNetwork: 'evm' },
  bnb: { coin: 'BNB', network: 'BEP20', keyNetwork: 'evm' },
};

/** Networks whose addresses come from an operator-loaded pool rather than an xpub. */
export const POOL_NETWORKS: readonly KeyNetwork[] = ['ton'];
export const XPUB_NETWORKS: readonly KeyNetwork[] = ['btc', 'ltc', 'evm', 'tron'];

/**
 * The request `currency` of a crypto order (merchant-api.md pairing table): `RUB` (default) or the
 * method's own coin. Returns undefined for anything else (CURRENCY_NOT_ALLOWED).
 */
export function cryptoRequestCurrency(
  type: string,
  currency: unknown,
): 'RUB' | CryptoMethod['coin'] | undefined {
  const method = CRYPTO_METHODS[type];
  if (!method) return undefined;
  if (currency === undefined || currency === null || currency === 'RUB') return 'RUB';
  return currency === method.coin ? method.coin : undefined;
}
