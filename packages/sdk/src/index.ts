/**
 * Merchant SDK of the payment-orders service: typed calls for every `/merchant/*` endpoint, request
 * signing, 429 back-off, webhook verification and typed errors.
 *
 * Contract: merchant-api.md (Authentication, Endpoints, Errors, Limits) and decisions.md sections
 * 1-4 and 9-12. No runtime dependencies: Node's global fetch, FormData, Blob and node:crypto.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

// ---------------------------------------------------------------------------------------------
// Signing and webhook verification
// ---------------------------------------------------------------------------------------------

/**
 * The request / webhook signature: lowercase hex SHA-256 of `<API_KEY>|<body>`, where `body` is the
 * exact bytes sent ('' for GET requests and multipart uploads).
 */
export function sign(apiKey: string, body: string | Uint8Array = ''): string {
  return createHash('sha256').update(`${apiKey}|`, 'utf8').update(body).digest('hex');
}

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/**
 * True when `header` (the webhook's `x-api-key`) is the signature of `rawBody` under `apiKey`.
 * Pass the raw bytes exactly as received, before any JSON parsing. The comparison is constant-time
 * (`timingSafeEqual` on two 32-byte buffers); a missing, malformed or wrong-length header is false.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  header: string | undefined | null,
  apiKey: string,
): boolean {
  if (typeof header !== 'string') return false;
  const given = header.trim();
  // Strict shape first: Buffer.from(hex) silently stops at the first non-hex character.
  if (!HEX_SHA256.test(given)) return false;
  const expected = createHash('sha256').update(`${apiKey}|`, 'utf8').update(rawBody).digest();
  const actual = Buffer.from(given, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

// ---------------------------------------------------------------------------------------------
// Types: requests
// ---------------------------------------------------------------------------------------------

export type OrderStatus = 'pending' | 'success' | 'error';
export type Direction = 'PAYIN' | 'PAYOUT';

/** Crypto payment methods (merchant-api.md "Payment methods"). */
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

// ---------------------------------------------------------------------------------------------
// Types: responses
// ---------------------------------------------------------------------------------------------

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
  amountAfterFee: number;
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

/** `GET /merchant/order/{id}` (decisions.md section 12). */
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

/** The success webhook body (merchant-api.md "Events"; decisions.md sections 10-11). */
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

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/** One field-level problem of a `VALIDATION_ERROR`. */
export interface ErrorDetail {
  field: string;
  problem: string;
}

/**
 * Every failure of a call. `code` is the envelope's `message` (e.g. `ORDER_NOT_FOUND`,
 * `MODERATION_IN_PROGRESS`, `TOO_MANY_REQUESTS` after the retries ran out); `HTTP_<status>` when the
 * answer was not the service's JSON envelope; `NETWORK_ERROR` / `TIMEOUT` with `status` 0 when no
 * answer came (then the request may or may not have been processed: retry createOrder with the same
 * `order_id` and read the order on 409 `ORDER_ALREADY_EXISTS`).
 */
export class MerchantApiError extends Error {
  readonly code: string;
  /** HTTP status, 0 without an answer. */
  readonly status: number;
  /** `details` of a validation error, else empty. */
  readonly details: ErrorDetail[];
  /** The parsed answer body (or its text when it was not JSON); undefined without an answer. */
  readonly body: unknown;
  /** `Retry-After` of a 429, in ms, when given. */
  readonly retryAfterMs: number | undefined;

  constructor(
    code: string,
    status: number,
    options: { details?: ErrorDetail[]; body?: unknown; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(
      status ? `${code} (HTTP ${status})` : code,
      options.cause === undefined ? {} : { cause: options.cause },
    );
    this.name = 'MerchantApiError';
    this.code = code;
    this.status = status;
    this.details = options.details ?? [];
    this.body = options.body;
    this.retryAfterMs = options.retryAfterMs;
  }
}

// ---------------------------------------------------------------------------------------------
// Retries
// ---------------------------------------------------------------------------------------------

export const BACKOFF_BASE_MS = 500;
export const BACKOFF_CAP_MS = 30_000;

/**
 * Delay before retry number `retry` (0-based) after a 429: 500 ms doubling (500, 1000, 2000, 4000,
 * ...), never more than 30 s. A `Retry-After` longer than that step wins (retrying earlier would
 * only meet another 429), still capped at 30 s. Never below 500 ms.
 */
export function backoffDelay(retry: number, retryAfterMs?: number): number {
  const step = BACKOFF_BASE_MS * 2 ** Math.max(0, Math.min(retry, 16));
  const wanted = retryAfterMs !== undefined && retryAfterMs > step ? retryAfterMs : step;
  return Math.min(BACKOFF_CAP_MS, Math.max(BACKOFF_BASE_MS, wanted));
}

/** `Retry-After` as ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

// ---------------------------------------------------------------------------------------------
// Client
// ---------------------------------------------------------------------------------------------

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface MerchantClientOptions {
  /** The service address, e.g. `https://pay.example.com` (a path prefix is kept). */
  baseUrl: string;
  /** Your merchant id (`merchant_id`). */
  merchantId: string;
  /** Your API key. */
  apiKey: string;
  /** Default: the global `fetch`. */
  fetch?: FetchLike;
  /** Waits between 429 retries. Default: a timer. */
  sleep?: (ms: number) => Promise<void>;
  /** Retries after a 429; default 5 (delays 0.5, 1, 2, 4, 8 s). 0 turns retries off. */
  maxRetries?: number;
  /** Per-attempt timeout in ms; default 60 000. 0 turns it off. */
  timeoutMs?: number;
}

