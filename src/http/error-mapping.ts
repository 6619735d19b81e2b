import type { FastifyError } from 'fastify';
import { AppError } from '../lib/errors.js';
import { validationDetails } from './validation.js';

/** Why a request failed, as far as logging cares. */
export type FailureKind = 'expected' | 'client-data' | 'unavailable' | 'internal';

/** Maps Fastify's own errors (parsing, limits, validation) onto our codes. */
function fromFramework(err: FastifyError): AppError | undefined {
  if (err.validation)
    return new AppError('VALIDATION_ERROR', validationDetails(err.validation, err.validationContext));
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('INVALID_JSON');
    case 'FST_ERR_RATE_LIMIT_EXCEEDED':
      return new AppError('TOO_MANY_REQUESTS');
  }
  if (err.statusCode === 413) return new AppError('PAYLOAD_TOO_LARGE');
  if (err.statusCode === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE');
  if (err.statusCode === 429) return new AppError('TOO_MANY_REQUESTS');
  return undefined;
}

/** Walks an error and its `cause` chain (drizzle wraps the driver's error in its own). */
function* causes(err: unknown): Generator<{ code?: unknown; message?: unknown }> {
  for (let e: unknown = err, depth = 0; e && depth < 10; e = (e as { cause?: unknown }).cause, depth++) {
    yield e as { code?: unknown; message?: unknown };
  }
}

/**
 * PostgreSQL data exceptions (SQLSTATE class 22: a NUL or invalid UTF-8 in text, a date or number out
 * of range) come from what the client sent, not from a fault of ours: 400, not 500.
 */
function isDataException(err: unknown): boolean {
  for (const e of causes(err)) {
    if (typeof e.code === 'string' && /^22[0-9A-Z]{3}$/.test(e.code)) return true;
  }
  return false;
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  '57P01',
  '57P02',
  '57P03',
  '08006',
  '08001',
  '08003',
]);
const UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/;

/** Connection-level database failures: the service is unavailable, not broken. */
function isDatabaseUnavailable(err: unknown): boolean {
  for (const e of causes(err)) {
    if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
    if (UNAVAILABLE_MESSAGE.test(String(e.message ?? ''))) return true;
  }
  return false;
}

/**
 * The one mapping from anything thrown to an error code of `ERROR_STATUS`, shared by every surface
 * (merchant and admin API as JSON, console and payment form as HTML): our AppError as is, Fastify's
 * errors by their code, database data exceptions as VALIDATION_ERROR, a lost database as
 * SERVICE_UNAVAILABLE, anything else INTERNAL_ERROR (logged, never shown).
 */
export function resolveError(err: unknown): { error: AppError; kind: FailureKind } {
  if (err instanceof AppError) return { error: err, kind: 'expected' };
  const framework = fromFramework(err as FastifyError);
  if (framework) return { error: framework, kind: 'expected' };
  if (isDataException(err)) {
    return {
      error: new AppError('VALIDATION_ERROR', [
        { field: 'body', problem: 'contains characters or values that cannot be stored' },
      ]),
      kind: 'client-data',
    };
  }
  if (isDatabaseUnavailable(err)) return { error: new AppError('SERVICE_UNAVAILABLE'), kind: 'unavailable' };
  return { error: new AppError('INTERNAL_ERROR'), kind: 'internal' };
}

/** Response headers that go with an error: its own (e.g. the limiter's Retry-After), else Retry-After 1 on 429. */
export function errorHeaders(error: AppError): Record<string, string> {
  const headers = { ...(error.headers ?? {}) };
  if (error.code === 'TOO_MANY_REQUESTS' && !('retry-after' in headers)) headers['retry-after'] = '1';
  return headers;
}
