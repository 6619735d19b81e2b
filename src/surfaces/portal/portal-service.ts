import type { Database } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { type SecretBox, sha256Hex } from '../../lib/secrets.js';
import { parseUtcDateTime, parseUtcPeriodEnd } from '../../lib/utc-date.js';
import { type LedgerService, type StatementPeriod, statementLines } from '../../modules/ledger/index.js';
import type { BrandingInput, KeyMode, MerchantsService } from '../../modules/merchants/index.js';
import {
  adminOrderView,
  type OrderFilter,
  type OrdersService,
  streamOrders,
} from '../../modules/orders/index.js';
import type { AppealsService } from '../../rails/appeals/index.js';
import type { ReceiptsService } from '../../rails/receipts/index.js';
import { outcomesFor, type SandboxOutcome, type SandboxService } from '../../rails/sandbox/index.js';
import type { EventSubscriptions, WebhooksService } from '../../rails/webhooks/index.js';
import type { PortalUser } from './portal-users.js';

/** Filters of the orders list and its CSV, as the URL carries them (shareable). */
export interface OrdersQuery {
  q?: string | undefined;
  status?: string | undefined;
  type?: string | undefined;
  direction?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  /** `test`: the sandbox's orders (docs/decisions.md section 29); anything else: live ones. */
  mode?: string | undefined;
}

/** A key just issued, as the keys page shows it once. */
export interface ShownOnceKey {
  api_key: string;
  mode: KeyMode;
  /** After a rotation with a grace: until when the old key works. */
  previous_key_valid_until: string | null;
}

/** How long a new key waits, sealed, for the page that shows it. */
const SHOWN_ONCE_MS = 5 * 60_000;

const clean = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());

/** How a portal user appears in the audit log. */
const actorOf = (user: PortalUser, ip: string) => ({ name: `portal:${user.email}`, ip });

/** The merchant's own filter: never wider than the signed-in user's merchant. */
export function ordersFilter(merchantId: string, q: OrdersQuery): OrderFilter {
  const from = clean(q.from);
  const to = clean(q.to);
  const status = clean(q.status);
  const direction = clean(q.direction);
  const type = clean(q.type);
  const search = clean(q.q);
  return {
    merchantId,
    test: q.mode === 'test',
    ...(status ? { status } : {}),
    ...(direction ? { direction } : {}),
    ...(type ? { type } : {}),
    ...(from ? { from: parseUtcDateTime('from', from) } : {}),
    ...(to ? { to: parseUtcPeriodEnd('to', to) } : {}),
    ...(search ? { search: search.slice(0, 200) } : {}),
  };
}

/** What the portal service is made of: the services it scopes to the signed-in user's merchant. */
export interface PortalServiceDeps {
  database: Database;
  clock: Clock;
  orders: OrdersService;
  receipts: ReceiptsService;
  webhooks: WebhooksService;
  ledger: LedgerService;
  merchants: MerchantsService;
  appeals: AppealsService;
  sandbox: SandboxService;
  subscriptions: EventSubscriptions;
  publicBaseUrl: string;
  /** SECRET_KEY's box: seals a new key between the POST that issues it and the page that shows it. */
  secretBox: SecretBox;
}

/** The merchant's orders: list, one order with what hangs off it, the CSV, sandbox drives, reports. */
function orderViews(deps: PortalServiceDeps) {
  const { orders, database, clock } = deps;

  async function ownOrder(user: PortalUser, id: string) {
    const order = await orders.getAdminOrder(id).catch((err: unknown) => {
      if (err instanceof AppError && err.code === 'ORDER_NOT_FOUND') throw new AppError('NOT_FOUND');
      throw err;
    });
    if (order.merchant_id !== user.merchantId) throw new AppError('NOT_FOUND');
    return order;
  }

  return {
    /** A page of the merchant's orders (50), newest first. */
    listOrders: (user: PortalUser, q: OrdersQuery, page: number) =>
      orders.listAdminOrders(ordersFilter(user.merchantId, q), page, 50),

    /** One order with its timeline, receipts, appeals and webhook deliveries (with attempts). */
    async order(user: PortalUser, id: string) {
      const order = await ownOrder(user, id);
      const [receipts, deliveries, appeals] = await Promise.all([
        deps.receipts.forOrder(order.id),
        deps.webhooks.list({ orderId: order.id }),
        deps.appeals.forOrder(user.merchantId, order.id),
      ]);
      const outcomes = outcomesFor({
        ...order,
        receiptStatus: receipts.some((r) => r.status === 'under_review') ? 'under_review' : null,
      });
      return { order, receipts, deliveries, appeals, outcomes };
    },

    /** Queues a delivery of the merchant's again (owner and developer). */
    async resend(user: PortalUser, deliveryId: string, ip: string) {
      if (!isUuid(deliveryId)) throw new AppError('NOT_FOUND');
      return deps.webhooks.resend(deliveryId, { name: `portal:${user.email}`, ip }, user.merchantId);
    },

    /** Every order of the filter, streamed in pages (the CSV export). */
    ordersStream: (user: PortalUser, q: OrdersQuery) =>
      streamOrders(database.db, ordersFilter(user.merchantId, q)),

    /** An order row as the CSV shows it (the admin view's figures: numbers as the API shows them). */
    orderView: (row: Parameters<typeof adminOrderView>[0]) =>
      adminOrderView(row, clock.now(), deps.publicBaseUrl),

    appeals: (user: PortalUser) => deps.appeals.forMerchant(user.merchantId, { limit: 200 }),

    /** A test order of the merchant driven to an outcome (the sandbox buttons; owner and developer). */
    driveSandbox: (
      user: PortalUser,
      orderId: string,
      outcome: SandboxOutcome,
      amount: string | undefined,
      ip: string,
    ) =>
      deps.sandbox.driveTestOrder(orderId, outcome, actorOf(user, ip), {
        merchantId: user.merchantId,
        ...(amount ? { amount } : {}),
      }),

    /** The dashboard's figures (docs/decisions.md section 30): live orders only. */
    reports: (user: PortalUser) => orders.merchantReports(user.merchantId),
  };
}

