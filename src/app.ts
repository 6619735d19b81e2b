import { randomUUID } from 'node:crypto';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyReply, type FastifyServerOptions } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from './config.js';
import { CACHE_CHANNEL, type Database } from './db/database.js';
import { errorBody, plainErrorPage, registerErrorHandler } from './http/error-handler.js';
import { registerJsonBody } from './http/json-body.js';
import { openApiOptions } from './http/openapi.js';
import type { App } from './http/schemas.js';
import { createValidatorCompiler } from './http/validation.js';
import { type Clock, systemClock } from './lib/clock.js';
import { maskDigits, maskLogRecord } from './lib/log-mask.js';
import { createSecretBox } from './lib/secrets.js';
import './http/request-context.js';
import { createAdminAuth } from './modules/auth/admin-auth.js';
import { createMerchantAuth } from './modules/auth/merchant-auth.js';
import { backofficeRoutes } from './modules/backoffice/backoffice-routes.js';
import { banksAdminRoutes, banksRoutes } from './modules/banks/banks-routes.js';
import { createBanksService } from './modules/banks/banks-service.js';
import { chainRoutes, cryptoAdminRoutes } from './modules/crypto/crypto-routes.js';
import { createCryptoService } from './modules/crypto/crypto-service.js';
import { formRoutes } from './modules/form/form-routes.js';
import { createFormService } from './modules/form/form-service.js';
import { healthRoutes } from './modules/health/health-routes.js';
import { balanceRoutes } from './modules/ledger/balance-routes.js';
import { createLedgerService } from './modules/ledger/ledger-service.js';
import { merchantsAdminRoutes } from './modules/merchants/merchants-admin-routes.js';
import { createMerchantsService } from './modules/merchants/merchants-service.js';
import { createMetrics } from './modules/metrics/metrics.js';
import { operatorsAdminRoutes } from './modules/operators/operators-admin-routes.js';
import { createOperatorsService } from './modules/operators/operators-service.js';
import { createOrderLifecycle } from './modules/orders/order-lifecycle.js';
import { ordersAdminRoutes } from './modules/orders/orders-admin-routes.js';
import { ordersRoutes } from './modules/orders/orders-routes.js';
import { createOrdersService } from './modules/orders/orders-service.js';
import { createOutboundGuard, type OutboundGuard } from './modules/outbound/outbound-guard.js';
import { bankStandardsRoutes, payoutsAdminRoutes } from './modules/payouts/payouts-routes.js';
import { createPayoutsService } from './modules/payouts/payouts-service.js';
import { poolAdminRoutes, poolMerchantRoutes, traderRoutes } from './modules/pool/pool-routes.js';
import { createPoolService, disableRequisitesAfterExpiredStreak } from './modules/pool/pool-service.js';
import { createRateLimits, RATE_RULES, redisLimiters } from './modules/rate-limits/rate-limits.js';
import { ratesAdminRoutes } from './modules/rates/rates-admin-routes.js';
import { createRatesService } from './modules/rates/rates-service.js';
import { openReceiptStorage, type ReceiptStorage } from './modules/receipts/receipt-storage.js';
import { MULTIPART_LIMITS, receiptsAdminRoutes, receiptsRoutes } from './modules/receipts/receipts-routes.js';
import { createReceiptsService } from './modules/receipts/receipts-service.js';
import { requisitesAdminRoutes } from './modules/requisites/requisites-admin-routes.js';
import { createRequisitesService } from './modules/requisites/requisites-service.js';
import { createWebhookDispatcher } from './modules/webhooks/webhook-dispatcher.js';
import { webhooksAdminRoutes } from './modules/webhooks/webhooks-admin-routes.js';
import { createWebhooksService } from './modules/webhooks/webhooks-service.js';

export interface AppDeps {
  config: Config;
  database: Database;
  clock?: Clock;
  /** Replaces the receipt store (default: as the configuration says). */
  receiptStorage?: ReceiptStorage;
  /** Replaces the outbound guard (tests: a resolver that never asks real DNS). */
  guard?: OutboundGuard;
  /** Fastify logger options; false silences (tests). */
  logger?: FastifyServerOptions['logger'];
}

