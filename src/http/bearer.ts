import type { FastifyRequest } from 'fastify';

/**
 * The token of an `Authorization: Bearer <token>` header, trimmed; '' when the header is missing or
 * of another scheme. Every bearer-authenticated surface (admin API, chain watcher, devices, metrics)
 * reads it here and compares it in constant time itself.
 */
export function bearerToken(request: FastifyRequest): string {
  const value = request.headers.authorization;
  return typeof value === 'string' && value.startsWith('Bearer ') ? value.slice(7).trim() : '';
}
