import { sql } from 'drizzle-orm';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from '../../db/database.js';
import { rowsOf } from '../../db/database.js';

/**
 * Prometheus metrics of one process (issue 10 section 3), on a registry of its own so that several
 * apps in one process (tests) never collide. Scraped at `GET /metrics`.
 */
export function createMetrics(database: Database) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route and method',
    labelNames: ['route', 'method'] as const,
    buckets: [0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  const ordersCreated = new Counter({
    name: 'orders_created_total',
    help: 'Orders created, by type and direction',
    labelNames: ['type', 'direction'] as const,
    registers: [registry],
  });
  const ordersFinished = new Counter({
    name: 'orders_finished_total',
    help: 'Orders that reached success or error, by type, direction and status',
    labelNames: ['type', 'direction', 'status'] as const,
    registers: [registry],
  });
  const webhookAttempts = new Counter({
    name: 'webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome (delivered, retry, exhausted)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests answered 429, by endpoint',
    labelNames: ['endpoint'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'webhook_outbox_lag_seconds',
    help: 'Age of the oldest due, undelivered webhook (0 when none)',
    registers: [registry],
    async collect() {
      const rows = rowsOf<{ lag: string | null }>(
        await database.db.execute(
          sql`SELECT EXTRACT(EPOCH FROM (now() - min(next_attempt_at)))::float AS lag FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now()`,
        ),
      );
      this.set(Math.max(0, Number(rows[0]?.lag ?? 0)));
    },
  });
  new Gauge({
    name: 'db_pool_connections',
    help: 'Database pool connections by state (total, idle, waiting)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const s = database.poolStats();
      this.set({ state: 'total' }, s.total);
      this.set({ state: 'idle' }, s.idle);
      this.set({ state: 'waiting' }, s.waiting);
    },
  });

  return {
    registry,
    observeRequest(route: string, method: string, status: number, seconds: number) {
      httpRequests.inc({ route, method, status: String(status) });
      httpDuration.observe({ route, method }, seconds);
    },
    orderCreated(type: string, direction: string) {
      ordersCreated.inc({ type, direction });
    },
    orderFinished(type: string, direction: string, status: 'success' | 'error', count = 1) {
      ordersFinished.inc({ type, direction, status }, count);
    },
    webhookAttempt(outcome: 'delivered' | 'retry' | 'exhausted') {
      webhookAttempts.inc({ outcome });
    },
    rateLimited(endpoint: string) {
      rateLimited.inc({ endpoint });
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
