import type { FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import { AppError } from '../../lib/errors.js';
import { sha256Hex } from '../../lib/secrets.js';
import type { MerchantRow, MerchantsService } from '../merchants/index.js';
import { signedTextCandidates, verifySignature } from './signature.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated merchant of a `/merchant/*` request. */
    merchant?: MerchantRow;
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** GET/HEAD and multipart requests sign an empty body (docs/api.md Authentication rules 2-3). */
function signsEmptyBody(request: FastifyRequest): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return true;
  return (request.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data');
}

/**
 * Authenticates a `/merchant/*` request (docs/api.md "Authentication"; docs/decisions.md section 4):
 * `client-api-key` looked up by digest, `x-api-key` checked over the raw body (then the compact
 * fallbacks), then the merchant's state. Runs before body validation so that a caller without a key
 * learns nothing about the body. Throws INVALID_API_KEY (401), DISABLED (403), INVALID_JSON (400).
 */
export function createMerchantAuth(merchants: MerchantsService): preValidationAsyncHookHandler {
  return async function merchantAuth(request) {
    const apiKey = header(request, 'client-api-key');
    const signature = header(request, 'x-api-key');
    if (!apiKey || !signature) throw new AppError('INVALID_API_KEY');
    const digest = sha256Hex(apiKey);
    const merchant = await merchants.findByKeyDigest(digest);
    if (!merchant) throw new AppError('INVALID_API_KEY');
    const candidates = signsEmptyBody(request)
      ? [Buffer.alloc(0)]
      : signedTextCandidates(
          request.rawBody ?? Buffer.alloc(0),
          request.bodyParseError ? undefined : request.body,
        );
    if (!verifySignature(apiKey, signature, candidates)) throw new AppError('INVALID_API_KEY');
    if (!merchant.enabled) throw new AppError('DISABLED');
    request.merchant = merchant;
    request.merchantKeyDigest = digest;
    if (request.bodyParseError) throw new AppError('INVALID_JSON');
  };
}

/** The authenticated merchant; only valid on routes behind the merchant auth hook. */
export function merchantOf(request: FastifyRequest): MerchantRow {
  if (!request.merchant) throw new AppError('INVALID_API_KEY');
  return request.merchant;
}

/**
 * Checks a `merchant_id` given in a body, path or query against the key's merchant
 * (docs/decisions.md section 3: missing or another merchant's -> 400 INVALID_MERCHANT_ID).
 */
export function assertOwnMerchantId(request: FastifyRequest, merchantId: unknown): MerchantRow {
  const merchant = merchantOf(request);
  if (typeof merchantId !== 'string' || merchantId !== merchant.id) throw new AppError('INVALID_MERCHANT_ID');
  return merchant;
}
