import type { FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors.js';

/** Who is acting in an admin request, for the audit trail. */
export interface AdminActor {
  name: string;
  ip: string;
  /** The operator's role (the bootstrap ADMIN_TOKEN acts as `admin`); absent for system actors. */
  role?: 'admin' | 'support' | 'payouts' | 'viewer';
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Exact bytes of a JSON body, for the signature (docs/decisions.md section 4). */
    rawBody?: Buffer;
    /** Set when the body was not JSON or not an object: answered with INVALID_JSON after authentication. */
    bodyParseError?: boolean;
    /** The API key of the request, kept for rate-limit keys. Never logged. */
    merchantKeyDigest?: string;
    adminActor?: AdminActor;
  }
}

/** The acting operator of an admin request; only valid behind the admin auth hook (401 otherwise). */
export function actorOf(request: FastifyRequest): AdminActor {
  if (!request.adminActor) throw new AppError('UNAUTHORIZED');
  return request.adminActor;
}

/** How an operator appears in an order's timeline and audit: operator accounts already carry their prefix. */
export function eventActor(actor: AdminActor): string {
  return actor.name.includes(':') ? actor.name : `operator:${actor.name}`;
}
