import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_STATUS, type ErrorCode, type ErrorDetail } from '../lib/errors.js';
import { validationDetails } from './validation.js';

/** The error envelope of every endpoint (decisions.md section 2). */
export function errorBody(code: ErrorCode, details?: ErrorDetail[]) {
  const status = ERROR_STATUS[code];
  return {
    success: false,
    ok: false,
    status,
    message: code,
    ...(details && details.length > 0 ? { details } : {}),
    ...(code === 'TOO_MANY_REQUESTS' ? { error: 'Too many requests, slow down.' } : {}),
  };
}

/** Maps Fastify's own errors (parsing, limits, validation) onto our codes. */
function toAppError(err: FastifyError): AppError | undefined {
  if (err instanceof AppError) return err;
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

/**
 * PostgreSQL data exceptions (SQLSTATE class 22: a NUL or invalid UTF-8 in text, a date or number out
 * of range) come from what the client sent, not from a fault of ours: 400, not 500.
 */
function isDataException(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code)) return true;
  }
  return false;
}

/** Connection-level database failures: the service is unavailable, not broken. */
function isDatabaseUnavailable(err: unknown): boolean {
  // drizzle wraps a failed query in DrizzleQueryError; the driver's error is its cause.
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: string }).code;
    const message = String((e as { message?: string }).message ?? '');
    if (
      code === 'ECONNREFUSED' ||
      code === 'ECONNRESET' ||
      code === '57P01' ||
      code === '57P02' ||
      code === '57P03' ||
      code === '08006' ||
      code === '08001' ||
      code === '08003' ||
      /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(
        message,
      )
    ) {
      return true;
    }
  }
  return false;
}

/**
 * The one error handler: AppError and Fastify's errors become the envelope with their status; any
 * other error is logged with the request id and answered 500 INTERNAL_ERROR without internals.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    let appError = toAppError(err);
    if (!appError && isDataException(err)) {
      request.log.info({ err: { message: err.message } }, 'refused data the database cannot store');
      appError = new AppError('VALIDATION_ERROR', [
        { field: 'body', problem: 'contains characters or values that cannot be stored' },
      ]);
    }
    if (!appError && isDatabaseUnavailable(err)) {
      request.log.warn({ err: { message: err.message, code: err.code } }, 'database unavailable');
      appError = new AppError('SERVICE_UNAVAILABLE');
    }
    if (!appError) {
      request.log.error({ err }, 'unhandled error');
      appError = new AppError('INTERNAL_ERROR');
    }
    if (appError.code === 'TOO_MANY_REQUESTS' && !reply.hasHeader('retry-after'))
      reply.header('retry-after', '1');
    void reply.status(appError.status).send(errorBody(appError.code, appError.details));
  });
  app.setNotFoundHandler((_request, reply) => {
    void reply.status(404).send(errorBody('NOT_FOUND'));
  });
}
