import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Prometheus metrics of one process (docs/api.md "Operations"), on a registry of its own so that several
 * apps in one process (tests) never collide. Scraped at `GET /metrics`. The service's own counters
 * (requests, orders, webhooks, rate limits), the devices' counters, the database pool, and the
 * gauges and counters other modules register.
 */
export function createMetrics(deps: {
  /** Connections of the database pool (zeros on PGlite). */
  poolStats: () => { total: number; idle: number; waiting: number };
}) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  poolGauge(registry, deps.poolStats);
  return {
    registry,
    ...moduleMetrics(registry),
    /** The devices module's counters. */
    devices: deviceCounters(registry),
    ...serviceCounters(registry),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** `db_pool_connections` by state, read from the pool at each scrape. */
function poolGauge(
  registry: Registry,
  poolStats: () => { total: number; idle: number; waiting: number },
): void {
  new Gauge({
    name: 'db_pool_connections',
    help: 'Database pool connections by state (total, idle, waiting)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const s = poolStats();
      this.set({ state: 'total' }, s.total);
      this.set({ state: 'idle' }, s.idle);
      this.set({ state: 'waiting' }, s.waiting);
    },
  });
}

/** What other modules register: gauges read at each scrape, and counters they increment. */
function moduleMetrics(registry: Registry) {
  return {
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
    /** A gauge with one label whose values a module reads when Prometheus scrapes (e.g. devices by state). */
    labelledGauge(name: string, help: string, label: string, read: () => Promise<Record<string, number>>) {
      new Gauge({
        name,
        help,
        labelNames: [label],
        registers: [registry],
        async collect() {
          this.reset();
          for (const [value, count] of Object.entries(await read())) this.set({ [label]: value }, count);
        },
      });
    },
    /** A counter with labels a module increments (e.g. the chain watchers' errors and transfers). */
    counter<L extends string>(name: string, help: string, labelNames: readonly L[]) {
      const c = new Counter({ name, help, labelNames: [...labelNames], registers: [registry] });
      return (labels: Record<L, string>) => c.inc(labels);
    },
  };
}

/** The devices module's counters: messages read, credits decided, alerts raised. */
function deviceCounters(registry: Registry) {
  const deviceMessages = new Counter({
    name: 'device_messages_total',
    help: 'Bank messages from devices by bank and parse outcome (parsed, unparsed, ambiguous)',
    labelNames: ['bank', 'parse'] as const,
    registers: [registry],
  });
  const deviceCredits = new Counter({
    name: 'device_credits_total',
    help: 'Device credits by outcome: confirmed (auto-confirmed), review, paired (SMS + push of one transfer)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const deviceAlerts = new Counter({
    name: 'device_alerts_total',
    help: 'Operator alerts from devices: block (requisite paused), unknown_source_block, offline',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  return {
    messageRead(bank: string, parse: 'parsed' | 'unparsed' | 'ambiguous') {
      deviceMessages.inc({ bank, parse });
    },
    creditDecided(outcome: 'confirmed' | 'review' | 'paired') {
      deviceCredits.inc({ outcome });
    },
    alert(kind: 'block' | 'unknown_source_block' | 'offline') {
      deviceAlerts.inc({ kind });
    },
  };
}

/** The service's own counters: HTTP requests and their latency, orders, webhook attempts, 429s. */
function serviceCounters(registry: Registry) {
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
  return {
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
