import { createRequire } from 'node:module';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { Clock } from './lib/clock.js';
import { createSecretBox } from './lib/secrets.js';
import { createBankRules } from './modules/bank-rules/index.js';
import { createBanksService } from './modules/banks/index.js';
import {
  createHolderOwnActions,
  createHoldersService,
  createHolderUsers,
  holderClaimGate,
} from './modules/holders/index.js';
import { createLedgerService } from './modules/ledger/index.js';
import { createMerchantsService } from './modules/merchants/index.js';
import { createOperatorsService } from './modules/operators/index.js';
import {
  createOrderLifecycle,
  createOrdersService,
  orderInfo,
  orderQueries,
  requisiteLoads,
} from './modules/orders/index.js';
import { createPoolService } from './modules/pool/index.js';
import { buildRateSources, createRatesRefresh, createRatesService } from './modules/rates/index.js';
import { createRequisitesService } from './modules/requisites/index.js';
import { createAuditService } from './platform/audit/index.js';
import { createMetrics } from './platform/metrics/index.js';
import { createOutboundGuard, type OutboundGuard } from './platform/outbound/index.js';
import { createRateLimits, redisLimiters } from './platform/rate-limits/index.js';
import { createAppealsService } from './rails/appeals/index.js';
import { chainSources, createChainsService, type SourceFactory } from './rails/chains/index.js';
import { createCryptoService } from './rails/crypto/index.js';
import {
  createDeviceAdmin,
  createDeviceIngest,
  createDevicePairing,
  createDeviceReview,
  createDevicesService,
  createHolderDesk,
  createLivenessSweep,
  createRuleReview,
  deviceCounts,
} from './rails/devices/index.js';
import { createPayoutsService } from './rails/payouts/index.js';
import { createReceiptsService, type ReceiptStorage } from './rails/receipts/index.js';
import { createSandboxService } from './rails/sandbox/index.js';
import {
  createEventSubscriptions,
  createWebhookDispatcher,
  createWebhooksService,
} from './rails/webhooks/index.js';
import { createFormService } from './surfaces/form/index.js';
import { createHolderPage } from './surfaces/holder/index.js';
import { createPortalService, createPortalUsers } from './surfaces/portal/index.js';

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
  /** The chain watchers' sources (tests give loopback fakes' settings through the same factory). */
  chainSources?: SourceFactory;
  log?: FastifyBaseLogger;
}) {
  const { config, database, clock } = deps;
  const metrics = createMetrics({ poolStats: () => database.poolStats() });
  const secretBox = createSecretBox(config.secretKey);
  const merchants = createMerchantsService({
    database,
    secretBox,
    clock,
    maxAmountDeviation: config.maxAmountDeviation,
    allowlist: config.outboundAllowlist,
  });
  const banks = createBanksService({ database });
  const rates = createRatesService({
    database,
    clock,
    maxAgeSeconds: config.rateMaxAgeSeconds,
    sourceMaxAgeSeconds: { cbr: config.rateCbrMaxAgeSeconds },
    markupPayinPercent: config.rateMarkupPayinPercent,
    operatorMaxDeviation: config.rateOperatorMaxDeviation,
  });
  const rateRefresh = createRatesRefresh({
    rates,
    clock,
    sources: buildRateSources({
      names: config.rateSources,
      urls: config.rateSourceUrls,
      marketMaxAgeSeconds: config.rateMaxAgeSeconds,
      cbrMaxAgeSeconds: config.rateCbrMaxAgeSeconds,
      intervalSeconds: config.rateSourcesIntervalSeconds,
    }),
  });
  // Rate staleness alert (docs/decisions.md section 22): the freshest source's age per pair, the stale pairs.
  metrics.labelledGauge(
    'rate_source_age_seconds',
    "Age of each pair's freshest source quote (USDT/RUB...)",
    'pair',
    () => rates.sourceAges(),
  );
  metrics.gauge(
    'rate_stale_pairs',
    'Pairs without a fresh rate (no unexpired operator rate, no fresh source)',
    () => rates.stalePairs(),
  );
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
    apiKeyFor: (merchantId, mode) => merchants.currentApiKey(merchantId, mode),
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
  // docs/decisions.md section 26: the merchant's event subscriptions, written with each move through the outbox.
  const eventSubscriptions = createEventSubscriptions({
    database,
    clock,
    allowlist: config.outboundAllowlist,
    orderObject: (o) => orderInfo(o, clock.now(), config.publicBaseUrl, null),
    onEnqueued: () => dispatcher.wake(),
  });
  // Holders' money (docs/decisions.md "Holders' money"): a confirmed fiat PAYIN posts what the
  // holder's card received, in the lifecycle's transaction, once per order.
  const holders = createHoldersService({
    database,
    clock,
    pendingOf: (ids) => orderQueries.holderPendingSums(database.db, ids),
    // Settlements' proof files go through the receipts' checks and storage (docs/decisions.md
    // "Settlement proofs"); `receipts` is built below and read only when a request comes.
    proofs: {
      keep: async (upload) => receipts.keepProof(upload),
      remove: async (proof) => receipts.removeProof(proof),
      open: (key) => deps.receiptStorage.open(key),
    },
  });
  const lifecycle = createOrderLifecycle({
    successHooks: [webhooks.enqueueOnSuccess, holders.creditOnSuccess],
    moveHooks: [eventSubscriptions.onMoves],
    onFinished: (order, status) => metrics.orderFinished(order.type, order.direction, status),
    expiredStreak: config.requisiteExpiredStreak,
  });
  const receipts = createReceiptsService({
    database,
    clock,
    storage: deps.receiptStorage,
    guard,
    onDecided: (ex, order, receipt) =>
      eventSubscriptions.emit(ex, {
        type: receipt.status === 'accepted' ? 'receipt.accepted' : 'receipt.rejected',
        order,
        extra: { receipt: { id: receipt.id, status: receipt.status, reason: receipt.reason } },
      }),
  });
  // docs/decisions.md section 27: late-payment claims, resolved by operators through the lifecycle.
  const appeals = createAppealsService({
    database,
    clock,
    receipts,
    lifecycle,
    emit: eventSubscriptions.emit,
    deadlineHours: config.appealDeadlineHours,
    windowDays: config.appealWindowDays,
  });
  const crypto = createCryptoService({
    database,
    clock,
    rates,
    lifecycle,
    manualCreditMaxRatio: config.manualCreditMaxRatio,
    chainCreditMaxRatio: config.chainCreditMaxRatio,
  });
  const chainErrors = metrics.counter('chain_watcher_errors_total', 'Chain watcher loop errors', ['chain']);
  const chainTransfers = metrics.counter(
    'chain_transfers_total',
    'Transfers settled by the chain watchers, by outcome (credited, partial, late, unmatched, review, dropped)',
    ['chain', 'outcome'],
  );
  const chainAlerts = metrics.counter('chain_alerts_total', 'Chain alerts: reorged_after_credit', [
    'chain',
    'kind',
  ]);
  const chains = createChainsService({
    database,
    clock,
    secretBox,
    env: config.chains,
    ledger: crypto.chainTransfers,
    sources: deps.chainSources ?? chainSources,
    dropAfterSeconds: config.chainDropAfterSeconds,
    events: {
      onError: (chain) => chainErrors({ chain }),
      onTransfer: (chain, outcome) => chainTransfers({ chain, outcome }),
      onAlert: (chain, kind, detail) => {
        chainAlerts({ chain, kind });
        deps.log?.error({ chain, ...detail }, 'chain reorg removed a credited transfer: check the order');
      },
    },
  });
  metrics.labelledGauge(
    'chain_lag_blocks',
    'Blocks between each chain head and its watcher cursor',
    'chain',
    async () => (await chains.health()).lag,
  );
  metrics.labelledGauge(
    'chain_watcher_alert',
    '1 when a chain watcher lags past its limit, its provider fails, or it has been silent',
    'chain',
    async () => (await chains.health()).alert,
  );
  const pool = createPoolService({ database, clock });
  const devices = createDevicesService({ database, clock, lifecycle });
  const bankRules = createBankRules({
    database,
    clock,
    refreshMs: config.learnedRules.refreshMs,
    ...(config.learnedRules.corpusDir ? { corpusDir: config.learnedRules.corpusDir } : {}),
  });
  const deviceIngest = createDeviceIngest({
    database,
    clock,
    secretBox,
    lifecycle,
    // The reader consults the active rules learned from the review queue as rules of their bank.
    banks: { ...banks, messageFormats: async () => bankRules.withLearned(await banks.messageFormats()) },
    forwarderNeedsOperator: config.smsForwarderNeedsOperator,
    metrics: metrics.devices,
  });
  const deviceAdmin = createDeviceAdmin({ database, clock, secretBox, publicBaseUrl: config.publicBaseUrl });
  const devicePairing = createDevicePairing({ database, clock, publicBaseUrl: config.publicBaseUrl });
  const deviceReview = createDeviceReview({ database, clock, lifecycle });
  const ruleReview = createRuleReview({ database, clock, bankRules, review: deviceReview });
  const sweepLiveness = createLivenessSweep({
    database,
    clock,
    metrics: metrics.devices,
    onOffline: (device, requisiteIds) =>
      deps.log?.warn({ device: device.name, requisiteIds }, 'device offline: its requisites are paused'),
  });
  const counts = deviceCounts({ database, clock });
  metrics.labelledGauge('devices', 'Devices by state', 'state', () => counts.byState());
  metrics.gauge(
    'device_review_queue_age_seconds',
    'Age of the oldest device message waiting for an operator (0 when none)',
    () => counts.reviewQueueAgeSeconds(),
  );
  const payouts = createPayoutsService({ database, clock, banks, lifecycle, proofs: receipts, holders });
  const orders = createOrdersService({
    database,
    clock,
    rates,
    lifecycle,
    publicBaseUrl: config.publicBaseUrl,
    modes: {
      crypto: { create: crypto.createPayin, confirm: crypto.operatorConfirm },
      payout: { create: payouts.create, markSent: payouts.markSent },
    },
    takeOffer: pool.takeOffer,
    onCreated: (type, direction) => metrics.orderCreated(type, direction),
    // Holders' limits count in the claim (docs/decisions.md "Holders' limits in the claim").
    holderGate: holderClaimGate,
  });
  // docs/decisions.md section 29: test keys' orders driven to each outcome through the same lifecycle.
  const sandbox = createSandboxService({ database, clock, lifecycle, orders, crypto, receipts });
  // ioredis is loaded only when REDIS_URL is set (a start without it does not pay for the module).
  const redis = config.redisUrl
    ? new (createRequire(import.meta.url)('ioredis') as typeof import('ioredis')).Redis(config.redisUrl, {
        maxRetriesPerRequest: 1,
      })
    : undefined;
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
    clock,
    banks,
    crypto,
    database,
    deviceAdmin,
    deviceIngest,
    devicePairing,
    deviceReview,
    ruleReview,
    devices,
    dispatcher,
    form: createFormService({
      database,
      clock,
      receipts,
      appeals,
      sandbox,
      // The wallet QR names the token the operator's watcher follows (a test network's, if set).
      walletTarget: async (network) => {
        const chain = (await chains.list()).find((c) => c.network === network);
        return { tokenContract: chain?.token_contract ?? null, chainId: chain?.chain_id ?? null };
      },
    }),
    portalUsers: createPortalUsers({ database, clock, secretBox }),
    portal: createPortalService({
      database,
      clock,
      orders,
      receipts,
      webhooks,
      ledger,
      merchants,
      appeals,
      sandbox,
      subscriptions: eventSubscriptions,
      publicBaseUrl: config.publicBaseUrl,
      secretBox,
    }),
    guard,
    holders,
    holderUsers: createHolderUsers({ database, clock, secretBox, publicBaseUrl: config.publicBaseUrl }),
    // The holder's own page (docs/decisions.md "The holder's own page").
    holderPage: createHolderPage({
      holders,
      own: createHolderOwnActions({ database, clock }),
      desk: createHolderDesk({ database, clock }),
      receipts,
      payouts,
      clock,
    }),
    ledger,
    merchants,
    metrics,
    operators: createOperatorsService({ database, clock, secretBox }),
    orders,
    payouts,
    chains,
    pool,
    rateLimits,
    rateRefresh,
    rates,
    receipts,
    redis,
    requisites,
    sweepLiveness,
    webhooks,
    eventSubscriptions,
    appeals,
    sandbox,
  };
}

export type Services = ReturnType<typeof createServices>;
