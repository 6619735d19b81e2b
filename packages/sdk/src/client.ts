/** The merchant client: one typed call per `/merchant/*` endpoint, signed, with 429 back-off. */
import { backoffDelay, type ErrorDetail, MerchantApiError, parseRetryAfter } from './errors.js';
import type { EventType } from './events.js';
import type { Delivery, Reports, SandboxOutcome, Subscription } from './self-service.js';
import { sign } from './signature.js';
import type {
  Balance,
  Bank,
  BankStandard,
  CreateOrderRequest,
  CreateOrderResponse,
  CryptoOrderRequest,
  CryptoOrderResponse,
  FiatOrderRequest,
  FiatOrderResponse,
  ListOrdersQuery,
  OrderInfo,
  OrdersPage,
  PayoutOrderRequest,
  PayoutOrderResponse,
  PoolOffer,
  PoolOrderRequest,
  ReceiptUploadResponse,
} from './types.js';

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
  /**
   * `POST /merchant/sandbox/orders/{id}/outcome` (a test key only): drives a test order as a payer,
   * bank or operator would; `amount` for `paid_other_amount`. Answers the order.
   */
  simulate(orderId: string, outcome: SandboxOutcome, amount?: string): Promise<OrderInfo>;
  /** Event subscriptions and their delivery log (`/merchant/webhooks/...`). */
  subscriptions: {
    create(url: string, events: EventType[]): Promise<Subscription>;
    list(): Promise<Subscription[]>;
    remove(id: string): Promise<{ id: string; deleted: true }>;
    /** Sends one test event (`data.test: true`) of `type` (default the subscription's first). */
    sendTest(id: string, type?: EventType): Promise<{ delivery_id: string; type: EventType }>;
    deliveries(query?: { limit?: number; before?: string }): Promise<Delivery[]>;
  };
  /** `GET /merchant/reports`: today's and the last 30 days' figures per payment type. */
  reports(): Promise<Reports>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `YYYY-MM-DD HH:MM:SS` in UTC. */
function utcDateTime(value: Date): string {
  return value.toISOString().slice(0, 19).replace('T', ' ');
}

interface Call {
  method: 'GET' | 'POST' | 'DELETE';
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
      // GET and multipart sign an empty body (docs/api.md Authentication rules 2-3).
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
    async simulate(orderId, outcome, amount) {
      const json = amount === undefined ? { outcome } : { outcome, amount };
      const path = `/merchant/sandbox/orders/${encodeURIComponent(orderId)}/outcome`;
      return data(await request<{ data: OrderInfo }>({ method: 'POST', path, json }));
    },
    subscriptions: {
      create: async (url, events) =>
        data(
          await request<{ data: Subscription }>({
            method: 'POST',
            path: '/merchant/webhooks/subscriptions',
            json: { url, events },
          }),
        ),
      list: async () => data(await get<{ data: Subscription[] }>('/merchant/webhooks/subscriptions')),
      remove: async (id) =>
        data(
          await request<{ data: { id: string; deleted: true } }>({
            method: 'DELETE',
            path: `/merchant/webhooks/subscriptions/${encodeURIComponent(id)}`,
          }),
        ),
      sendTest: async (id, type) =>
        data(
          await request<{ data: { delivery_id: string; type: EventType } }>({
            method: 'POST',
            path: `/merchant/webhooks/subscriptions/${encodeURIComponent(id)}/test`,
            json: type === undefined ? {} : { type },
          }),
        ),
      deliveries: async (query = {}) => {
        const params = new URLSearchParams();
        if (query.limit !== undefined) params.set('limit', String(query.limit));
        if (query.before !== undefined) params.set('before', query.before);
        const qs = params.size > 0 ? `?${params}` : '';
        return data(await get<{ data: Delivery[] }>(`/merchant/webhooks/deliveries${qs}`));
      },
    },
    reports: async () => data(await get<{ data: Reports }>('/merchant/reports')),
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
