import type { Database, Executor } from '../../db/database.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { isInternalId, newInternalId } from '../../lib/ids.js';
import { money, toDbAmount } from '../../lib/money.js';
import { parseUtcDateTime, parseUtcPeriodEnd } from '../../lib/utc-date.js';
import { writeAudit } from '../audit/audit.js';
import type { MerchantRow } from '../merchants/merchants-repository.js';
import { can } from '../operators/permissions.js';
import type { Allowlist } from '../outbound/address-policy.js';
import type { RatesService } from '../rates/rates-service.js';
import type { MultipartUpload } from '../receipts/receipts-service.js';
import { type RequisiteRow, takeRequisite } from '../requisites/requisites-repository.js';
import {
  type CreateOrderBody,
  callbackUrl,
  checkLimits,
  clientFields,
  fiatCurrency,
  fiatType,
  integerAmount,
  orderMode,
} from './create-order-input.js';
import type { OrderLifecycle } from './order-lifecycle.js';
import { createOrderAnswer, type OrderRow, orderInfo } from './order-view.js';
import {
  DuplicateOrderError,
  expireDueOrders,
  externalIdTaken,
  findOrderById,
  findOrderForUpdate,
  firstFreeRubAmount,
  insertOrderEvent,
  insertPendingOrder,
  insertPendingOrderOnFreeRequisite,
  listOrderEvents,
  listOrders,
  lockRubAmounts,
  type OrderFilter,
  type OrderWithReceipt,
  type OwnOrderColumns,
  orderReads,
} from './orders-repository.js';
import { amountAfterFee, computeFee, resolveDeviation, usdtFigures } from './orders-rules.js';
import { requisiteNeedFor } from './payment-types.js';

/** The order columns copied from its requisite (payment details as they were at creation). */
function requisiteColumns(r: RequisiteRow) {
  return {
    requisiteId: r.id,
    pdAddress: r.address,
    pdBank: r.bank,
    pdHolderName: r.holderName,
    pdEmv: r.emv,
  };
}

/** Creation of the other modes, provided by their modules (crypto, payouts). */
export interface ModeHandlers {
  crypto?: (merchant: MerchantRow, body: CreateOrderBody) => Promise<OrderRow>;
  payout?: (merchant: MerchantRow, body: CreateOrderBody) => Promise<OrderRow>;
  /** Stores a payout's proof of transfer, after the payout was marked sent. */
  attachPayoutProof?: (order: OrderRow, upload: MultipartUpload) => Promise<unknown>;
  /** Operator confirmation of a crypto order with its transaction. */
  confirmCrypto?: (
    order: OrderRow,
    input: {
      txHash: string;
      position?: number | undefined;
      receivedAmount: string;
      reason?: string | undefined;
    },
    actor: AdminActor,
  ) => Promise<unknown>;
}

/** What an operator gives to confirm an order (the crypto fields only for crypto orders). */
export interface ConfirmInput {
  reason?: string | undefined;
  tx_hash?: string | undefined;
  /** The transfer's index inside its transaction (log position or output index); default 0. */
  position?: string | number | undefined;
  received_amount?: string | number | undefined;
}

export interface OrdersServiceDeps {
  modes?: ModeHandlers;
  /** Told of each order created (metrics). */
  onCreated?: (type: string, direction: string) => void;
  /** Told of each order expired (metrics). */
  onExpired?: (type: string, direction: string) => void;
  /** Runs in the expiry transaction with the requisites of the expired orders (auto-disable rule). */
  afterExpiry?: (ex: Executor, requisiteIds: string[]) => Promise<unknown>;
  /** Takes a pool offer inside the order's transaction (`usePool: true`, issue 9). */
  takeOffer?: (
    ex: Executor,
    offerId: string,
    type: string,
    orderId: string,
    merchant: MerchantRow,
  ) => Promise<{ offer: { amount: string }; requisite: RequisiteRow }>;
  /** Receipt status per order id (the latest receipt's), for the order views. */
  receiptStatuses?: (orderIds: string[]) => Promise<Map<string, string>>;
  database: Database;
  clock: Clock;
  rates: RatesService;
  lifecycle: OrderLifecycle;
  publicBaseUrl: string;
  /** Hosts merchant URLs may name although not public (OUTBOUND_ALLOWLIST). */
  outboundAllowlist: Allowlist;
  /** Largest amountUp / amountDown, rubles (MAX_AMOUNT_DEVIATION). */
  maxAmountDeviation: number;
}

