import type { FastifyRequest } from 'fastify';

/**
 * A limit that counts failed sign-ins per IP (`createRateLimits().failures`, src/platform/rate-limits):
 * `check` refuses with TOO_MANY_REQUESTS once too many failed, `fail` counts one.
 */
export interface FailureLimit {
  check(request: FastifyRequest): Promise<void>;
  fail(request: FastifyRequest): Promise<void>;
}

/**
 * Runs one sign-in attempt under the throttle (docs/architecture.md "Session stack"): refused before
 * any password is checked when the IP failed too often; a failed attempt (`failed(outcome)`) counts
 * one; a success costs nothing. Both surfaces sign in through it.
 */
export async function throttledSignIn<T>(
  limit: FailureLimit,
  request: FastifyRequest,
  attempt: () => Promise<T>,
  failed: (outcome: T) => boolean,
): Promise<T> {
  await limit.check(request);
  const outcome = await attempt();
  if (failed(outcome)) await limit.fail(request);
  return outcome;
}
