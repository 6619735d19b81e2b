import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Prometheus metrics of one process (issue 10 section 3), on a registry of its own so that several
 * apps in one process (tests) never collide. Scraped at `GET /metrics`.
 */
export function createMetrics(deps: {
  /** Connections of the database pool (zeros on PGlite). */
  poolStats: () => { total: number; idle: number; waiting: number };
}) {
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
    name: 'db_pool_connections',
    help: 'Database pool connections by state (total, idle, waiting)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const s = deps.poolStats();
      this.set({ state: 'total' }, s.total);
      this.set({ state: 'idle' }, s.idle);
      this.set({ state: 'waiting' }, s.waiting);
    },
  });

  return {
    registry,
    /**
     * A gauge whose value a module reads when Prometheus scrapes (e.g. the webhook outbox lag from
     * the webhooks module, which owns that table).
     */
    gauge(name: string, help: string, read: () => Promise<number>) {
      new Gauge({
        name,
        help,
        registers: [registry],
        async collect() {
          this.set(await read());
        },
      });
    },
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
