import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** Exact bytes received. */
  body: Buffer;
  at: number;
}

/**
 * A real HTTP receiver on a loopback port for webhook and receipt-URL tests. `respond` decides each
 * answer (default 200 "ok"); every request is recorded.
 */
export async function startReceiver(
  respond: (
    req: ReceivedRequest,
    index: number,
  ) => {
    status: number;
    body?: string | Buffer;
    delayMs?: number;
    headers?: Record<string, string>;
  } = () => ({ status: 200, body: 'ok' }),
  host = '127.0.0.1',
): Promise<{
  url: string;
  port: number;
  received: ReceivedRequest[];
  close(): Promise<void>;
  server: Server;
}> {
  const received: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const record = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        at: Date.now(),
      };
      const index = received.push(record) - 1;
      const answer = respond(record, index);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}`,
    port,
    received,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
