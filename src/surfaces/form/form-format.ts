import { chooseLang } from '../../lib/language.js';
import { money, roundUp } from '../../lib/money.js';
import type { FormTexts, Lang } from './form-texts.js';

/** A card number grouped by 4 digits: "2200 1234 5678 9010". Non-card text is returned as is. */
export function formatCard(address: string): string {
  return /^\d{16,19}$/.test(address) ? (address.match(/.{1,4}/g) ?? [address]).join(' ') : address;
}

/** A Russian phone as "+7 (XXX) XXX-XX-XX" (11 digits starting with 7 or 8); others unchanged. */
export function formatPhone(address: string): string {
  const m = /^[78](\d{3})(\d{3})(\d{2})(\d{2})$/.exec(address);
  return m ? `+7 (${m[1]}) ${m[2]}-${m[3]}-${m[4]}` : address;
}

/** The token contract and chain id a wallet URI names, where the operator's chain settings give them. */
export interface WalletTarget {
  tokenContract?: string | null;
  chainId?: number | null;
}

/** Chain ids of EIP-681 URIs. */
const EVM_CHAIN: Record<string, number> = { ERC20: 1, BEP20: 56 };
/** USDT token contracts and decimals on the EVM networks and TRON. */
const USDT_TOKEN: Record<string, { contract: string; decimals: number }> = {
  ERC20: { contract: '0xdAC17F958D2ee523a2206206994597C13D831ec7', decimals: 6 },
  BEP20: { contract: '0x55d398326f99059fF775485246999027B3197955', decimals: 18 },
};

/**
 * The amount in the token's smallest units, rounded UP: a token with fewer decimals than `cryptoAmount`
 * (USDT ERC20 has 6) must never ask the payer for less than the order needs.
 */
function units(amount: string, decimals: number): string {
  return roundUp(money(amount).times(money(10).pow(decimals)), 0).toFixed(0);
}

/** The USDT jetton master on TON mainnet (Tether's), named in the TON transfer link's `jetton`. */
const USDT_TON_MASTER = 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs';

/**
 * The payment URI a wallet understands, for the crypto QR (docs/decisions.md section 31): BIP21 for BTC/LTC,
 * EIP-681 for EVM (native value in wei, USDT as a token transfer), TON transfer links (nanotons; USDT
 * as a jetton transfer in its 6-decimal units, as Tonkeeper reads `jetton`), and the plain address
 * where no standard exists (TRON).
 * `amount` is the exact coin amount (or null: then the URI carries the address only). `target` is the
 * token contract (or jetton master) and EVM chain id the operator's watcher follows (a test network's),
 * when it differs from mainnet's: the QR must name the token the watcher credits.
 */
export function paymentUri(
  coin: string,
  network: string,
  address: string,
  amount: string | null,
  target: WalletTarget = {},
): string {
  if (coin === 'BTC' || coin === 'LTC') {
    const scheme = coin === 'BTC' ? 'bitcoin' : 'litecoin';
    return amount ? `${scheme}:${address}?amount=${money(amount).toFixed()}` : `${scheme}:${address}`;
  }
  if (network === 'ERC20' || network === 'BEP20') {
    const chain = target.chainId ?? EVM_CHAIN[network];
    const token = USDT_TOKEN[network];
    if (coin === 'USDT' && token) {
      const contract = target.tokenContract ?? token.contract;
      return amount
        ? `ethereum:${contract}@${chain}/transfer?address=${address}&uint256=${units(amount, token.decimals)}`
        : `ethereum:${contract}@${chain}/transfer?address=${address}`;
    }
    return amount
      ? `ethereum:${address}@${chain}?value=${units(amount, 18)}`
      : `ethereum:${address}@${chain}`;
  }
  if (network === 'TON') {
    if (coin === 'USDT') {
      const jetton = `ton://transfer/${address}?jetton=${target.tokenContract ?? USDT_TON_MASTER}`;
      return amount ? `${jetton}&amount=${units(amount, 6)}` : jetton;
    }
    return amount ? `ton://transfer/${address}?amount=${units(amount, 9)}` : `ton://transfer/${address}`;
  }
  // TRON has no wallet URI standard: the plain address, which every TRON wallet scans.
  return address;
}

/**
 * A fiat amount for the payer (docs/decisions.md section 31): grouped by `Intl` for the page's locale, with the
 * currency's sign (`12 345 ₽`, `25 000 ₸`, `₽12,345` in English), or, where `Intl` has no sign the
 * payer knows (KGS, UZS, TJS), the catalogue's word (`1 500 сом`). Kopecks only when there are any.
 * `amount` is a decimal string, formatted exactly (never through a binary float).
 */
export function formatFiat(amount: string, currency: string, t: FormTexts): string {
  const fraction = !money(amount).isInteger();
  const digits = { minimumFractionDigits: fraction ? 2 : 0, maximumFractionDigits: 2 };
  const key = `currency_${currency}`;
  const word = Object.hasOwn(t, key) ? (t as Record<string, string>)[key] : undefined;
  // Intl formats a numeric string exactly (Intl.NumberFormat v3, Node 20).
  const value = money(amount).toFixed() as unknown as number;
  if (word) return `${new Intl.NumberFormat(t.locale, digits).format(value)}\u00a0${word}`;
  return new Intl.NumberFormat(t.locale, {
    style: 'currency',
    currency,
    currencyDisplay: 'narrowSymbol',
    ...digits,
  }).format(value);
}

/** A crypto amount with the asset's own decimals (USDT 6, coins 8: catalog precision), exact. */
export function formatCrypto(amount: string, precision: number): string {
  return money(amount).toFixed(precision);
}

/** Names payers know the networks by (docs/decisions.md section 31), for the network warning. */
const NETWORK_NAMES: Record<string, string> = {
  TRC20: 'TRON (TRC-20)',
  ERC20: 'Ethereum (ERC-20)',
  BEP20: 'BNB Smart Chain (BEP-20)',
  TON: 'TON',
  BTC: 'Bitcoin',
  LTC: 'Litecoin',
};

/** The network's full name, or the code itself for one we do not know. */
export function networkName(network: string): string {
  return Object.hasOwn(NETWORK_NAMES, network) ? (NETWORK_NAMES[network] as string) : network;
}

/**
 * The link a "open in the bank app" button opens (docs/decisions.md section 31): the QR payload itself when it is
 * an https link (an NSPK SBP `https://qr.nspk.ru/...` link opens the phone's bank chooser); null for
 * anything else (an EMV string is for scanning only).
 */
export function bankAppLink(payload: string | null): string | null {
  if (!payload) return null;
  try {
    return new URL(payload).protocol === 'https:' ? payload : null;
  } catch {
    return null;
  }
}
