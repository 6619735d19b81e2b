/**
 * Merchant SDK of the payment-orders service: typed calls for every `/merchant/*` endpoint, request
 * signing, 429 back-off, webhook verification and typed errors.
 *
 * Contract: docs/api.md (Authentication, Endpoints, Errors, Limits) and docs/decisions.md sections
 * 1-4 and 9-12. No runtime dependencies: Node's global fetch, FormData, Blob and node:crypto.
 */

export { type Arrival, startListener } from './cli-listen.js';
export * from './client.js';
export * from './errors.js';
export * from './events.js';
export * from './self-service.js';
export * from './signature.js';
export * from './types.js';