export interface MerchantClient {
  readonly merchantId: string;
  /** `POST /merchant/createOrder`: a PAYOUT. */
  createOrder(request: PayoutOrderRequest): Promise<PayoutOrderResponse>;
  /** `POST /merchant/createOrder`: a crypto PAYIN. */
  createOrder(request: CryptoOrderRequest): Promise<CryptoOrderResponse>;
  /** `POST /merchant/createOrder`: a fiat PAYIN (or a pool offer taken with `usePool`). */
  createOrder(request: FiatOrderRequest | PoolOrderRequest): Promise<FiatOrderResponse>;
  createOrder(request: CreateOrderRequest): Promise<CreateOrderResponse>;
  /** `GET /merchant/order/{id}` by your `order_id` or by the internal id (`lux...`). */
  getOrder(id: string): Promise<OrderInfo>;
  /** `GET /merchant/orders`, newest first. */
  listOrders(query?: ListOrdersQuery): Promise<OrdersPage>;
  /** `GET /merchant/balance/{merchant_id}` (default: this client's merchant). */
  getBalance(merchantId?: string): Promise<Balance>;
  /** `GET /merchant/banks`: banks for payouts. */
  listBanks(): Promise<Bank[]>;
  /** `GET /merchant/bank-standards`: per bank, payout types and account formats. */
  bankStandards(): Promise<BankStandard[]>;
  /** `GET /merchant/pool/requisites`: pool offers you may take with `createOrder({ usePool: true, ... })`. */
  poolRequisites(): Promise<PoolOffer[]>;
  /** `POST /merchant/receipt/upload`, multipart (signed as an empty body). PDF, JPEG or PNG, at most 5 MB. */
  uploadReceiptFile(
    orderId: string,
    data: Uint8Array | Blob,
    filename: string,
    contentType?: string,
  ): Promise<ReceiptUploadResponse>;
  /** `POST /merchant/receipt/upload`, JSON `{orderId, receiptUrl}`: the service downloads the receipt. */
  uploadReceiptUrl(orderId: string, receiptUrl: string): Promise<ReceiptUploadResponse>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `YYYY-MM-DD HH:MM:SS` in UTC. */
function utcDateTime(value: Date): string {
  return value.toISOString().slice(0, 19).replace('T', ' ');
}

interface Call {
  method: 'GET' | 'POST';
  path: string;
  /** A JSON body (sent compact, and signed over exactly those bytes). */
  json?: unknown;
  /** A fresh multipart body per attempt (signed as ''). */
  form?: () => FormData;
}

function errorOf(status: number, body: unknown, retryAfterMs: number | undefined): MerchantApiError {
  const envelope = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined;
  const message = envelope?.message;
  const code = typeof message === 'string' && message.length > 0 ? message : `HTTP_${status}`;
  const details = Array.isArray(envelope?.details) ? (envelope.details as ErrorDetail[]) : [];
  return new MerchantApiError(code, status, {
    details,
    body,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}

export function createMerchantClient(options: MerchantClientOptions): MerchantClient {
  const { merchantId, apiKey } = options;
  if (!options.baseUrl) throw new TypeError('baseUrl is required');
  if (!merchantId) throw new TypeError('merchantId is required');
  if (!apiKey) throw new TypeError('apiKey is required');
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch: FetchLike = options.fetch ?? ((url, init) => fetch(url, init));
  const sleep = options.sleep ?? defaultSleep;
  const maxRetries = Math.max(0, Math.floor(options.maxRetries ?? 5));
  const timeoutMs = options.timeoutMs ?? 60_000;

  async function attempt(call: Call, text: string | undefined): Promise<Response> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'client-api-key': apiKey,
      // GET and multipart sign an empty body (merchant-api.md Authentication rules 2-3).
      'x-api-key': sign(apiKey, text ?? ''),
    };
    const init: RequestInit = { method: call.method, headers };
    if (text !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = text;
    } else if (call.form) {
      // fetch sets `multipart/form-data; boundary=...` itself.
      init.body = call.form();
    }
    if (timeoutMs > 0) init.signal = AbortSignal.timeout(timeoutMs);
    try {
      return await doFetch(`${baseUrl}${call.path}`, init);
    } catch (err) {
      const name = (err as { name?: string } | null)?.name;
      const code = name === 'TimeoutError' || name === 'AbortError' ? 'TIMEOUT' : 'NETWORK_ERROR';
      throw new MerchantApiError(code, 0, { cause: err });
    }
  }

  async function request<T>(call: Call): Promise<T> {
    // Serialised once: every attempt sends (and signs) the same compact bytes.
    const text = call.json === undefined ? undefined : JSON.stringify(call.json);
    for (let retry = 0; ; retry++) {
      const res = await attempt(call, text);
      const raw = await res.text();
      let body: unknown = raw;
      if (raw.length > 0) {
        try {
          body = JSON.parse(raw);
        } catch {
          // not JSON: kept as text
        }
      }
      if (res.ok) {
        if (typeof body === 'object' && body !== null) return body as T;
        throw new MerchantApiError('INVALID_RESPONSE', res.status, { body });
      }
      const retryAfterMs = res.status === 429 ? parseRetryAfter(res.headers.get('retry-after')) : undefined;
      if (res.status === 429 && retry < maxRetries) {
        await sleep(backoffDelay(retry, retryAfterMs));
        continue;
      }
      throw errorOf(res.status, body, retryAfterMs);
    }
  }

  const get = <T>(path: string) => request<T>({ method: 'GET', path });
  const data = <T>(body: { data: T }) => body.data;

  function createOrder(request: PayoutOrderRequest): Promise<PayoutOrderResponse>;
  function createOrder(request: CryptoOrderRequest): Promise<CryptoOrderResponse>;
  function createOrder(request: FiatOrderRequest | PoolOrderRequest): Promise<FiatOrderResponse>;
  function createOrder(request: CreateOrderRequest): Promise<CreateOrderResponse>;
  function createOrder(order: CreateOrderRequest): Promise<CreateOrderResponse> {
    return requestCreate({ merchant_id: merchantId, ...order });
  }
  const requestCreate = (json: unknown) =>
    request<CreateOrderResponse>({ method: 'POST', path: '/merchant/createOrder', json });

  return {
    merchantId,
    createOrder,
    async getOrder(id) {
      return data(await get<{ data: OrderInfo }>(`/merchant/order/${encodeURIComponent(id)}`));
    },
    async listOrders(query = {}) {
      const params = new URLSearchParams({ merchant_id: merchantId });
      for (const [key, value] of Object.entries(query) as Array<[string, unknown]>) {
        if (value === undefined || value === null) continue;
        params.set(key, value instanceof Date ? utcDateTime(value) : String(value));
      }
      return data(await get<{ data: OrdersPage }>(`/merchant/orders?${params}`));
    },
    async getBalance(id = merchantId) {
      return data(await get<{ data: Balance }>(`/merchant/balance/${encodeURIComponent(id)}`));
    },
    async listBanks() {
      return data(await get<{ data: Bank[] }>('/merchant/banks'));
    },
    async bankStandards() {
      return data(await get<{ data: BankStandard[] }>('/merchant/bank-standards'));
    },
    async poolRequisites() {
      return data(await get<{ data: PoolOffer[] }>('/merchant/pool/requisites'));
    },
    uploadReceiptFile(orderId, file, filename, contentType) {
      // The service checks the content; a declared type that names another format is a mismatch.
      const blob =
        file instanceof Blob
          ? contentType === undefined
            ? file
            : new Blob([file], { type: contentType })
          : new Blob([new Uint8Array(file)], { type: contentType ?? 'application/octet-stream' });
      return request<ReceiptUploadResponse>({
        method: 'POST',
        path: '/merchant/receipt/upload',
        form: () => {
          const form = new FormData();
          form.append('orderId', orderId);
          form.append('receipt', blob, filename);
          return form;
        },
      });
    },
    uploadReceiptUrl(orderId, receiptUrl) {
      // Key order as the contract says: orderId, then receiptUrl.
      return request<ReceiptUploadResponse>({
        method: 'POST',
        path: '/merchant/receipt/upload',
        json: { orderId, receiptUrl },
      });
    },
  };
}
