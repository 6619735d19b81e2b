import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { Clock } from './lib/clock.js';
import { createSecretBox } from './lib/secrets.js';
import { createAuditService } from './modules/audit/index.js';
import { createBanksService } from './modules/banks/index.js';
import { createCryptoService } from './modules/crypto/index.js';
import { createDevicesService } from './modules/devices/index.js';
import { createFormService } from './modules/form/index.js';
import { createLedgerService } from './modules/ledger/index.js';
import { createMerchantsService } from './modules/merchants/index.js';
import { createMetrics } from './modules/metrics/index.js';
import { createOperatorsService } from './modules/operators/index.js';
import {
  createClaim,
  createOrderLifecycle,
  createOrdersService,
  disableAfterExpiredStreak,
  requisiteLoads,
} from './modules/orders/index.js';
import { createOutboundGuard, type OutboundGuard } from './modules/outbound/index.js';
import { createPayoutsService } from './modules/payouts/index.js';
import { createPoolService } from './modules/pool/index.js';
import { createRateLimits, redisLimiters } from './modules/rate-limits/index.js';
import { createRatesService } from './modules/rates/index.js';
import { createReceiptsService, type ReceiptStorage } from './modules/receipts/index.js';
import { createRequisitesService } from './modules/requisites/index.js';
import { createWebhookDispatcher, createWebhooksService } from './modules/webhooks/index.js';

/**
 * Every service of a process, built from the configuration and the database: the one place where
 * the modules are wired to each other (docs/architecture.md). Used by the HTTP app (app.ts) and by
 * the worker (worker.ts).
 */
export function createServices(deps: {
  config: Config;
  database: Database;
  clock: Clock;
  receiptStorage: ReceiptStorage;
  guard?: OutboundGuard;
  log?: FastifyBaseLogger;
}) {
  const { config, database, clock } = deps;
  const metrics = createMetrics({ poolStats: () => database.poolStats() });
  const merchants = createMerchantsService({
    database,
    secretBox: createSecretBox(config.secretKey),
    clock,
    maxAmountDeviation: config.maxAmountDeviation,
  });
  const banks = createBanksService({ database });
  const rates = createRatesService({ database, clock, maxAgeSeconds: config.rateMaxAgeSeconds });
  const ledger = createLedgerService({ database });
  const requisites = createRequisitesService({
    database,
    clock,
    banks,
    loads: (ids, now) => requisiteLoads(database.db, ids, now),
  });
  const guard = deps.guard ?? createOutboundGuard({ allowlist: config.outboundAllowlist });
  const dispatcher = createWebhookDispatcher({
    database,
    clock,
    guard,
    apiKeyFor: (merchantId) => merchants.currentApiKey(merchantId),
    batchSize: config.webhookBatchSize,
    loops: config.webhookLoops,
    onAttempt: (r) =>
      metrics.webhookAttempt(
        r.status === 'delivered' ? 'delivered' : r.status === 'exhausted' ? 'exhausted' : 'retry',
      ),
    ...(deps.log ? { log: deps.log } : {}),
  });
  const webhooks = createWebhooksService({ database, clock, onEnqueued: () => dispatcher.wake() });
  metrics.gauge(
    'webhook_outbox_lag_seconds',
    'Age of the oldest due, undelivered webhook (0 when none)',
    () => webhooks.outboxLagSeconds(),
  );
  const lifecycle = createOrderLifecycle({
    successHooks: [webhooks.enqueueOnSuccess],
    onFinished: (order, status) => metrics.orderFinished(order.type, order.direction, status),
    afterExpiry: (ex, expired) => disableAfterExpiredStreak(ex, expired, config.requisiteExpiredStreak),
  });
  const receipts = createReceiptsService({ database, clock, storage: deps.receiptStorage, guard });
  const crypto = createCryptoService({
    database,
    clock,
    rates,
    lifecycle,
    manualCreditMaxRatio: config.manualCreditMaxRatio,
  });
  const pool = createPoolService({ database, clock });
  const devices = createDevicesService({ database, clock, lifecycle });
  const payouts = createPayoutsService({ database, clock, banks, lifecycle, proofs: receipts });
  const orders = createOrdersService({
    database,
    clock,
    rates,
    lifecycle,
    claim: createClaim(database.db),
    publicBaseUrl: config.publicBaseUrl,
    modes: {
      crypto: { create: crypto.createPayin, confirm: crypto.operatorConfirm },
      payout: { create: payouts.create, markSent: payouts.markSent },
    },
    takeOffer: pool.takeOffer,
    onCreated: (type, direction) => metrics.orderCreated(type, direction),
  });
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1 }) : undefined;
  redis?.on('error', (err) =>
    deps.log?.warn({ err: { message: err.message } }, 'redis unavailable: rate limits per process'),
  );
  const rateLimits = createRateLimits({
    enabled: config.rateLimits,
    onReject: (endpoint) => metrics.rateLimited(endpoint),
    ...(redis ? { factory: redisLimiters(redis) } : {}),
  });
  return {
    audit: createAuditService({ database }),
    banks,
    crypto,
    database,
    devices,
    dispatcher,
    form: createFormService({ database, clock, receipts }),
    guard,
    ledger,
    merchants,
    metrics,
    operators: createOperatorsService({ database, clock }),
    orders,
    payouts,
    pool,
    rateLimits,
    rates,
    receipts,
    redis,
    requisites,
    webhooks,
  };
}

export type Services = ReturnType<typeof createServices>;
