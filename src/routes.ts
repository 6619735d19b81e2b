import { readFileSync } from 'node:fs';
import multipart from '@fastify/multipart';
import type { Services } from './composition.js';
import type { Config } from './config.js';
import { MULTIPART_LIMITS } from './http/multipart.js';
import type { App } from './http/schemas.js';
import { createMerchantAuth } from './modules/auth/index.js';
import { banksAdminRoutes, banksRoutes } from './modules/banks/index.js';
import { holdersAdminRoutes } from './modules/holders/index.js';
import { balanceRoutes, ledgerAdminRoutes } from './modules/ledger/index.js';
import { merchantsAdminRoutes } from './modules/merchants/index.js';
import { createAdminAuth, operatorsAdminRoutes } from './modules/operators/index.js';
import { ordersAdminRoutes, ordersRoutes } from './modules/orders/index.js';
import { poolAdminRoutes, poolMerchantRoutes } from './modules/pool/index.js';
import { ratesAdminRoutes } from './modules/rates/index.js';
import { requisitesAdminRoutes } from './modules/requisites/index.js';
import { auditAdminRoutes } from './platform/audit/index.js';
import { healthRoutes } from './platform/health/index.js';
import { createRateLimits, RATE_RULES } from './platform/rate-limits/index.js';
import { appealsAdminRoutes, appealsRoutes } from './rails/appeals/index.js';
import { chainsAdminRoutes } from './rails/chains/index.js';
import { chainRoutes, cryptoAdminRoutes } from './rails/crypto/index.js';
import {
  deviceAdminRoutes,
  deviceEndpoints,
  devicesAdminRoutes,
  holderRoutes,
  learnedRuleRoutes,
} from './rails/devices/index.js';
import { bankStandardsRoutes, payoutsAdminRoutes } from './rails/payouts/index.js';
import { receiptsAdminRoutes, receiptsRoutes } from './rails/receipts/index.js';
import { sandboxRoutes } from './rails/sandbox/index.js';
import { eventSubscriptionsRoutes, webhooksAdminRoutes } from './rails/webhooks/index.js';
import { backofficeRoutes } from './surfaces/backoffice/index.js';
import { formRoutes, formSandboxRoutes } from './surfaces/form/index.js';
import { holderPageRoutes } from './surfaces/holder/index.js';
import { homeRoutes } from './surfaces/home/index.js';
import { pairingRoutes } from './surfaces/pairing/index.js';
import { portalAdminRoutes, portalRoutes } from './surfaces/portal/index.js';

/** The service's name and version, from its package.json (beside src/ and dist/ alike). */
const PACKAGE = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
};

const isPayout = (body: unknown): boolean =>
  (body as { direction?: unknown } | undefined)?.direction === 'PAYOUT';

/** How receipt uploads are read and thrown away (the form, the console and the admin API share it). */
type Uploads = {
  read: Services['receipts']['readMultipart'];
  discard: Services['receipts']['discardUpload'];
};

/** The merchant API (docs/api.md), signed, with the contract's rate limits. */
function merchantApiRoutes(app: App, services: Services, config: Config) {
  const merchantAuth = createMerchantAuth(services.merchants);
  const limits = services.rateLimits;
  const read = (endpoint: string) => limits.hook(endpoint, () => RATE_RULES.read);
  ordersRoutes(app, {
    orders: services.orders,
    parse: { maxAmountDeviation: config.maxAmountDeviation, outboundAllowlist: config.outboundAllowlist },
    merchantAuth,
    limits: {
      createOrder: [
        limits.hook('createOrder:PAYOUT', (r) => (isPayout(r.body) ? RATE_RULES.payout : undefined)),
        limits.hook('createOrder:PAYIN', (r) =>
          isPayout(r.body)
            ? undefined
            : { points: r.merchant?.payinRateLimitPerSecond ?? 10, durationSeconds: 1 },
        ),
      ],
      order: read('order'),
      orders: read('orders'),
      reports: read('reports'),
    },
  });
  balanceRoutes(app, { ledger: services.ledger, merchantAuth, rateLimit: read('balance') });
  banksRoutes(app, { banks: services.banks, merchantAuth, rateLimit: read('banks') });
  bankStandardsRoutes(app, { payouts: services.payouts, merchantAuth, rateLimit: read('bank-standards') });
  poolMerchantRoutes(app, { pool: services.pool, merchantAuth, rateLimit: read('pool-requisites') });
  eventSubscriptionsRoutes(app, {
    subscriptions: services.eventSubscriptions,
    merchantAuth,
    rateLimit: read('webhook-subscriptions'),
  });
  receiptsRoutes(app, {
    receipts: services.receipts,
    orders: services.orders,
    merchantAuth,
    rateLimit: read('receipt-upload'),
  });
  sandboxRoutes(app, { sandbox: services.sandbox, merchantAuth, rateLimit: read('sandbox') });
  appealsRoutes(app, {
    appeals: services.appeals,
    orders: services.orders,
    receipts: services.receipts,
    merchantAuth,
    rateLimit: read('appeal-open'),
    readLimit: read('appeals'),
  });
}

