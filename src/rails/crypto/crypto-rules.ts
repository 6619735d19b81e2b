import type { Decimal } from 'decimal.js';
import { roundHalfUp, roundUp } from '../../lib/money.js';
import type { CryptoMethod } from '../../modules/catalog/index.js';
import { computeFee } from '../../modules/orders/index.js';
import { applyPayinMarkup } from '../../modules/rates/index.js';

/** Rates a crypto quote may use, as units of RUB per one unit of the coin / of USDT. */
export interface CryptoRates {
  coinRub?: Decimal | undefined;
  usdtRub?: Decimal | undefined;
}

/**
 * The rates of a crypto PAYIN quote after the markup `percent` (docs/decisions.md sections
 * 6 and 22): the rate that turns the coin into rubles is lowered by it (for USDT methods USDT/RUB, else
 * COIN/RUB), so that the client sends more coins for the same rubles; the USDT/RUB rate of another
 * coin's USDT estimate is left as it is. The order keeps the rate it gets (`cryptoRate`).
 */
export function withPayinMarkup(rates: CryptoRates, coin: string, percent: string): CryptoRates {
  const mark = (r: Decimal | undefined) => (r ? applyPayinMarkup(r, percent) : undefined);
  return coin === 'USDT'
    ? { coinRub: mark(rates.coinRub), usdtRub: mark(rates.usdtRub) }
    : { coinRub: mark(rates.coinRub), usdtRub: rates.usdtRub };
}

/** The figures of a crypto PAYIN at creation (docs/api.md "createOrder - crypto PAYIN" response). */
export interface CryptoQuote {
  /** Exact coin amount to send, rounded up to the asset's precision; null when RUB mode has no fresh rate yet. */
  cryptoAmount: Decimal | null;
  /** The coin/RUB rate fixed with `cryptoAmount`. */
  cryptoRate: Decimal | null;
  /** RUB equivalent of the order, before the fee. */
  rubAmount: Decimal | null;
  /** RUB fee and RUB equivalent after the fee (`amountAfterFee`). */
  fee: Decimal | null;
  amountAfterFee: Decimal | null;
  /** USDT before and after the fee: the coin amount itself for USDT methods, else an estimate. */
  usdtAmount: Decimal | null;
  usdtAmountAfterFee: Decimal | null;
}

/**
 * Quotes a crypto order (docs/decisions.md section 6): RUB mode `cryptoAmount = amount / rate(COIN/RUB)`
 * rounded up to the asset's precision (USDT 6, coins 8); coin mode takes the amount at that
 * precision (rounded up). `amountAfterFee` is the RUB equivalent
 * after the fee (converted back in coin mode); `usdtAmount` is the coin amount for USDT methods, else
 * the USDT equivalent when rates allow; the fee is `feePercent` of each.
 */
export function quoteCryptoOrder(input: {
  amount: Decimal;
  requestCurrency: string;
  method: CryptoMethod;
  feePercent: Decimal;
  rates: CryptoRates;
}): CryptoQuote {
  const { amount, method, feePercent, rates } = input;
  const rubMode = input.requestCurrency === 'RUB';
  const coinRub = method.coin === 'USDT' ? (rates.usdtRub ?? rates.coinRub) : rates.coinRub;
  const cryptoAmount = rubMode
    ? coinRub
      ? roundUp(amount.dividedBy(coinRub), method.precision)
      : null
    : roundUp(amount, method.precision);
  const rubAmount = rubMode ? amount : coinRub ? roundHalfUp(amount.times(coinRub), 2) : null;
  const fee = rubAmount ? computeFee(rubAmount, feePercent) : null;
  let usdtAmount: Decimal | null = null;
  if (method.coin === 'USDT') usdtAmount = cryptoAmount;
  else if (rubAmount && rates.usdtRub) usdtAmount = roundHalfUp(rubAmount.dividedBy(rates.usdtRub), 2);
  return {
    cryptoAmount,
    cryptoRate: coinRub ?? null,
    rubAmount,
    fee,
    amountAfterFee: rubAmount && fee ? rubAmount.minus(fee) : null,
    usdtAmount,
    usdtAmountAfterFee: usdtAmount ? usdtAmount.minus(computeFee(usdtAmount, feePercent)) : null,
  };
}

