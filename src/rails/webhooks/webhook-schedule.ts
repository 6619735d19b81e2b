/**
 * Delays before each retry, in seconds (docs/api.md "Retry schedule"; docs/decisions.md section 11):
 * 15 s, 1 min, 5 min, 15 min, 1 h. After the 5th retry fails the delivery is exhausted.
 */
export const RETRY_DELAYS_SECONDS = [15, 60, 300, 900, 3600] as const;

/** Tries in all: the first one plus one per retry delay. */
export const MAX_TRIES = RETRY_DELAYS_SECONDS.length + 1;

/** How long the service waits for the merchant's answer (docs/decisions.md section 11), ms. */
export const ANSWER_TIMEOUT_MS = 10_000;

/**
 * What happens after try number `tryNo` (1-based) failed: the delay in seconds before the next one,
 * or undefined when it was the last try (the delivery is exhausted).
 */
export function retryDelayAfter(tryNo: number): number | undefined {
  return RETRY_DELAYS_SECONDS[tryNo - 1];
}

/** Only HTTP 200 acknowledges a webhook (docs/api.md "Events": any other code causes a retry). */
export function isAcknowledged(statusCode: number | undefined): boolean {
  return statusCode === 200;
}