/** Query of `GET /merchant/orders` (decisions.md section 12). */
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

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Orders: creation (fiat PAYIN here), reading, operator confirmation and cancellation, expiry. */
export function createOrdersService(deps: OrdersServiceDeps) {
  const { database, clock, rates, lifecycle, publicBaseUrl } = deps;
  const db = database.db;
  const reads = orderReads(db);
  const receiptStatusesOf = async (ids: string[]) =>
    deps.receiptStatuses ? deps.receiptStatuses(ids) : new Map<string, string>();

  /**
   * Fiat PAYIN (merchant-api.md "createOrder - fiat PAYIN"; decisions.md sections 6-7). Validation
   * first, then one short transaction: amount lock (RUB), disambiguation, requisite, insert.
   */
  async function createFiatPayin(merchant: MerchantRow, body: CreateOrderBody) {
    const type = fiatType(body.type, merchant);
    const usePool = body.usePool === true;
    if (usePool && (typeof body.requisiteId !== 'string' || !body.requisiteId)) {
      throw invalidField('requisiteId', 'is required with usePool');
    }
    // A pool order's amount is the offer's; a stated amount is checked for shape only.
    const amount = usePool && body.amount === undefined ? 1 : integerAmount(body.amount);
    const currency = fiatCurrency(body.currency, merchant);
    checkLimits(merchant, type, amount);
    const need = requisiteNeedFor(type);
    if (!need) throw new AppError('UNSUPPORTED_PAYMENT_TYPE');
    let rate: ReturnType<typeof money> | undefined;
    if (body.convertToUsdt === true) {
      if (!merchant.allowUsdt) throw new AppError('USDT_CONVERSION_NOT_ALLOWED');
      rate = await rates.fresh(db, 'USDT', currency);
      if (!rate) throw new AppError('EXCHANGE_RATE_UNAVAILABLE');
    }
    const successCallbackUrl = callbackUrl(body.success_callback_url, deps.outboundAllowlist);
    const id = newInternalId();
    const externalId = typeof body.order_id === 'string' ? body.order_id : id;
    for (const field of ['amountUp', 'amountDown'] as const) {
      const value = body[field];
      if (typeof value === 'number' && value > deps.maxAmountDeviation)
        throw invalidField(field, `must be at most ${deps.maxAmountDeviation}`);
    }
    const deviation = resolveDeviation(
      { amountUp: body.amountUp ?? undefined, amountDown: body.amountDown ?? undefined },
      { up: merchant.defaultAmountUp, down: merchant.defaultAmountDown },
      currency,
      'PAYIN',
    );
    const feePercent = money(merchant.payinFeePercentByType[type] ?? merchant.payinFeePercent);
    const nowMs = clock.now();
    const now = new Date(nowMs);
    const actor = `merchant:${merchant.id}`;
    const shifting = currency === 'RUB' && deviation !== undefined && !usePool;
    const pick = (payable: number) => ({ need, currency, amount: money(payable), now });
    /** The order's own columns for a payable amount: fees are on what the payer actually pays. */
    const orderColumns = (payable: number): OwnOrderColumns => {
      const payableAmount = money(payable);
      const fee = computeFee(payableAmount, feePercent);
      const usdt = rate ? usdtFigures(payableAmount, fee, rate) : undefined;
      return {
        id,
        merchantId: merchant.id,
        externalId,
        direction: 'PAYIN' as const,
        type,
        currency,
        amount: String(usePool ? payable : amount),
        payableAmount: String(payable),
        feePercent: toDbAmount(feePercent),
        fee: toDbAmount(fee),
        amountAfterFee: toDbAmount(amountAfterFee('PAYIN', payableAmount, fee)),
        convertToUsdt: rate !== undefined,
        exchangeRate: rate ? toDbAmount(rate) : null,
        usdtAmount: usdt ? toDbAmount(usdt.usdtAmount) : null,
        usdtAmountAfterFee: usdt ? toDbAmount(usdt.usdtAmountAfterFee) : null,
        status: 'pending' as const,
        successCallbackUrl,
        ...clientFields(body),
        comment: body.comment ?? null,
        expiresAt: new Date(nowMs + merchant.orderTtlSeconds * 1000),
        createdAt: now,
        updatedAt: now,
      };
    };

    try {
      if (!usePool && !shifting) {
        // The common case in one statement: a free requisite without limits, and for RUB the
        // amounts lock shared if no shifting order holds it. Anything else takes the full path.
        const created = await insertPendingOrderOnFreeRequisite(db, orderColumns(amount), pick(amount), {
          tryLockRub: currency === 'RUB',
          actor,
        });
        if (created) return createOrderAnswer(created, clock.now(), publicBaseUrl);
      }
      if (await externalIdTaken(db, merchant.id, externalId)) throw new AppError('ORDER_ALREADY_EXISTS');
      const order = await db.transaction(async (tx) => {
        let payable = amount;
        if (usePool) {
          if (!deps.takeOffer) throw new AppError('REQUISITES_NOT_FOUND');
          const taken = await deps.takeOffer(tx, String(body.requisiteId), type, id, merchant);
          payable = Number(taken.offer.amount);
          if (taken.requisite.currency !== currency) throw new AppError('REQUISITES_NOT_FOUND');
          checkLimits(merchant, type, payable);
          if (currency === 'RUB') await lockRubAmounts(tx, false);
          return insertPendingOrder(
            tx,
            { ...orderColumns(payable), ...requisiteColumns(taken.requisite) },
            actor,
          );
        }
        if (currency === 'RUB') {
          await lockRubAmounts(tx, shifting);
          if (deviation && shifting) payable = await firstFreeRubAmount(tx, amount, deviation, now);
        }
        const claimed = await insertPendingOrderOnFreeRequisite(tx, orderColumns(payable), pick(payable), {
          tryLockRub: false,
          actor,
        });
        if (claimed) return claimed;
        // Every candidate locked, or the next one has limits: wait for it / re-check its limits.
        const requisite = await takeRequisite(tx, pick(payable));
        if (!requisite) throw new AppError('REQUISITES_NOT_FOUND');
        return insertPendingOrder(tx, { ...orderColumns(payable), ...requisiteColumns(requisite) }, actor);
      });
      return createOrderAnswer(order, clock.now(), publicBaseUrl);
    } catch (err) {
      if (err instanceof DuplicateOrderError) throw new AppError('ORDER_ALREADY_EXISTS');
      throw err;
    }
  }

  /**
   * Finds a merchant's order by internal or external id (decisions.md section 1), within the
   * merchant's own orders first: its internal id, then its `order_id` (which may be any string, even
   * another merchant's internal id: the merchant still reads its own order). Only then an internal
   * id of another merchant's order is ORDER_FORBIDDEN; an unknown id ORDER_NOT_FOUND.
   */
  async function findOwnOrder(merchant: MerchantRow, id: string): Promise<OrderWithReceipt> {
    // No stored id holds a NUL or a lone surrogate (PostgreSQL text cannot): such an id names no order.
    if (id.includes('\u0000') || LONE_SURROGATE.test(id)) throw new AppError('ORDER_NOT_FOUND');
    const byInternal = isInternalId(id) ? await reads.byId(id) : undefined;
    if (byInternal?.merchantId === merchant.id) return byInternal;
    const byExternal = await reads.byExternalId(merchant.id, id);
    if (byExternal) return byExternal;
    if (byInternal) throw new AppError('ORDER_FORBIDDEN');
    throw new AppError('ORDER_NOT_FOUND');
  }

  function orderDateRange(query: MerchantOrdersQuery): { from: Date; to: Date } {
    const now = new Date(clock.now());
    const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    const from = query.start_date ? parseUtcDateTime('start_date', query.start_date) : dayStart;
    const to = query.end_date
      ? parseUtcPeriodEnd('end_date', query.end_date)
      : new Date(dayStart.getTime() + 86_400_000);
    return { from, to };
  }

  return {
    findOwnOrder,

    /** `POST /merchant/createOrder`: dispatches on the mode the body selects. */
    async createOrder(merchant: MerchantRow, body: CreateOrderBody) {
      if (body.amount === undefined && body.usePool !== true) throw invalidField('amount', 'is required');
      const mode = orderMode(body);
      if (mode === 'fiat') {
        const answer = await createFiatPayin(merchant, body);
        deps.onCreated?.(answer.payment_details.type, 'PAYIN');
        return answer;
      }
      const handler = deps.modes?.[mode];
      if (!handler) throw new AppError('UNSUPPORTED_PAYMENT_TYPE');
      const order = await handler(merchant, body);
      deps.onCreated?.(order.type, order.direction);
      return createOrderAnswer(order, clock.now(), publicBaseUrl);
    },

    /** `GET /merchant/order/{id}` payload. */
    async getOrder(merchant: MerchantRow, id: string) {
      const order = await findOwnOrder(merchant, id);
      return orderInfo(order, clock.now(), publicBaseUrl, order.receiptStatus);
    },

    /** `GET /merchant/orders` payload `{total, page, size, orders}`, newest first. */
    async listMerchantOrders(merchant: MerchantRow, query: MerchantOrdersQuery) {
      const page = query.page ?? 1;
      const size = query.size ?? 10;
      const { from, to } = orderDateRange(query);
      const filter: OrderFilter = { merchantId: merchant.id, from, to };
      if (query.type) filter.type = query.type;
      if (query.order_status) filter.status = query.order_status;
      if (query.direction) filter.direction = query.direction;
      const { rows, total } = await listOrders(db, filter, page, size);
      const nowMs = clock.now();
      const statuses = await receiptStatusesOf(rows.map((o) => o.id));
      return {
        total,
        page,
        size,
        orders: rows.map((o) => orderInfo(o, nowMs, publicBaseUrl, statuses.get(o.id) ?? null)),
      };
    },

    /** Admin list with filters, newest first; rows carry the operator's fields. */
    async listAdminOrders(filter: OrderFilter, page: number, size: number) {
      const { rows, total } = await listOrders(db, filter, page, size);
      const nowMs = clock.now();
      return { total, page, size, orders: rows.map((o) => adminOrderView(o, nowMs, publicBaseUrl)) };
    },

    async getAdminOrder(id: string) {
      const order = await findOrderById(db, id);
      if (!order) throw new AppError('ORDER_NOT_FOUND');
      const events = await listOrderEvents(db, id);
      return {
        ...adminOrderView(order, clock.now(), publicBaseUrl),
        events: events.map((e) => ({
          from: e.fromStatus,
          to: e.toStatus,
          actor: e.actor,
          reason: e.reason,
          at: e.createdAt.toISOString(),
        })),
      };
    },

    /**
     * Operator confirmation (decisions.md section 5): pending -> success, or error -> success with a
     * reason (late payment). Credits the ledger in the same transaction; audited.
     */
    async confirm(id: string, input: ConfirmInput, actor: AdminActor, proof?: MultipartUpload) {
      const reason = input.reason;
      const current = await findOrderById(db, id);
      if (!current) throw new AppError('ORDER_NOT_FOUND');
      assertMayManage(actor, current);
      if (current.method === 'crypto') {
        if (!input.tx_hash) throw invalidField('tx_hash', 'is required to confirm a crypto order');
        const received = String(input.received_amount ?? '');
        if (!/^\d{1,15}(\.\d{1,18})?$/.test(received) || money(received).lte(0)) {
          throw invalidField('received_amount', 'must be a positive amount in the coin');
        }
        if (current.status === 'success') throw new AppError('ORDER_STATE_CONFLICT');
        if (current.status === 'error' && !reason)
          throw invalidField('reason', 'is required to confirm a failed order');
        if (!deps.modes?.confirmCrypto) throw new AppError('UNSUPPORTED_PAYMENT_TYPE');
        const position = input.position === undefined || input.position === '' ? 0 : Number(input.position);
        if (!Number.isInteger(position) || position < 0 || position > 2_147_483_647)
          throw invalidField(
            'position',
            'must be a whole number from 0 (the transfer inside its transaction)',
          );
        const outcome = await deps.modes.confirmCrypto(
          current,
          { txHash: input.tx_hash, position, receivedAmount: received, reason },
          actor,
        );
        const after = await findOrderById(db, id);
        return { ...adminOrderView(after ?? current, clock.now(), publicBaseUrl), confirmation: outcome };
      }
      const order = await db.transaction(async (tx) => {
        const before = await findOrderForUpdate(tx, id);
        if (!before) throw new AppError('ORDER_NOT_FOUND');
        const after = await lifecycle.succeed(tx, before, {
          actor: eventActor(actor),
          reason: reason ?? null,
          now: new Date(clock.now()),
        });
        await writeAudit(tx, actor, {
          action: before.status === 'error' ? 'order.confirm_late' : 'order.confirm',
          targetType: 'order',
          targetId: id,
          before: { status: before.status },
          after: { status: after.status, reason: reason ?? null },
        });
        return after;
      });
      if (proof?.file && order.method === 'payout' && deps.modes?.attachPayoutProof) {
        await deps.modes.attachPayoutProof(order, proof);
      }
      return adminOrderView(order, clock.now(), publicBaseUrl);
    },

    /** Operator cancellation: pending -> error with a reason; frees the amount and requisite; audited. */
    async cancel(id: string, reason: string, actor: AdminActor) {
      const order = await db.transaction(async (tx) => {
        const before = await findOrderForUpdate(tx, id);
        if (!before) throw new AppError('ORDER_NOT_FOUND');
        assertMayManage(actor, before);
        const after = await lifecycle.fail(tx, before, {
          actor: eventActor(actor),
          reason,
          now: new Date(clock.now()),
        });
        await writeAudit(tx, actor, {
          action: 'order.cancel',
          targetType: 'order',
          targetId: id,
          before: { status: before.status },
          after: { status: after.status, reason },
        });
        return after;
      });
      return adminOrderView(order, clock.now(), publicBaseUrl);
    },

    /** Expires due pending PAYIN orders (decisions.md section 5). Returns how many. */
    async expireDue(): Promise<number> {
      const now = new Date(clock.now());
      return db.transaction(async (tx) => {
        const expired = await expireDueOrders(tx, now, 500);
        for (const { id: orderId } of expired) {
          await insertOrderEvent(tx, {
            orderId,
            fromStatus: 'pending',
            toStatus: 'error',
            actor: 'system',
            reason: 'expired',
          });
        }
        for (const o of expired) deps.onExpired?.(o.type, o.direction);
        const requisiteIds = expired.flatMap((o) => (o.requisiteId ? [o.requisiteId] : []));
        if (requisiteIds.length > 0 && deps.afterExpiry) await deps.afterExpiry(tx, requisiteIds);
        return expired.length;
      });
    },
  };
}

