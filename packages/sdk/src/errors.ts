/** Errors of a call and the back-off between retries (docs/api.md "Errors" and "Limits"). */

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
