import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_STATUS, type ErrorCode, type ErrorDetail } from '../lib/errors.js';
import { errorHeaders, resolveError } from './error-mapping.js';

/** The error envelope of every endpoint (docs/decisions.md section 2). */
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

/** A minimal HTML page for an error met before any page's own renderer (e.g. a malformed URL). */
export function plainErrorPage(code: ErrorCode): string {
  return `<!doctype html><html lang="en"><meta charset="utf-8"><title>${ERROR_STATUS[code]} ${code}</title><p>${ERROR_STATUS[code]} ${code}</p></html>`;
}

/**
 * Logs a failure as resolveError classified it: internal errors with the stack (and the request
 * id, by the request logger), the rest in one line without internals.
 */
export function logFailure(request: FastifyRequest, err: unknown, kind: string): void {
  const e = err as FastifyError;
  if (kind === 'internal') request.log.error({ err }, 'unhandled error');
  else if (kind === 'unavailable')
    request.log.warn({ err: { message: e.message, code: e.code } }, 'database unavailable');
  else if (kind === 'client-data')
    request.log.info({ err: { message: e.message } }, 'refused data the database cannot store');
}

/**
 * The JSON error handler (merchant and admin API): every error becomes the envelope with the status
 * and headers resolveError gives it; a 5xx never carries internals.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const { error, kind } = resolveError(err);
    logFailure(request, err, kind);
    void reply.headers(errorHeaders(error)).status(error.status).send(errorBody(error.code, error.details));
  });
  app.setNotFoundHandler((_request, reply) => {
    void reply.status(404).send(errorBody('NOT_FOUND'));
  });
}