/** The ledger credit of a confirmed crypto order: what the merchant gets, in which currency. */
export interface CryptoCredit {
  currency: 'RUB' | 'USDT';
  gross: Decimal;
  net: Decimal;
}

/**
 * The credit for `received` coins (docs/decisions.md section 8: the credited amount is the amount
 * received; USDT to a USDT-settled merchant, RUB otherwise). Non-USDT coins convert at
 * `coinRub` (and `usdtRub` for USDT settlement). Returns undefined when a needed rate is missing.
 */
export function cryptoCredit(input: {
  received: Decimal;
  method: CryptoMethod;
  settlement: 'fiat' | 'usdt';
  feePercent: Decimal;
  rates: CryptoRates;
}): CryptoCredit | undefined {
  const { received, method, settlement, feePercent, rates } = input;
  let gross: Decimal | undefined;
  if (settlement === 'usdt') {
    if (method.coin === 'USDT') gross = received;
    else if (rates.coinRub && rates.usdtRub)
      gross = roundHalfUp(received.times(rates.coinRub).dividedBy(rates.usdtRub), 2);
  } else {
    // A USDT order's own fixed rate (`coinRub` = its cryptoRate) comes before today's USDT/RUB.
    const rate = method.coin === 'USDT' ? (rates.coinRub ?? rates.usdtRub) : rates.coinRub;
    if (rate) gross = roundHalfUp(received.times(rate), 2);
  }
  if (!gross) return undefined;
  const currency = settlement === 'usdt' ? 'USDT' : 'RUB';
  return { currency, gross, net: gross.minus(computeFee(gross, feePercent)) };
}

/**
 * A transaction hash in its one stored form (docs/decisions.md section 14): 64 lower-case hex characters without
 * `0x`. Accepts `0x`-prefixed and upper-case hex on every network and, on TON, the base64 (standard
 * or URL-safe) form of the 32-byte hash that TON APIs give. Returns undefined for anything else, so
 * that one transaction written four ways is one key, never four credits.
 */
export function normaliseTxHash(network: string, input: string): string | undefined {
  const text = input.trim();
  const hex = /^(?:0x)?([0-9a-f]{64})$/i.exec(text);
  if (hex?.[1]) return hex[1].toLowerCase();
  if (network === 'TON' && /^[A-Za-z0-9+/_-]{43}=?$/.test(text)) {
    const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === 32) return bytes.toString('hex');
  }
  return undefined;
}

/**
 * Why a chain credit (a watcher's, or `POST /chain/notifications`) must wait for an operator instead
 * of being credited (docs/decisions.md section 34), or null when it may be credited: the total
 * received is more than `ratio` times the order's `cryptoAmount`, or its RUB value at the rate the
 * credit uses is more than `ratio` times the order's RUB amount (whatever the rate says: a rate set
 * far off makes a tiny `cryptoAmount` worth a fortune). Decimal arithmetic only; a value of any size
 * (2^256-1 units) compares exactly.
 */
export function chainCreditHold(input: {
  received: Decimal;
  cryptoAmount: Decimal;
  coin: string;
  ratio: Decimal;
  /** RUB per coin the credit converts at; undefined: no RUB value to compare. */
  rubRate: Decimal | undefined;
  /** The order's amount in RUB; undefined: none known (a coin-mode order created without a rate). */
  orderRub: Decimal | undefined;
}): string | null {
  const { received, cryptoAmount, ratio, coin } = input;
  const cryptoLimit = cryptoAmount.times(ratio);
  if (received.gt(cryptoLimit))
    return `received ${received.toFixed()} ${coin}, more than ${ratio.toFixed()} x the order's ${cryptoAmount.toFixed()} ${coin} (CHAIN_CREDIT_MAX_RATIO): confirm by hand if it is real`;
  if (input.rubRate && input.orderRub?.gt(0)) {
    const value = received.times(input.rubRate);
    const rubLimit = input.orderRub.times(ratio);
    if (value.gt(rubLimit))
      return `${received.toFixed()} ${coin} is worth ${roundHalfUp(value, 2).toFixed(2)} RUB at the order's rate ${input.rubRate.toFixed()}, more than ${ratio.toFixed()} x the order's ${input.orderRub.toFixed()} RUB (CHAIN_CREDIT_MAX_RATIO): check the rate, confirm by hand if it is right`;
  }
  return null;
}
