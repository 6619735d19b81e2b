import type { Database } from '../../db/database.js';
import type { MultipartUpload } from '../../http/multipart.js';
import type { AdminActor } from '../../http/request-context.js';
import { eventActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { isInternalId } from '../../lib/ids.js';
import { money } from '../../lib/money.js';
import { isStorableText } from '../../lib/storable-text.js';
import { parseUtcDateTime, parseUtcPeriodEnd } from '../../lib/utc-date.js';
import type { MerchantRow } from '../merchants/index.js';
import type { RatesService } from '../rates/index.js';
import { createFiatPayinFlow, type TakeOffer } from './create-fiat-payin.js';
import type { CreateOrderCommand, CryptoPayinCommand, PayoutCommand } from './create-order-command.js';
import { adminOrderView, assertMayManage } from './order-admin-view.js';
import type { OrderLifecycle } from './order-lifecycle.js';
import { type OrderLookups, orderReads, type ReadBatching } from './order-reads.js';
import { createOrderAnswer, type OrderInfoRow, type OrderRow, orderInfo } from './order-view.js';
import { endedBy, listOrders, type OrderFilter, streamOrders } from './orders-lists.js';
import { orderIdNamed } from './orders-named.js';
import { dailySeries, merchantReport } from './orders-reports.js';
import { DuplicateOrderError, findOrderById, lockOrder, orderTimeline } from './orders-repository.js';
import { createClaim, type HolderGate } from './requisite-claim.js';

/** The creation and confirmation of the modes other modules provide (crypto, payouts). */
export interface ModeHandlers {
  crypto?: {
    create(merchant: MerchantRow, command: CryptoPayinCommand): Promise<OrderRow>;
    /** An operator's confirmation with the transfer (capped, audited: the crypto module's rules). */
    confirm(order: OrderRow, input: CryptoConfirmInput, actor: AdminActor): Promise<unknown>;
  };
  payout?: {
    create(merchant: MerchantRow, command: PayoutCommand): Promise<OrderRow>;
    /** An operator marks the payout sent, with an optional proof file, in one transaction. */
    markSent(
      id: string,
      reason: string | null,
      actor: AdminActor,
      proof?: MultipartUpload,
    ): Promise<OrderRow>;
  };
}

/** What an operator gives to confirm a crypto order. */
export interface CryptoConfirmInput {
  txHash: string;
  /** Undefined when not given: the crypto module knows its default (docs/decisions.md section 34). */
  position: number | undefined;
  receivedAmount: string;
  reason: string | undefined;
}

/** What an operator gives to confirm an order (the crypto fields only for crypto orders). */
export interface ConfirmInput {
  reason?: string | undefined;
  tx_hash?: string | undefined;
  /** The transfer's index inside its transaction (log position or output index; -1: an EVM transaction's own value). */
  position?: string | number | undefined;
  received_amount?: string | number | undefined;
}

/** Query of `GET /merchant/orders` (docs/decisions.md section 12). */
export interface MerchantOrdersQuery {
  merchant_id?: string;
  page?: number;
  size?: number;
  type?: string;
  order_status?: 'pending' | 'success' | 'error';
  direction?: 'PAYIN' | 'PAYOUT';
  start_date?: string;
  end_date?: string;
}

/** What every part of the orders service works with. */
interface OrdersContext {
  db: Database['db'];
  /** How the merchant's order reads share statements (docs/decisions.md "Orders read in batches"). */
  reads: ReadBatching;
  clock: Clock;
  lifecycle: OrderLifecycle;
  publicBaseUrl: string;
  modes: ModeHandlers | undefined;
}

/**
 * Finds a merchant's order by internal or external id (docs/decisions.md section 1), within the
 * merchant's own orders first: its internal id, then its `order_id` (which may be any string, even
 * another merchant's internal id: the merchant still reads its own order). Only then an internal
 * id of another merchant's order is ORDER_FORBIDDEN; an unknown id ORDER_NOT_FOUND.
 */
async function findOwn<T extends { merchantId: string; test: boolean }>(
  lookup: OrderLookups<T>,
  merchant: MerchantRow,
  id: string,
): Promise<T> {
  // No stored id holds a NUL or a lone surrogate (PostgreSQL text cannot): such an id names no order.
  if (!isStorableText(id)) throw new AppError('ORDER_NOT_FOUND');
  const test = merchant.test === true;
  const byInternal = isInternalId(id) ? await lookup.byId(id) : undefined;
  // A test key sees only test orders and a live key only live ones (docs/decisions.md section 29).
  if (byInternal?.merchantId === merchant.id && byInternal.test === test) return byInternal;
  const byExternal = await lookup.byExternalId(merchant.id, id, test);
  if (byExternal) return byExternal;
  if (byInternal && byInternal.merchantId !== merchant.id) throw new AppError('ORDER_FORBIDDEN');
  throw new AppError('ORDER_NOT_FOUND');
}

/** The start of the UTC day of `now`. */
function utcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

/** The period of `GET /merchant/orders`: the given bounds, else today (UTC). */
function orderDateRange(query: MerchantOrdersQuery, now: Date): { from: Date; to: Date } {
  const dayStart = utcDay(now);
  const from = query.start_date ? parseUtcDateTime('start_date', query.start_date) : dayStart;
  const to = query.end_date
    ? parseUtcPeriodEnd('end_date', query.end_date)
    : new Date(dayStart.getTime() + 86_400_000);
  return { from, to };
}

/** What the merchant reads: one order, a page of orders, the dashboard's figures. */
function merchantReads(ctx: OrdersContext) {
  const { db, clock, publicBaseUrl } = ctx;
  const reads = orderReads(db, ctx.reads);
  return {
    /** findOwn with every column of the order. */
    findOwnOrder: (merchant: MerchantRow, id: string): Promise<OrderRow> => findOwn(reads.full, merchant, id),

    /** `GET /merchant/order/{id}` payload. */
    async getOrder(merchant: MerchantRow, id: string) {
      // Only the columns the answer shows (ORDER_INFO_COLUMNS).
      const order = await findOwn(reads.info, merchant, id);
      return orderInfo(order, clock.now(), publicBaseUrl, order.receiptStatus);
    },

    /** `GET /merchant/orders` payload `{total, page, size, orders}`, newest first. */
    async listMerchantOrders(merchant: MerchantRow, query: MerchantOrdersQuery) {
      const page = query.page ?? 1;
      const size = query.size ?? 10;
      const { from, to } = orderDateRange(query, new Date(clock.now()));
      const filter: OrderFilter = { merchantId: merchant.id, from, to, test: merchant.test === true };
      if (query.type) filter.type = query.type;
      if (query.order_status) filter.status = query.order_status;
      if (query.direction) filter.direction = query.direction;
      const { rows, total } = await listOrders(db, filter, page, size);
      const nowMs = clock.now();
      return {
        total,
        page,
        size,
        orders: rows.map((o) => orderInfo(o, nowMs, publicBaseUrl, o.receiptStatus)),
      };
    },

    /**
     * The merchant's dashboard figures (docs/decisions.md section 30): today (UTC) and the last 30 days, per
     * payment type, with the daily PAYIN series of the 30 days; live orders, or (`test`) the sandbox's.
     */
    async merchantReports(merchantId: string, test = false) {
      const now = new Date(clock.now());
      const dayStart = utcDay(now);
      const end = new Date(dayStart.getTime() + 86_400_000);
      const monthStart = new Date(end.getTime() - 30 * 86_400_000);
      const [today, last30, daily] = await Promise.all([
        merchantReport(db, merchantId, dayStart, end, test),
        merchantReport(db, merchantId, monthStart, end, test),
        dailySeries(db, merchantId, monthStart, end, test),
      ]);
      return { merchant_id: merchantId, generated_at: now.toISOString(), today, last_30_days: last30, daily };
    },
  };
}

/** What operators read: lists, the CSV stream, one order with its timeline, today's figures. */
function operatorReads(ctx: OrdersContext) {
  const { db, clock, publicBaseUrl } = ctx;
  return {
    /**
     * Admin list with filters, newest first; rows carry the operator's fields and, for an order in
     * error, who ended it (`ended_by`: docs/decisions.md section 32, "cancelled by whom").
     */
    async listAdminOrders(filter: OrderFilter, page: number, size: number) {
      const { rows, total } = await listOrders(db, filter, page, size);
      const nowMs = clock.now();
      const enders = await endedBy(
        db,
        rows.filter((o) => o.status === 'error').map((o) => o.id),
      );
      return {
        total,
        page,
        size,
        orders: rows.map((o) => ({
          ...adminOrderView(o, nowMs, publicBaseUrl),
          ended_by: o.status === 'error' ? (enders.get(o.id) ?? null) : null,
        })),
      };
    },

    /** Every order of a filter as operators see it, newest first, read a page at a time (the CSV export). */
    async *streamAdminOrders(filter: OrderFilter) {
      for await (const row of streamOrders(db, filter)) yield adminOrderView(row, clock.now(), publicBaseUrl);
    },

    /** One order as operators see it (by our id or the merchant's `order_id`), with its timeline. ORDER_NOT_FOUND. */
    async getAdminOrder(named: string) {
      const id = await orderIdNamed(db, named);
      const order = id ? await findOrderById(db, id) : undefined;
      if (!order) throw new AppError('ORDER_NOT_FOUND');
      return { ...adminOrderView(order, clock.now(), publicBaseUrl), events: await orderTimeline(db, order) };
    },

    /** Today's (UTC) live orders of every merchant per payment type: the operators' dashboard (docs/decisions.md section 32). */
    async platformToday() {
      const dayStart = utcDay(new Date(clock.now()));
      return merchantReport(db, null, dayStart, new Date(dayStart.getTime() + 86_400_000));
    },
  };
}

/** An operator confirms a crypto order with its transfer: the crypto module's rules, then the order as it is now. */
async function confirmCrypto(ctx: OrdersContext, current: OrderRow, input: ConfirmInput, actor: AdminActor) {
  if (!input.tx_hash) throw invalidField('tx_hash', 'is required to confirm a crypto order');
  const received = String(input.received_amount ?? '');
  if (!/^\d{1,15}(\.\d{1,18})?$/.test(received) || money(received).lte(0)) {
    throw invalidField('received_amount', 'must be a positive amount in the coin');
  }
  if (current.status === 'success') throw new AppError('ORDER_STATE_CONFLICT');
  if (current.status === 'error' && !input.reason)
    throw invalidField('reason', 'is required to confirm a failed order');
  if (!ctx.modes?.crypto) throw new AppError('UNSUPPORTED_PAYMENT_TYPE');
  const position = input.position === undefined || input.position === '' ? undefined : Number(input.position);
  if (position !== undefined && (!Number.isInteger(position) || position < -1 || position > 2_147_483_647)) {
    throw invalidField('position', 'must be a whole number from -1 (the transfer inside its transaction)');
  }
  const outcome = await ctx.modes.crypto.confirm(
    current,
    { txHash: input.tx_hash, position, receivedAmount: received, reason: input.reason },
    actor,
  );
  const after = await findOrderById(ctx.db, current.id);
  return { ...adminOrderView(after ?? current, ctx.clock.now(), ctx.publicBaseUrl), confirmation: outcome };
}

/** What operators do to an order: confirm it (each mode its own way) or cancel it; audited. */
function operatorActions(ctx: OrdersContext) {
  const { db, clock, lifecycle, publicBaseUrl } = ctx;
  return {
    /**
     * Operator confirmation (docs/decisions.md section 5): pending -> success, or error -> success
     * with a reason (late payment); a crypto order with its transfer, a payout (marked sent) with
     * an optional proof. Credits or debits the ledger and is audited in the same transaction. The
     * order is named by our id or the merchant's `order_id`.
     */
    async confirm(named: string, input: ConfirmInput, actor: AdminActor, proof?: MultipartUpload) {
      const id = (await orderIdNamed(db, named)) ?? named;
      const current = await findOrderById(db, id);
      if (!current) throw new AppError('ORDER_NOT_FOUND');
      assertMayManage(actor, current);
      if (current.method === 'crypto') return confirmCrypto(ctx, current, input, actor);
      if (current.method === 'payout' && ctx.modes?.payout) {
        const sent = await ctx.modes.payout.markSent(id, input.reason ?? null, actor, proof);
        return adminOrderView(sent, clock.now(), publicBaseUrl);
      }
      const order = await db.transaction(async (tx) => {
        const before = await lockOrder(tx, id);
        if (!before) throw new AppError('ORDER_NOT_FOUND');
        return lifecycle.succeed(tx, before, {
          actor: eventActor(actor),
          reason: input.reason ?? null,
          now: new Date(clock.now()),
          audit: { by: actor, action: before.status === 'error' ? 'order.confirm_late' : 'order.confirm' },
        });
      });
      return adminOrderView(order, clock.now(), publicBaseUrl);
    },

    /** Operator cancellation: pending -> error with a reason; frees the amount and requisite; audited. */
    async cancel(named: string, reason: string, actor: AdminActor) {
      const id = (await orderIdNamed(db, named)) ?? named;
      const order = await db.transaction(async (tx) => {
        const before = await lockOrder(tx, id);
        if (!before) throw new AppError('ORDER_NOT_FOUND');
        assertMayManage(actor, before);
        return lifecycle.fail(tx, before, {
          actor: eventActor(actor),
          reason,
          now: new Date(clock.now()),
          audit: { by: actor, action: 'order.cancel' },
        });
      });
      return adminOrderView(order, clock.now(), publicBaseUrl);
    },
  };
}

/**
 * Orders: creation (fiat PAYIN here, the other modes by their modules), the merchant's and the
 * operators' reads, operator confirmation and cancellation, expiry. Status changes go through the
 * lifecycle only.
 */
export function createOrdersService(deps: {
  database: Database;
  clock: Clock;
  rates: RatesService;
  lifecycle: OrderLifecycle;
  publicBaseUrl: string;
  modes?: ModeHandlers;
  takeOffer?: TakeOffer;
  /** Told of each order created (metrics). */
  onCreated?: (type: string, direction: string) => void;
  /** Holders' limits in the claim (docs/decisions.md "Holders' limits in the claim"), from the holders module. */
  holderGate?: HolderGate;
}) {
  const { database, clock, lifecycle, publicBaseUrl } = deps;
  const db = database.db;
  const ctx: OrdersContext = {
    db,
    reads: { connections: database.dbConnections, maxWaitMs: database.acquireTimeoutMs },
    clock,
    lifecycle,
    publicBaseUrl,
    modes: deps.modes,
  };
  // The one-statement claim's statements are prepared once per connection, and planned once too
  // (docs/decisions.md "Plans made once for the claim"); orders that queue for its connections
  // share a statement ("Orders claimed in batches").
  const createFiatPayin = createFiatPayinFlow({
    ...deps,
    claim: createClaim(database.genericPlans, deps.holderGate, {
      connections: database.genericPlansConnections,
      maxWaitMs: database.acquireTimeoutMs,
    }),
    takeOffer: deps.takeOffer,
  });

  return {
    ...merchantReads(ctx),
    ...operatorReads(ctx),
    ...operatorActions(ctx),

    /** `POST /merchant/createOrder` with its parsed command: the answer of its mode. */
    async createOrder(merchant: MerchantRow, command: CreateOrderCommand) {
      let order: OrderInfoRow;
      try {
        if (command.mode === 'fiat') order = await createFiatPayin(merchant, command);
        else if (command.mode === 'crypto' && deps.modes?.crypto)
          order = await deps.modes.crypto.create(merchant, command);
        else if (command.mode === 'payout' && deps.modes?.payout)
          order = await deps.modes.payout.create(merchant, command);
        else throw new AppError('UNSUPPORTED_PAYMENT_TYPE');
      } catch (err) {
        // One answer for a used order id in every mode (docs/decisions.md section 1).
        if (err instanceof DuplicateOrderError) throw new AppError('ORDER_ALREADY_EXISTS');
        throw err;
      }
      if (!order.test) deps.onCreated?.(order.type, order.direction);
      return createOrderAnswer(order, clock.now(), publicBaseUrl);
    },

    /** Expires due pending PAYIN orders (docs/decisions.md section 5), 500 at a time. Returns how many. */
    async expireDue(): Promise<number> {
      const now = new Date(clock.now());
      return db.transaction((tx) => lifecycle.expireDue(tx, now, 500));
    },
  };
}

export type OrdersService = ReturnType<typeof createOrdersService>;