/** Every service of the process, built from its dependencies: the one place where wiring happens. */
export function createServices(deps: {
  config: Config;
  database: Database;
  clock: Clock;
  receiptStorage: ReceiptStorage;
  guard?: OutboundGuard;
  log?: FastifyBaseLogger;
}) {
  const { config, database, clock } = deps;
  const metrics = createMetrics(database);
  const secretBox = createSecretBox(config.secretKey);
  const merchants = createMerchantsService({
    database,
    secretBox,
    clock,
    maxAmountDeviation: config.maxAmountDeviation,
  });
  const banks = createBanksService({ database });
  const rates = createRatesService({ database, clock, maxAgeSeconds: config.rateMaxAgeSeconds });
  const ledger = createLedgerService({ database });
  const requisites = createRequisitesService({ database, clock, banks });
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
  const lifecycle = createOrderLifecycle([webhooks.enqueueOnSuccess], (order, status) =>
    metrics.orderFinished(order.type, order.direction, status),
  );
  const outboundAllowlist = config.outboundAllowlist;
  const crypto = createCryptoService({
    database,
    clock,
    rates,
    lifecycle,
    outboundAllowlist,
    manualCreditMaxRatio: config.manualCreditMaxRatio,
  });
  const pool = createPoolService({ database, clock, lifecycle });
  const payouts = createPayoutsService({ database, clock, banks, outboundAllowlist });
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1 }) : undefined;
  redis?.on('error', (err) =>
    deps.log?.warn({ err: { message: err.message } }, 'redis unavailable: rate limits per process'),
  );
  const rateLimits = createRateLimits({
    enabled: config.rateLimits,
    onReject: (endpoint) => metrics.rateLimited(endpoint),
    ...(redis ? { factory: redisLimiters(redis) } : {}),
  });
  const receipts = createReceiptsService({
    database,
    clock,
    storage: deps.receiptStorage,
    guard,
  });
  const orders = createOrdersService({
    database,
    clock,
    rates,
    lifecycle,
    publicBaseUrl: config.publicBaseUrl,
    outboundAllowlist,
    maxAmountDeviation: config.maxAmountDeviation,
    modes: {
      crypto: crypto.createPayin,
      confirmCrypto: crypto.operatorConfirm,
      payout: payouts.create,
      attachPayoutProof: (order, upload) => receipts.attachFile(order, upload, 'payout_proof'),
    },
    receiptStatuses: receipts.latestStatuses,
    onCreated: (type, direction) => metrics.orderCreated(type, direction),
    onExpired: (type, direction) => metrics.orderFinished(type, direction, 'error'),
    takeOffer: pool.takeOffer,
    afterExpiry: (ex, requisiteIds) =>
      disableRequisitesAfterExpiredStreak(ex, requisiteIds, config.requisiteExpiredStreak),
  });
  const form = createFormService({ database, clock, receipts });
  const operators = createOperatorsService({ database, clock });
  return {
    redis,
    metrics,
    database,
    form,
    operators,
    pool,
    merchants,
    banks,
    rates,
    ledger,
    requisites,
    orders,
    webhooks,
    dispatcher,
    guard,
    crypto,
    payouts,
    rateLimits,
    receipts,
  };
}

export type Services = ReturnType<typeof createServices>;

const isPayout = (body: unknown): boolean =>
  (body as { direction?: unknown } | undefined)?.direction === 'PAYOUT';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** Log options: JSON lines, request id on each, secrets and card data never written. */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    formatters: {
      log: (record: Record<string, unknown>) => maskLogRecord(record) as Record<string, unknown>,
    },
    serializers: {
      req: (req: { method: string; url: string; ip?: string }) => ({
        method: req.method,
        url: maskDigits(req.url),
        remoteAddress: req.ip,
      }),
    },
    redact: {
      paths: [
        'req.headers["client-api-key"]',
        'req.headers["x-api-key"]',
        'req.headers.authorization',
        'req.headers.cookie',
      ],
      censor: '[redacted]',
    },
  };
}

