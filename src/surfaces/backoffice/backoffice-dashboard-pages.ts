import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { PathParam } from '../../platform/sessions/index.js';
import { needs, SESSION_COOKIE } from './backoffice-session.js';
import { render } from './console-pages.js';
import type { ConsoleServices } from './console-services.js';
import type { Dashboard } from './dashboard.js';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
// A Map, not an object: a name such as `__proto__` must find nothing.
const SCRIPTS = new Map([
  ['dashboard.js', readFileSync(here('./assets/dashboard.js'))],
  ['queue-keys.js', readFileSync(here('./assets/queue-keys.js'))],
]);
/** Seconds between two pushes of the figures, and how long one stream stays open (EventSource reconnects). */
const PUSH_SECONDS = 5;
const STREAM_SECONDS = 300;
/**
 * Seconds between two checks that the stream's session still stands: a revoked session, a disabled
 * operator or an address taken off the allowlist ends the stream within this (docs/decisions.md:
 * two-factor and sessions), well inside 5 s.
 */
const SESSION_CHECK_SECONDS = 2;

/** "12 min", "3 h 5 min": how long the oldest item of a queue has waited; `units` as `s|min|h`. */
export function ageText(seconds: number | null, units = 's|min|h'): string {
  const [s, min, h] = units.split('|');
  if (seconds === null) return '—';
  if (seconds < 60) return `${seconds} ${s}`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 60 ? `${minutes} ${min}` : `${Math.floor(minutes / 60)} ${h} ${minutes % 60} ${min}`;
}

/**
 * The console's landing page (docs/decisions.md section 32): the dashboard, and its Server-Sent Events stream
 * (`event: figures`, every 5 s, for 5 minutes a connection, ended within SESSION_CHECK_SECONDS once
 * its session is revoked or its operator disabled: `sessionAlive` answers for the session's cookie
 * token and the client's address).
 */
export function dashboardPages(
  pages: App,
  deps: { dashboard: Dashboard; sessionAlive: (token: string, ip: string) => Promise<boolean> },
) {
  // Open streams, ended when the server closes (a hijacked answer is not Fastify's to end).
  const streams = new Set<() => void>();
  pages.addHook('preClose', async () => {
    for (const stop of [...streams]) stop();
  });
  pages.get(
    '/backoffice/assets/:script',
    { schema: { params: Type.Object({ script: PathParam }) } },
    async (request, reply) => {
      const script = SCRIPTS.get(request.params.script);
      if (!script) throw new AppError('NOT_FOUND');
      return reply
        .header('content-type', 'text/javascript; charset=utf-8')
        .header('cache-control', 'public, max-age=300')
        .send(script);
    },
  );

  pages.get('/backoffice/dashboard', { preValidation: needs('orders.read') }, async (request, reply) => {
    return render(request, reply, 'dashboard.eta', { f: await deps.dashboard.figures(), age: ageText });
  });

  pages.get(
    '/backoffice/dashboard/stream',
    { preValidation: needs('orders.read') },
    async (request, reply) => {
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        // Proxies (nginx) must pass each event on at once.
        'x-accel-buffering': 'no',
      });
      let open = true;
      let timer: NodeJS.Timeout | undefined;
      let watch: NodeJS.Timeout | undefined;
      let end: NodeJS.Timeout | undefined;
      const token = request.cookies[SESSION_COOKIE] ?? '';
      const check = async () => {
        const alive = await deps.sessionAlive(token, request.ip).catch(() => false);
        if (!alive) stop();
        return alive;
      };
      const push = async () => {
        if (!(await check())) return;
        try {
          const figures = await deps.dashboard.figures();
          if (open) res.write(`event: figures\ndata: ${JSON.stringify(figures)}\n\n`);
        } catch (err) {
          request.log.warn({ err }, 'dashboard figures failed');
          if (open) res.write(': figures unavailable\n\n');
        }
      };
      res.write(`retry: ${PUSH_SECONDS * 1000}\n\n`);
      await push();
      // Timers never hold the process open, and the stream ends with its connection or the server.
      if (!open) return;
      timer = setInterval(() => void push(), PUSH_SECONDS * 1000).unref();
      watch = setInterval(() => void check(), SESSION_CHECK_SECONDS * 1000).unref();
      end = setTimeout(() => stop(), STREAM_SECONDS * 1000).unref();
      function stop() {
        if (!open) return;
        open = false;
        clearInterval(timer);
        clearInterval(watch);
        clearTimeout(end);
        streams.delete(stop);
        res.end();
      }
      streams.add(stop);
      res.on('close', stop);
      // The browser may have gone during the first push.
      if (res.destroyed || res.writableEnded) stop();
    },
  );
}

/** Webhook deliveries failing (the dashboard's tile): retrying after a failure, or given up. */
export function failingWebhookPages(pages: App, deps: { webhooks: ConsoleServices['webhooks'] }) {
  pages.get('/backoffice/webhooks', { preValidation: needs('orders.read') }, async (request, reply) => {
    const [pending, exhausted] = await Promise.all([
      deps.webhooks.list({ status: 'pending' }, 500),
      deps.webhooks.list({ status: 'exhausted' }, 200),
    ]);
    const list = [...pending.filter((d) => d.attempts > 0), ...exhausted];
    return render(request, reply, 'webhooks.eta', { list });
  });
}
