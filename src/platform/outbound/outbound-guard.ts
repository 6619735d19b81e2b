import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Agent } from 'undici';
import { undici as loadUndici } from '../../lib/lazy-require.js';
import { type Allowlist, allowlistedAddress, allowlistedHost, isPublicAddress } from './address-policy.js';

/** Resolves a host name to its addresses; tests pass their own (never real DNS in tests). */
export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** A destination the guard refused: a private, local or otherwise non-public address. */
export class ForbiddenAddressError extends Error {
  override name = 'ForbiddenAddressError';
  readonly code = 'OUTBOUND_FORBIDDEN_ADDRESS';
}

export interface OutboundGuard {
  /**
   * The address to connect to for `host` (a name or an IP literal, brackets allowed): every resolved
   * address must be public or allowlisted; the first is returned so the connection goes to the very
   * address that was checked (no second lookup, so DNS rebinding cannot swap it).
   * Throws ForbiddenAddressError.
   */
  resolve(host: string): Promise<string>;
  /**
   * An undici dispatcher that applies `resolve` at connect time, for every connection it opens.
   * Made (and undici loaded) at its first use: a start sends nothing.
   */
  readonly dispatcher: Agent;
  /** Closes the dispatcher's connections, if it was ever made. */
  close(): Promise<void>;
}

/**
 * The outbound address guard shared by webhooks and receipt URLs (docs/decisions.md section 17).
 * `connectTimeoutMs` bounds TCP+TLS setup.
 */
export function createOutboundGuard(options: {
  allowlist: Allowlist;
  resolver?: Resolver;
  connectTimeoutMs?: number;
  connections?: number;
}): OutboundGuard {
  const { allowlist } = options;
  const resolver = options.resolver ?? systemResolver;

  async function resolve(hostInput: string): Promise<string> {
    const host = hostInput.replace(/^\[|\]$/g, '');
    const hostAllowed = allowlistedHost(allowlist, host);
    const addresses = isIP(host) ? [host] : await resolver(host);
    if (addresses.length === 0) throw new ForbiddenAddressError(`${host} has no address`);
    for (const address of addresses) {
      if (!hostAllowed && !allowlistedAddress(allowlist, address) && !isPublicAddress(address)) {
        throw new ForbiddenAddressError(`${host} resolves to a non-public address`);
      }
    }
    return addresses[0] as string;
  }

  let made: Agent | undefined;
  const makeDispatcher = (): Agent => {
    const undici = loadUndici();
    const connect = undici.buildConnector({ timeout: options.connectTimeoutMs ?? 10_000 });
    return new undici.Agent({
      connections: options.connections ?? 64,
      keepAliveTimeout: 4_000,
      connect: (opts, callback) => {
        resolve(opts.hostname).then(
          (address) =>
            connect(
              {
                ...opts,
                hostname: address,
                servername: isIP(opts.hostname.replace(/^\[|\]$/g, '')) ? undefined : opts.hostname,
              },
              callback,
            ),
          (err: Error) => callback(err, null),
        );
      },
    });
  };
  return {
    resolve,
    get dispatcher() {
      made ??= makeDispatcher();
      return made;
    },
    close: async () => {
      await made?.close();
    },
  };
}