/** How an operator appears in an order's timeline: operator accounts already carry their prefix. */
export function eventActor(actor: AdminActor): string {
  return actor.name.includes(':') ? actor.name : `operator:${actor.name}`;
}

/**
 * Operator actions on an order need the role for its queue: payouts for a PAYOUT, orders otherwise
 * (issue 8 roles). System actors without a role (tests, CLI through ADMIN_TOKEN) act as admin.
 */
function assertMayManage(actor: AdminActor, order: OrderRow): void {
  const needed = order.method === 'payout' ? 'payouts.manage' : 'orders.manage';
  if (actor.role && !can(actor.role, needed)) throw new AppError('FORBIDDEN');
}

/** An order as operators see it: everything the merchant sees plus fees, client signals and state reason. */
export function adminOrderView(order: OrderRow, nowMs: number, publicBaseUrl: string) {
  return {
    ...orderInfo(order, nowMs, publicBaseUrl, null),
    merchant_id: order.merchantId,
    requested_amount: order.amount,
    fee: order.fee,
    status_reason: order.statusReason,
    requisite_id: order.requisiteId,
    client_registered_at: order.clientRegisteredAt?.toISOString() ?? null,
    client_orders_count: order.clientOrdersCount,
    client_paid_count: order.clientPaidCount,
    paid_orders:
      order.clientPaidCount !== null && order.clientOrdersCount !== null
        ? `${order.clientPaidCount}/${order.clientOrdersCount}`
        : null,
    expires_at: order.expiresAt?.toISOString() ?? null,
    finished_at: order.finishedAt?.toISOString() ?? null,
  };
}

export type OrdersService = ReturnType<typeof createOrdersService>;
