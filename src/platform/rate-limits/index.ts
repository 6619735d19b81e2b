/** The contract's rate limits (docs/api.md "Limits"), in memory or in Redis for several processes. */
export { createRateLimits, RATE_RULES, type RateLimits, redisLimiters } from './rate-limits.js';
