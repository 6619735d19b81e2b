import { createRequire } from 'node:module';
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { AppError } from '../../lib/errors.js';

/** A limit: `points` requests per `durationSeconds`. */
export interface RateRule {
  points: number;
  durationSeconds: number;
}

/**
 * The contract's limits (docs/api.md "Limits"; docs/decisions.md section 12): 6 per second for the
 * read endpoints and the receipt upload, 1 per 5 s for PAYOUT createOrder; PAYIN createOrder takes
 * the merchant's setting (default 10 per second).
 */
export const RATE_RULES = {
  read: { points: 6, durationSeconds: 1 },
  payout: { points: 1, durationSeconds: 5 },
  /** The payment form, per IP: pages, status polls (every 3 s), receipt uploads. */
  formPage: { points: 30, durationSeconds: 60 },
  formStatus: { points: 60, durationSeconds: 60 },
  formReceipt: { points: 10, durationSeconds: 60 },
  /** A holder's pairing link, per IP: its page (and previews), and claims (docs/decisions.md "The pairing page"). */
  pairingPage: { points: 30, durationSeconds: 60 },
  pairingClaim: { points: 10, durationSeconds: 60 },
  /** Back-office password attempts, per IP. */
  login: { points: 5, durationSeconds: 60 },
} as const satisfies Record<string, RateRule>;

type Flexible = typeof import('rate-limiter-flexible');
const require = createRequire(import.meta.url);
/**
 * The three classes used here, each from its own file of rate-limiter-flexible (11.x: lib/<Class>.js),
 * loaded at the first limit: the package's index loads all of its two dozen stores (Mongo, MySQL,
 * DynamoDB, etcd...) at start. The same files the index loads, so `instanceof` holds either way.
 */
const flexible = {
  memory: () => require('rate-limiter-flexible/lib/RateLimiterMemory.js') as Flexible['RateLimiterMemory'],
  redis: () => require('rate-limiter-flexible/lib/RateLimiterRedis.js') as Flexible['RateLimiterRedis'],
  res: () => require('rate-limiter-flexible/lib/RateLimiterRes.js') as Flexible['RateLimiterRes'],
};

/** Makes the store of one limit; memory for one process (a shared store is plugged in for several). */
export type LimiterFactory = (keyPrefix: string, rule: RateRule) => RateLimiterAbstract;

export const memoryLimiters: LimiterFactory = (keyPrefix, rule) =>
  new (flexible.memory())({ keyPrefix, points: rule.points, duration: rule.durationSeconds });

/**
 * Counters in Redis, shared by every process (docs/api.md "Limits"). While Redis cannot be reached each process
 * falls back to its own memory counters (the insurance limiter) instead of failing requests.
 */
export function redisLimiters(redis: Redis): LimiterFactory {
  return (keyPrefix, rule) =>
    new (flexible.redis())({
      storeClient: redis,
      keyPrefix,
      points: rule.points,
      duration: rule.durationSeconds,
      insuranceLimiter: new (flexible.memory())({
        keyPrefix,
        points: rule.points,
        duration: rule.durationSeconds,
      }),
    });
}

/**
 * Rate limits per (IP, endpoint, `client-api-key`) (docs/api.md "Rate-limit rules"). Over the
 * limit: 429 TOO_MANY_REQUESTS with `Retry-After` in seconds (docs/decisions.md section 2).
 */
export function createRateLimits(options: {
  enabled: boolean;
  factory?: LimiterFactory;
  onReject?: (endpoint: string) => void;
}) {
  const factory = options.factory ?? memoryLimiters;
  const limiters = new Map<string, RateLimiterAbstract>();

  function limiter(endpoint: string, rule: RateRule): RateLimiterAbstract {
    const name = `${endpoint}:${rule.points}/${rule.durationSeconds}`;
    let found = limiters.get(name);
    if (!found) {
      found = factory(`rl:${name}`, rule);
      limiters.set(name, found);
    }
    return found;
  }

  const keyOf = (request: FastifyRequest) => `${request.ip}|${request.merchantKeyDigest ?? '-'}`;

  function tooMany(endpoint: string, msBeforeNext: number): AppError {
    options.onReject?.(endpoint);
    return new AppError('TOO_MANY_REQUESTS', undefined, {
      'retry-after': String(Math.max(1, Math.ceil(msBeforeNext / 1000))),
    });
  }

  /** Counts one request against the rule; throws TOO_MANY_REQUESTS (with Retry-After) over the limit. */
  async function consume(endpoint: string, rule: RateRule, request: FastifyRequest): Promise<void> {
    if (!options.enabled) return;
    try {
      await limiter(endpoint, rule).consume(keyOf(request));
    } catch (err) {
      if (!(err instanceof flexible.res())) throw err;
      throw tooMany(endpoint, err.msBeforeNext);
    }
  }

  return {
    consume,
    /**
     * A limit that counts failures only (wrong passwords): `check` refuses with TOO_MANY_REQUESTS
     * (Retry-After: seconds until the oldest failure ages out) once `rule.points` failures were
     * counted within the window; `fail` counts one. Successes cost nothing.
     */
    failures(endpoint: string, rule: RateRule) {
      return {
        async check(request: FastifyRequest): Promise<void> {
          if (!options.enabled) return;
          const state = await limiter(endpoint, rule).get(keyOf(request));
          if (state && state.consumedPoints >= rule.points) throw tooMany(endpoint, state.msBeforeNext);
        },
        async fail(request: FastifyRequest): Promise<void> {
          if (!options.enabled) return;
          await limiter(endpoint, rule).penalty(keyOf(request), 1);
        },
      };
    },
    /** A preHandler that applies `ruleFor(request)` (undefined: no limit) to the route. */
    hook(
      endpoint: string,
      ruleFor: (request: FastifyRequest) => RateRule | undefined,
    ): preHandlerAsyncHookHandler {
      return async (request) => {
        const rule = ruleFor(request);
        if (rule) await consume(endpoint, rule, request);
      };
    },
  };
}

export type RateLimits = ReturnType<typeof createRateLimits>;