/** Money: the balance and the statement of a period. */
function moneyViews(deps: PortalServiceDeps) {
  const { database, clock } = deps;
  return {
    balance: async (user: PortalUser) => {
      const m = await deps.merchants.get(user.merchantId);
      return deps.ledger.merchantBalance({
        id: m.merchant_id,
        currencies: m.currencies,
        allowUsdt: m.allow_usdt,
      });
    },

    /** The statement's period from the query (default: this month so far) and its currency. */
    statementPeriod(
      user: PortalUser,
      q: { currency?: string | undefined; from?: string | undefined; to?: string | undefined },
    ): StatementPeriod {
      const now = new Date(clock.now());
      const currency = (clean(q.currency) ?? 'RUB').toUpperCase();
      if (!/^[A-Z]{3,5}$/.test(currency)) throw invalidField('currency', 'a currency code such as RUB');
      const from = clean(q.from)
        ? parseUtcDateTime('from', String(clean(q.from)))
        : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
      const to = clean(q.to) ? parseUtcPeriodEnd('to', String(clean(q.to))) : new Date(now.getTime() + 1000);
      return { merchantId: user.merchantId, currency, from, to };
    },

    /** The statement lines of a period with the running balance; the opening balance first. */
    statement: (period: StatementPeriod) => statementLines(database.db, period),
  };
}

/** API keys: rotated, listed, a new one sealed for the page that shows it once. */
function keySteps(deps: PortalServiceDeps) {
  const { clock } = deps;
  return {
    /** The owner rotates the key; `graceSeconds` keeps the old one working for that long. */
    rotateKey: (user: PortalUser, graceSeconds: number, ip: string) =>
      deps.merchants.rotateKey(user.merchantId, actorOf(user, ip), graceSeconds),

    /** The merchant's keys (prefix, mode, status, created, last used, grace); never a whole key. */
    keys: (user: PortalUser) => deps.merchants.keys(user.merchantId),

    /** A new key sealed for the one page that shows it: bound to this session, valid 5 minutes. */
    sealShownOnce(user: PortalUser, key: ShownOnceKey): string {
      const body = { ...key, session: sha256Hex(user.csrf), until: clock.now() + SHOWN_ONCE_MS };
      return deps.secretBox.seal(JSON.stringify(body));
    },

    /** The key sealed by `sealShownOnce` for this session and still in time, else null. */
    openShownOnce(user: PortalUser, sealed: string): ShownOnceKey | null {
      try {
        const body = JSON.parse(deps.secretBox.open(sealed)) as ShownOnceKey & {
          session: string;
          until: number;
        };
        if (body.session !== sha256Hex(user.csrf) || body.until < clock.now()) return null;
        return {
          api_key: body.api_key,
          mode: body.mode,
          previous_key_valid_until: body.previous_key_valid_until,
        };
      } catch {
        return null;
      }
    },

    /** Issues (or replaces at once) the merchant's sandbox key, shown once. */
    issueTestKey: (user: PortalUser, ip: string) =>
      deps.merchants.rotateKey(user.merchantId, actorOf(user, ip), 0, 'test'),
  };
}

/** The merchant's settings: the payment form's branding and the event subscriptions. */
function settingsSteps(deps: PortalServiceDeps) {
  return {
    /** What the payment form shows of the merchant (docs/decisions.md section 31): name, logo, return URL. */
    async branding(user: PortalUser) {
      const m = await deps.merchants.get(user.merchantId);
      return { display_name: m.display_name, logo_url: m.logo_url, return_url: m.return_url };
    },

    /** The owner sets the form's branding; the merchants service validates (VALIDATION_ERROR). */
    setBranding: (user: PortalUser, input: BrandingInput, ip: string) =>
      deps.merchants.update(user.merchantId, input, actorOf(user, ip)),

    /**
     * Event subscriptions as the signed API manages them, one mode at a time (`sandbox`: the test
     * subscriptions, which get test orders' events only; docs/api.md "Event subscriptions").
     */
    subscriptions: {
      list: (user: PortalUser, sandbox: boolean) => deps.subscriptions.list(user.merchantId, sandbox),
      subscribe: (user: PortalUser, sandbox: boolean, input: { url: string; events: string[] }, ip: string) =>
        deps.subscriptions.subscribe(user.merchantId, sandbox, input, ip),
      remove: (user: PortalUser, sandbox: boolean, id: string) =>
        deps.subscriptions.remove(user.merchantId, sandbox, id),
      sendTest: (user: PortalUser, sandbox: boolean, id: string, type: string | undefined) =>
        deps.subscriptions.sendTest(user.merchantId, id, type, sandbox),
      deliveries: (user: PortalUser, sandbox: boolean) =>
        deps.subscriptions.deliveries(user.merchantId, { limit: 50 }, sandbox),
    },
  };
}

/**
 * What the portal shows (docs/decisions.md section 28), always scoped to the signed-in user's merchant: the
 * same services as the admin API and console, plus the streamed exports. Another merchant's order
 * or delivery is NOT_FOUND, never told apart from a missing one.
 */
export function createPortalService(deps: PortalServiceDeps) {
  return { ...orderViews(deps), ...moneyViews(deps), ...keySteps(deps), ...settingsSteps(deps) };
}

export type PortalService = ReturnType<typeof createPortalService>;
