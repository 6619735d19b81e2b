/**
 * The one list of error codes the service answers with, and their HTTP statuses.
 * Source: docs/api.md "Errors" plus docs/decisions.md section 3 (and section 9 for receipts).
 * Codes marked "ops" are ours, for the admin API; they never reach a merchant endpoint.
 */
export const ERROR_STATUS = {
  INVALID_JSON: 400,
  VALIDATION_ERROR: 400,
  INVALID_MERCHANT_ID: 400,
  INVALID_AMOUNT: 400,
  UNSUPPORTED_PAYMENT_TYPE: 400,
  CURRENCY_NOT_ALLOWED: 400,
  ORDER_AMOUNT_BELOW_MIN_LIMIT: 400,
  ORDER_AMOUNT_ABOVE_MAX_LIMIT: 400,
  USDT_CONVERSION_NOT_SUPPORTED: 400,
  INVALID_PAYOUT_DETAILS: 400,
  INVALID_HOLDER_ACCOUNT: 400,
  INSUFFICIENT_BALANCE: 400,
  ORDER_ID_REQUIRED: 400,
  RECEIPT_REQUIRED: 400,
  RECEIPT_UNSUPPORTED_FORMAT: 400,
  RECEIPT_TOO_LARGE: 400,
  RECEIPT_CONTENT_MISMATCH: 400,
  RECEIPT_URL_INVALID: 400,
  RECEIPT_URL_FORBIDDEN_HOST: 400,
  RECEIPT_URL_TIMEOUT: 400,
  RECEIPT_URL_HTTP_ERROR: 400,
  RECEIPT_URL_TOO_LARGE: 400,
  RECEIPT_URL_UNSUPPORTED_FORMAT: 400,
  INVALID_API_KEY: 401,
  /** ops: missing or wrong admin bearer token. */
  UNAUTHORIZED: 401,
  DISABLED: 403,
  /** ops: the operator's role does not allow this action. */
  FORBIDDEN: 403,
  PAYMENT_TYPE_NOT_ALLOWED: 403,
  USDT_CONVERSION_NOT_ALLOWED: 403,
  ORDER_FORBIDDEN: 403,
  /** A sandbox call (`/merchant/sandbox/...`, docs/decisions.md section 29) made with a live key. */
  TEST_KEY_REQUIRED: 403,
  ORDER_NOT_FOUND: 404,
  NOT_FOUND: 404,
  ORDER_ALREADY_EXISTS: 409,
  REQUISITES_NOT_FOUND: 409,
  MODERATION_IN_PROGRESS: 409,
  /** ops: the order is not in a state that allows this operator action. */
  ORDER_STATE_CONFLICT: 409,
  /** ops: a resource with this identifier exists already (merchant, bank). */
  ALREADY_EXISTS: 409,
  /** ops: a requisite is bound to another device already (one device per requisite, docs/decisions.md section 24). */
  REQUISITE_ALREADY_BOUND: 409,
  /**
   * ops: a bank message cannot confirm this order (not a fiat PAYIN, not pending or ended within a
   * day, another requisite, another amount); the details name the rule.
   */
  MESSAGE_NOT_FOR_ORDER: 409,
  /** ops: a holder's settlement larger than what the holder holds (docs/decisions.md "Holders' money"). */
  SETTLEMENT_EXCEEDS_HELD: 409,
  /**
   * ops: a learned bank-message rule cannot be proposed, switched on or off in its present state
   * (docs/decisions.md "Rules learned from the review queue"); the details say why.
   */
  RULE_STATE_CONFLICT: 409,
  /** ops: a learned rule would read a stored non-credit (corpus or database) as a credit; the details name the text. */
  RULE_READS_NON_CREDIT: 409,
  /** ops: a learned rule's pattern matches too much (nearly any text) to be a bank's format. */
  RULE_TOO_BROAD: 409,
  /** A pairing link already claimed by a device (docs/decisions.md "The pairing page"). */
  PAIRING_LINK_USED: 409,
  /** A pairing link past its 15 minutes, never claimed. */
  PAIRING_LINK_EXPIRED: 410,
  /** ops: a PAYOUT given to a holder whose payouts are not allowed, or who is suspended (docs/decisions.md "Payouts through holders"). */
  HOLDER_PAYOUTS_NOT_ALLOWED: 409,
  /** ops: a holder acting on a payout given to another holder, or to none (docs/decisions.md "Payouts through holders"). */
  HOLDER_PAYOUT_MISMATCH: 409,
  /**
   * ops: a requisite or a phone that belongs to another holder, assigned without `move: true`
   * (docs/decisions.md "Assigning requisites and phones to holders"); the details name each one and its holder.
   */
  HOLDER_ASSIGNMENT_CONFLICT: 409,
  /** A holder acting on their page on a requisite that is not theirs (docs/decisions.md "The holder's own page"). */
  NOT_YOUR_REQUISITE: 403,
  /** A holder acting on their page on a PAYOUT given to another holder, or to none (docs/decisions.md "Payouts on the holder's page"). */
  NOT_YOUR_PAYOUT: 403,
  /** A holder resuming a requisite paused by a bank's block, a silent phone or their limit, not by them. */
  REQUISITE_PAUSED_BY_OPERATOR: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_ERROR: 500,
  EXCHANGE_RATE_UNAVAILABLE: 503,
  /** ops: the corpus a learned rule is checked against cannot be read, so no rule is switched on. */
  CORPUS_UNAVAILABLE: 503,
  /** ops: the database cannot be reached right now. */
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** One field-level problem of a VALIDATION_ERROR (docs/decisions.md section 2). */
export interface ErrorDetail {
  field: string;
  problem: string;
}

/**
 * The only error type services throw on purpose. The error handler turns it into
 * `{success:false, ok:false, status, message: code, details?}` with the code's HTTP status.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  /** Response headers that go with the error (e.g. `retry-after` on 429). */
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, details?: ErrorDetail[], headers?: Record<string, string>) {
    super(code);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = details;
    this.headers = headers;
  }
}

/** Shorthand for a VALIDATION_ERROR naming one field. */
export function invalidField(field: string, problem: string): AppError {
  return new AppError('VALIDATION_ERROR', [{ field, problem }]);
}
