/**
 * `payment-orders listen`: a local endpoint that prints every event and success webhook that reaches
 * it, verified against your keys, one JSON line each. What a merchant reaches for first when wiring
 * up webhooks: point a subscription (or a success_callback_url) at it and watch.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EVENT_TYPES } from './events.js';
import { verifyWebhook } from './signature.js';

/** One arrival, as `listen` prints it. */
export interface Arrival {
  /** When it arrived, ISO 8601. */
  at: string;
  path: string;
  /** Signed by one of the given keys (the answer was 200; otherwise 401, and the service retries). */
  verified: boolean;
  /** `event` (a subscription's) or `success_webhook` (the contract's), by the body's `type`. */
  kind: 'event' | 'success_webhook' | 'unknown';
  type: string | null;
  id: string | null;
  /** Events only: false for a sandbox order's. */
  livemode: boolean | null;
  body: unknown;
}

const MAX_BODY = 1024 * 1024;

function describe(raw: Buffer): Omit<Arrival, 'at' | 'path' | 'verified'> {
  let body: unknown = raw.toString('utf8');
  try {
    body = JSON.parse(String(body));
  } catch {
    return { kind: 'unknown', type: null, id: null, livemode: null, body };
  }
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const type = typeof b.type === 'string' ? b.type : null;
  const isEvent = type !== null && (EVENT_TYPES as readonly string[]).includes(type);
  return {
    kind: isEvent ? 'event' : b.status === 'success' ? 'success_webhook' : 'unknown',
    type,
    id: typeof b.id === 'string' ? b.id : null,
    livemode: typeof b.livemode === 'boolean' ? b.livemode : null,
    body,
  };
}

/**
 * Listens on `host:port` (default 127.0.0.1, port 0: any free one) and calls `onArrival` for every
 * POST. Bodies over 1 MB get 413. Resolves once listening, with the URL and a `close`.
 */
export async function startListener(options: {
  port?: number;
  host?: string;
  keys: readonly string[];
  onArrival: (arrival: Arrival) => void;
}): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY) {
        res.writeHead(413).end();
        return;
      }
      const raw = Buffer.concat(chunks);
      const signature = req.headers['x-api-key'];
      const header = Array.isArray(signature) ? signature[0] : signature;
      const verified = options.keys.some((key) => verifyWebhook(raw, header, key));
      options.onArrival({ at: new Date().toISOString(), path: req.url ?? '/', verified, ...describe(raw) });
      res.writeHead(verified ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: verified }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
