import type { MerchantRow } from '../modules/merchants/merchants-repository.js';

/** Who is acting in an admin request, for the audit trail. */
export interface AdminActor {
  name: string;
  ip: string;
  /** The operator's role (the bootstrap ADMIN_TOKEN acts as `admin`); absent for system actors. */
  role?: 'admin' | 'support' | 'payouts' | 'viewer';
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Exact bytes of a JSON body, for the signature (decisions.md section 4). */
    rawBody?: Buffer;
    /** Set when the body was not JSON or not an object: answered with INVALID_JSON after authentication. */
    bodyParseError?: boolean;
    /** The authenticated merchant of a `/merchant/*` request. */
    merchant?: MerchantRow;
    /** The API key of the request, kept for rate-limit keys. Never logged. */
    merchantKeyDigest?: string;
    adminActor?: AdminActor;
  }
}
