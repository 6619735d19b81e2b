import type { FastifyServerOptions } from 'fastify';
import { maskDigits, maskLogRecord } from '../lib/log-mask.js';

/** Log options: JSON lines, request id on each, secrets and card data never written. */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    formatters: {
      log: (record: Record<string, unknown>) => maskLogRecord(record) as Record<string, unknown>,
    },
    serializers: {
      req: (req: { method: string; url: string; ip?: string }) => ({
        method: req.method,
        url: maskDigits(req.url),
        remoteAddress: req.ip,
      }),
    },
    redact: {
      paths: [
        'req.headers["client-api-key"]',
        'req.headers["x-api-key"]',
        'req.headers.authorization',
        'req.headers.cookie',
      ],
      censor: '[redacted]',
    },
  };
}