/** Machines that report payments: holders' apps, the devices' endpoints, the chain watcher. */
function machineRoutes(app: App, services: Services, config: Config) {
  holderRoutes(app, { devices: services.devices, pool: services.pool });
  deviceEndpoints(app, { ingest: services.deviceIngest });
  chainRoutes(app, { crypto: services.crypto, watcherToken: config.chainWatcherToken });
}

/** Pages: the payment form, the pairing link, the operators' console, the merchant portal, the holder's page. */
function pageRoutes(app: App, services: Services, config: Config, uploads: Uploads) {
  const limits = services.rateLimits;
  formRoutes(app, {
    form: services.form,
    uploads,
    frameAncestors: config.formFrameAncestors,
    limits: {
      page: limits.hook('form-page', () => RATE_RULES.formPage),
      status: limits.hook('form-status', () => RATE_RULES.formStatus),
      receipt: limits.hook('form-receipt', () => RATE_RULES.formReceipt),
    },
  });
  // The holder's pairing link (docs/decisions.md "The pairing page"): opening it spends nothing.
  pairingRoutes(app, {
    pairing: services.devicePairing,
    publicBaseUrl: config.publicBaseUrl,
    limits: {
      page: limits.hook('pairing-page', () => RATE_RULES.pairingPage),
      claim: limits.hook('pairing-claim', () => RATE_RULES.pairingClaim),
    },
  });
  formSandboxRoutes(app, {
    form: services.form,
    limit: limits.hook('form-receipt', () => RATE_RULES.formReceipt),
  });
  // Password guessing is limited whatever RATE_LIMITS says: a security control, not a merchant quota.
  backofficeRoutes(app, {
    services,
    clock: services.clock,
    uploads,
    loginThrottle: createRateLimits({ enabled: true }).failures('backoffice-login', RATE_RULES.login),
  });

  // The merchant portal (docs/decisions.md section 28): its own sessions; wrong passwords limited like the console's.
  portalRoutes(app, {
    users: services.portalUsers,
    portal: services.portal,
    loginThrottle: createRateLimits({ enabled: true }).failures('portal-login', RATE_RULES.login),
  });

  // The holder's own page (docs/decisions.md "The holder's own page"): sign-in limited like the portal's.
  holderPageRoutes(app, {
    users: services.holderUsers,
    page: services.holderPage,
    uploads,
    loginThrottle: createRateLimits({ enabled: true }).failures('holder-login', RATE_RULES.login),
  });
}

/** The admin API, bearer token with the operator's role. */
function adminApiRoutes(app: App, services: Services, config: Config, uploads: Uploads) {
  return app.register(async (admin: App) => {
    await admin.register(multipart, { limits: MULTIPART_LIMITS, throwFileSizeLimit: false });
    admin.addHook(
      'preValidation',
      createAdminAuth({ adminToken: config.adminToken, operators: services.operators }),
    );
    merchantsAdminRoutes(admin, { merchants: services.merchants });
    ledgerAdminRoutes(admin, { ledger: services.ledger });
    requisitesAdminRoutes(admin, { requisites: services.requisites });
    holdersAdminRoutes(admin, { holders: services.holders, uploads, users: services.holderUsers });
    ratesAdminRoutes(admin, { rates: services.rates });
    ordersAdminRoutes(admin, { orders: services.orders, uploads });
    banksAdminRoutes(admin, { banks: services.banks });
    webhooksAdminRoutes(admin, { webhooks: services.webhooks });
    cryptoAdminRoutes(admin, { crypto: services.crypto });
    chainsAdminRoutes(admin, { chains: services.chains });
    payoutsAdminRoutes(admin, { payouts: services.payouts, uploads });
    receiptsAdminRoutes(admin, { receipts: services.receipts });
    appealsAdminRoutes(admin, { appeals: services.appeals });
    portalAdminRoutes(admin, {
      users: services.portalUsers,
      merchants: services.merchants,
      publicBaseUrl: config.publicBaseUrl,
    });
    operatorsAdminRoutes(admin, { operators: services.operators });
    auditAdminRoutes(admin, { audit: services.audit });
    poolAdminRoutes(admin, { pool: services.pool });
    devicesAdminRoutes(admin, { devices: services.devices });
    learnedRuleRoutes(admin, { rules: services.ruleReview });
    deviceAdminRoutes(admin, {
      admin: services.deviceAdmin,
      review: services.deviceReview,
      ingest: services.deviceIngest,
    });
  });
}

/**
 * Every surface of the service on one Fastify app (docs/architecture.md "Surfaces"): the signed
 * merchant API with the contract's rate limits, the chain watcher's and the devices' endpoints, the
 * payment form, the operators' console, and the admin API behind its bearer token and roles.
 */
export async function registerRoutes(app: App, services: Services, config: Config): Promise<void> {
  const uploads: Uploads = {
    read: services.receipts.readMultipart,
    discard: services.receipts.discardUpload,
  };

  homeRoutes(app, { name: PACKAGE.name, version: PACKAGE.version });
  healthRoutes(app, {
    ping: () => services.database.ping(),
    databaseKind: services.database.kind,
    metrics: services.metrics,
    metricsToken: config.metricsToken,
  });
  merchantApiRoutes(app, services, config);
  machineRoutes(app, services, config);
  pageRoutes(app, services, config, uploads);
  await adminApiRoutes(app, services, config, uploads);
}
