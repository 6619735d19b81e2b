/** The request and answer shapes of the merchant API (docs/api.md; docs/decisions.md sections 1-12). */

export type OrderStatus = 'pending' | 'success' | 'error';
export type Direction = 'PAYIN' | 'PAYOUT';

/** Crypto payment methods (docs/api.md "Payment methods"). */
export type CryptoType =
  | 'usdt_trc20'
  | 'usdt_erc20'
  | 'usdt_ton'
  | 'usdt_bep20'
  | 'ton'
  | 'btc'
  | 'ltc'
  | 'eth'
  | 'bnb';

export const CRYPTO_TYPES: readonly CryptoType[] = [
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

/** Payout methods: `card` (16-digit card number) and `sim` (11-digit phone, fast-payment system). */
export type PayoutType = 'card' | 'sim';

/** Fields every createOrder request may carry. `merchant_id` is added by the client. */
interface OrderCommon {
  /** Your id of the order (external_id), 1..128 printable characters; unique per merchant. */
  order_id?: string | null;
  /** Receives the success webhook; without it no webhook is sent. */
  success_callback_url?: string | null;
  /** The payer in your system. */
  client_id?: string | null;
  /** PAYIN: where the payment form's "back to the shop" button leads (public http(s)); default: your setting. */
  return_url?: string | null;
}

/** Fiat PAYIN (`type` `sim`, `card`, `sbp_pdf`, `card_pdf`, `qr_smart`, same-bank types, ...). */
export interface FiatOrderRequest extends OrderCommon {
  /** Integer amount in `currency`. */
  amount: number;
  type: string;
  direction?: 'PAYIN';
  /** Default `RUB`. */
  currency?: string;
  client_registered_at?: string;
  client_orders_count?: number;
  client_paid_count?: number;
  /** Credit converted to USDT at the rate fixed at creation (needs the permission). */
  convertToUsdt?: boolean;
  /** Allowed upward shift of a RUB amount (amount disambiguation). */
  amountUp?: number;
  /** Allowed downward shift of a RUB amount (amount disambiguation). */
  amountDown?: number;
  /** At most 500 characters. */
  comment?: string | null;
}

/** Fiat PAYIN that takes a pool offer of `GET /merchant/pool/requisites`; the amount is the offer's. */
export interface PoolOrderRequest extends Omit<FiatOrderRequest, 'amount'> {
  usePool: true;
  /** `id` of a pool offer. */
  requisiteId: string;
  amount?: number;
}

/** Crypto PAYIN: `amount` in rubles (default) or in the coin when `currency` names it. */
export interface CryptoOrderRequest extends OrderCommon {
  amount: number;
  type: CryptoType;
  direction?: 'PAYIN';
  /** `RUB` (default) or the coin paired with `type`: `USDT`, `BTC`, `LTC`, `ETH`, `BNB`, `TON`. */
  currency?: 'RUB' | 'USDT' | 'BTC' | 'LTC' | 'ETH' | 'BNB' | 'TON';
}

export interface PayoutDetails {
  /** Digits only, no `+`: 11 for `sim`, 16 for `card`. */
  holderAccount: string;
  holderName: string;
  /** A bank `name` of `GET /merchant/banks`. */
  methodName: string;
}

/** PAYOUT in RUB: the balance is charged `amount` plus the payout fee (`amountAfterFee`). */
export interface PayoutOrderRequest extends OrderCommon {
  direction: 'PAYOUT';
  /** Integer gross payout amount in RUB. */
  amount: number;
  type: PayoutType;
  payout_details: PayoutDetails;
}

export type CreateOrderRequest =
  | FiatOrderRequest
  | PoolOrderRequest
  | CryptoOrderRequest
  | PayoutOrderRequest;

/** Query of `GET /merchant/orders`. Dates are UTC; a `Date` is sent as `YYYY-MM-DD HH:MM:SS`. */
export interface ListOrdersQuery {
  /** Default 1. */
  page?: number;
  /** Default 10, at most 100. */
  size?: number;
  type?: string;
  order_status?: OrderStatus;
  direction?: Direction;
  /** Default: the start of the current UTC day. */
  start_date?: string | Date;
  /** Default: the end of the current UTC day. */
  end_date?: string | Date;
}

export interface PaymentDetails {
  /** Card number / phone (fiat), wallet address (crypto), transfer requisite (payout). */
  address: string;
  /** Bank name (fiat, payout) or coin (crypto). */
  bank: string;
  /** Holder (fiat, payout) or network (crypto). */
  holder_name: string;
  type: string;
  /** Fiat: the exact amount to pay. Crypto: the request amount. Payout: the gross amount. */
  amount: string;
  /** Crypto: the exact amount to send (8 decimals), `null` until a rate is available. */
  cryptoAmount?: string | null;
  form_url?: string;
  emv?: string;
}

interface OrderAnswer {
  /** internal_id (`lux...`). */
  id: string;
  /** external_id: your `order_id`, or the internal id. */
  payment_id: string;
  status: OrderStatus;
  direction: Direction;
  /**
   * After the fee (a payout: what is debited), in fiat: the order's `currency` for fiat orders and
   * payouts; a crypto PAYIN's is always in RUB, even when `currency` names the coin.
   */
  amountAfterFee: number;
  /** Fiat and payouts: the order currency. Crypto PAYIN: the unit of the request's `amount` (RUB or the coin). */
  currency: string;
  payment_details: PaymentDetails;
}

export interface FiatOrderResponse extends OrderAnswer {
  ok: true;
  direction: 'PAYIN';
  usdtAmount?: number | null;
  usdtAmountAfterFee?: number | null;
  exchangeRate?: number | null;
  /** Seconds until the order expires. */
  remainingSeconds?: number;
}

export interface CryptoOrderResponse extends OrderAnswer {
  ok: true;
  direction: 'PAYIN';
  usdtAmount?: number | null;
  usdtAmountAfterFee?: number | null;
  remainingSeconds?: number;
}

export interface PayoutOrderResponse extends OrderAnswer {
  ok: true;
  direction: 'PAYOUT';
}

export type CreateOrderResponse = FiatOrderResponse | CryptoOrderResponse | PayoutOrderResponse;

/** `GET /merchant/order/{id}` (docs/decisions.md section 12). */
export interface OrderInfo extends OrderAnswer {
  order_id: string;
  type: string;
  /** The requested amount. */
  amount: number;
  /** ISO 8601 UTC. */
  created_at: string;
  success_callback_url: string | null;
  merchantFeePercent: number;
  convertToUsdt: boolean;
  comment: string | null;
  client_id: string | null;
  /** `under_review`, `accepted`, `rejected`, or `null` without a receipt. */
  receiptStatus: string | null;
  usdtAmount?: number | null;
  usdtAmountAfterFee?: number | null;
  exchangeRate?: number | null;
  /** Only while pending. */
  remainingSeconds?: number;
}

export interface OrdersPage {
  total: number;
  page: number;
  size: number;
  orders: OrderInfo[];
}

export interface CurrencyBalance {
  currency: string;
  balance: number;
  reserved: number;
  available: number;
}

/** `GET /merchant/balance/{merchant_id}`. */
export interface Balance {
  merchant_id: string;
  /** Ledger balance in the main currency. */
  balance: number;
  /** Held by pending payouts. */
  reserved: number;
  /** `balance - reserved`. */
  available: number;
  /** Main currency. */
  currency: string;
  usdtBalance: number;
  allowUsdt: boolean;
  balances: CurrencyBalance[];
}

export interface Bank {
  code: string;
  /** Goes into `payout_details.methodName`. */
  name: string;
}

export interface BankStandard {
  code: string;
  name: string;
  types: Array<{ type: string; account: string; digits: number; pattern: string }>;
}

/** A pool offer: a pre-reserved requisite with a fixed amount. */
export interface PoolOffer {
  id: string;
  amount: number;
  type: string;
  remainingSeconds: number;
}

export interface ReceiptUploadResponse {
  success: true;
  /** The order's external_id. */
  purchaseId: string;
  /** The order's internal_id. */
  internalId: string;
}

/** The success webhook body (docs/api.md "Events"; docs/decisions.md sections 10-11). */
export interface WebhookEvent {
  id: string;
  order_id: string;
  type: string;
  amount: string;
  currency: string;
  status: 'success';
  /** UTC `YYYY-MM-DD HH:MM:SS.mmm`. */
  created_at: string;
  amountAfterFee?: number;
  usdtAmount?: number;
  usdtAmountAfterFee?: number;
  exchangeRate?: number;
  cryptoAmount?: string;
  direction?: 'PAYOUT';
}