/** Builds the HTTP application (routes, auth, errors) over the given database. Does not listen. */
export async function buildApp(deps: AppDeps): Promise<{ app: App; services: Services }> {
  const clock = deps.clock ?? systemClock;
  const { config, database } = deps;
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit: config.bodyLimitBytes,
    // TRUST_PROXY: false, true, a hop count or proxy addresses (Fastify accepts each at run time).
    trustProxy: config.trustProxy as unknown as boolean,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: { coerceTypes: false } },
    // Path ids up to the longest order_id (128) and more are routed and validated by their schemas.
    routerOptions: { maxParamLength: 512 },
    // Malformed URLs and over-long path parameters get the error envelope too (with a request id).
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      const code = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'VALIDATION_ERROR' : 'NOT_FOUND';
      const body = errorBody(code);
      const r = reply as unknown as FastifyReply;
      // The pages (console, form) answer pages, the API its envelope.
      if (/^\/(backoffice|form)(\/|$)/.test(request.url)) {
        void r.status(body.status).type('text/html; charset=utf-8').send(plainErrorPage(code));
      } else {
        void r.status(body.status).send(body);
      }
    },
  }).withTypeProvider<TypeBoxTypeProvider>() as App;

  app.setValidatorCompiler(createValidatorCompiler());
  await app.register(swagger, openApiOptions(config.publicBaseUrl));
  await app.register(swaggerUi, { routePrefix: '/docs' });
  registerJsonBody(app);
  registerErrorHandler(app);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  const receiptStorage = deps.receiptStorage ?? (await openReceiptStorage(config));
  const services = createServices({
    receiptStorage,
    config,
    database,
    clock,
    log: app.log,
    ...(deps.guard ? { guard: deps.guard } : {}),
  });
  const merchantAuth = createMerchantAuth(services.merchants);
  // Another process's admin change (key rotation, settings) reaches this one's caches at once.
  const stopListening = await database.listen(CACHE_CHANNEL, () => {
    services.merchants.invalidateCache();
    services.operators.invalidateCache();
  });
  app.addHook('onClose', async () => {
    await stopListening();
    await services.guard.dispatcher.close();
    await services.redis?.quit().catch(() => undefined);
  });

  const limits = services.rateLimits;
  const read = (endpoint: string) => limits.hook(endpoint, () => RATE_RULES.read);
  const createOrderLimits = [
    limits.hook('createOrder:PAYOUT', (r) => (isPayout(r.body) ? RATE_RULES.payout : undefined)),
    limits.hook('createOrder:PAYIN', (r) =>
      isPayout(r.body)
        ? undefined
        : { points: r.merchant?.payinRateLimitPerSecond ?? 10, durationSeconds: 1 },
    ),
  ];

  healthRoutes(app, { database, metrics: services.metrics, metricsToken: config.metricsToken });
  app.addHook('onResponse', async (request, reply) => {
    services.metrics.observeRequest(
      request.routeOptions.url ?? 'unmatched',
      request.method,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });
  ordersRoutes(app, {
    orders: services.orders,
    merchantAuth,
    limits: { createOrder: createOrderLimits, order: read('order'), orders: read('orders') },
  });
  balanceRoutes(app, { ledger: services.ledger, merchantAuth, rateLimit: read('balance') });
  banksRoutes(app, { banks: services.banks, merchantAuth, rateLimit: read('banks') });
  bankStandardsRoutes(app, { payouts: services.payouts, merchantAuth, rateLimit: read('bank-standards') });
  poolMerchantRoutes(app, { pool: services.pool, merchantAuth, rateLimit: read('pool-requisites') });
  traderRoutes(app, { pool: services.pool });
  receiptsRoutes(app, {
    receipts: services.receipts,
    orders: services.orders,
    merchantAuth,
    rateLimit: read('receipt-upload'),
  });
  chainRoutes(app, { crypto: services.crypto, watcherToken: config.chainWatcherToken });

  formRoutes(app, {
    form: services.form,
    receipts: services.receipts,
    frameAncestors: config.formFrameAncestors,
    limits: {
      page: limits.hook('form-page', () => RATE_RULES.formPage),
      status: limits.hook('form-status', () => RATE_RULES.formStatus),
      receipt: limits.hook('form-receipt', () => RATE_RULES.formReceipt),
    },
  });

  // Password guessing is limited whatever RATE_LIMITS says: a security control, not a merchant quota.
  const loginLimits = createRateLimits({ enabled: true });
  backofficeRoutes(app, {
    services,
    loginThrottle: loginLimits.failures('backoffice-login', RATE_RULES.login),
  });

  await app.register(async (admin: App) => {
    await admin.register(multipart, { limits: MULTIPART_LIMITS, throwFileSizeLimit: false });
    admin.addHook(
      'preValidation',
      createAdminAuth({ adminToken: config.adminToken, operators: services.operators }),
    );
    merchantsAdminRoutes(admin, { merchants: services.merchants, ledger: services.ledger });
    requisitesAdminRoutes(admin, { requisites: services.requisites });
    ratesAdminRoutes(admin, { rates: services.rates });
    ordersAdminRoutes(admin, { orders: services.orders, receipts: services.receipts });
    banksAdminRoutes(admin, { banks: services.banks });
    webhooksAdminRoutes(admin, { webhooks: services.webhooks });
    cryptoAdminRoutes(admin, { crypto: services.crypto });
    payoutsAdminRoutes(admin, { payouts: services.payouts });
    receiptsAdminRoutes(admin, { receipts: services.receipts });
    operatorsAdminRoutes(admin, { operators: services.operators, database });
    poolAdminRoutes(admin, { pool: services.pool });
  });

  return { app, services };
}
