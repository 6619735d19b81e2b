import { randomUUID } from 'node:crypto';
import type { Database, Executor } from '../../db/database.js';
import type { MultipartUpload } from '../../http/multipart.js';
import { type AdminActor, eventActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { type OrderLifecycle, type OrderRow, orderQueries } from '../../modules/orders/index.js';
import { writeAudit } from '../../platform/audit/index.js';
import type { ReceiptRow, ReceiptsService, Within } from '../receipts/index.js';
import type { EventType } from '../webhooks/index.js';
import {
  type AppealRow,
  type AppealStatus,
  findAppeal,
  insertAppeal,
  listAppeals,
  lockAppeal,
  openAppealOf,
  resolveAppealRow,
} from './appeals-repository.js';

/** An appeal as merchants and operators see it (docs/api.md "Appeals"). */
export function appealView(a: AppealRow) {
  return {
    id: a.id,
    order_id: a.orderId,
    receipt_id: a.receiptId,
    opened_by: a.openedBy,
    status: a.status,
    deadline_at: a.deadlineAt.toISOString(),
    reason: a.reason,
    resolved_at: a.resolvedAt?.toISOString() ?? null,
    created_at: a.createdAt.toISOString(),
  };
}

export type AppealView = ReturnType<typeof appealView>;

/** Emits a subscription event in the caller's transaction (the webhooks module's `emit`). */
export type EmitEvent = (
  ex: Executor,
  event: { type: EventType; order: OrderRow; extra?: Record<string, unknown> },
) => Promise<void>;

/** What appeals work with: receipts (the claim's evidence), the lifecycle and the event emitter. */
export interface AppealsDeps {
  database: Database;
  clock: Clock;
  receipts: ReceiptsService;
  lifecycle: OrderLifecycle;
  emit: EmitEvent;
  /** Each appeal's deadline for operators, hours after it opens. */
  deadlineHours: number;
  /** How long after an order failed a claim is taken, days. */
  windowDays: number;
}

/**
 * ORDER_STATE_CONFLICT unless the order is a fiat PAYIN that failed within the window (a crypto
 * payment that came late is found by the chain watchers); MODERATION_IN_PROGRESS while an
 * appeal is open (the receipts module refuses a second receipt under review the same way).
 */
async function assertAppealable(deps: AppealsDeps, order: OrderRow): Promise<void> {
  // Appeals are live only: a sandbox order is driven by the sandbox (docs/decisions.md section 29).
  if (order.test || order.direction !== 'PAYIN' || order.method === 'crypto' || order.status !== 'error')
    throw new AppError('ORDER_STATE_CONFLICT');
  const ended = (order.finishedAt ?? order.updatedAt).getTime();
  if (deps.clock.now() - ended > deps.windowDays * 86_400_000) throw new AppError('ORDER_STATE_CONFLICT');
  if (await openAppealOf(deps.database.db, order.id)) throw new AppError('MODERATION_IN_PROGRESS');
}

/** The `within` of the receipt's transaction: the appeal row, its audit entry and `appeal.opened`. */
function opening(
  deps: AppealsDeps,
  order: OrderRow,
  by: 'payer' | 'merchant',
  actor: { name: string; ip: string },
) {
  let opened: AppealRow | undefined;
  const within: Within = async (tx: Executor, receipt: ReceiptRow) => {
    const now = new Date(deps.clock.now());
    try {
      opened = await insertAppeal(tx, {
        id: randomUUID(),
        orderId: order.id,
        merchantId: order.merchantId,
        receiptId: receipt.id,
        openedBy: by,
        status: 'open',
        deadlineAt: new Date(now.getTime() + deps.deadlineHours * 3_600_000),
      });
    } catch (err) {
      // A parallel claim took the order's one open appeal (appeals_one_open_uq).
      if ((err as { code?: string }).code === '23505') throw new AppError('MODERATION_IN_PROGRESS');
      throw err;
    }
    await writeAudit(tx, actor, {
      action: 'appeal.open',
      targetType: 'order',
      targetId: order.id,
      after: { appeal_id: opened.id, receipt_id: receipt.id, opened_by: by },
    });
    await deps.emit(tx, { type: 'appeal.opened', order, extra: { appeal: appealView(opened) } });
  };
  return { within, opened: () => opened as AppealRow };
}

/** Accept or reject, in one transaction with the receipt's decision and (accepted) the order's move. */
async function resolve(
  deps: AppealsDeps,
  id: string,
  decision: 'accepted' | 'rejected',
  reason: string | null,
  actor: AdminActor,
) {
  const { clock, receipts, lifecycle } = deps;
  if (!isUuid(id)) throw new AppError('NOT_FOUND');
  if (decision === 'rejected' && !reason?.trim()) throw invalidField('reason', 'is required to reject');
  return deps.database.db.transaction(async (tx) => {
    const appeal = await lockAppeal(tx, id);
    if (!appeal) throw new AppError('NOT_FOUND');
    if (appeal.status !== 'open') throw new AppError('ORDER_STATE_CONFLICT');
    let order = await orderQueries.lockOrder(tx, appeal.orderId);
    if (!order) throw new AppError('ORDER_NOT_FOUND');
    // An operator may have judged the receipt from the receipts queue already: that stands.
    await receipts.decide(tx, appeal.receiptId, decision, reason, actor);
    if (decision === 'accepted' && order.status === 'error') {
      order = await lifecycle.succeed(tx, order, {
        actor: eventActor(actor),
        reason: reason?.trim() || `appeal ${appeal.id} accepted`,
        now: new Date(clock.now()),
        audit: { by: actor, action: 'order.confirm_late', extra: { appeal_id: appeal.id } },
      });
    }
    const after = await resolveAppealRow(tx, id, {
      status: decision,
      reason: reason?.trim() || null,
      resolvedBy: actor.name,
      resolvedAt: new Date(clock.now()),
    });
    await writeAudit(tx, actor, {
      action: decision === 'accepted' ? 'appeal.accept' : 'appeal.reject',
      targetType: 'order',
      targetId: appeal.orderId,
      before: { appeal_id: id, status: 'open' },
      after: { appeal_id: id, status: decision, reason: after.reason },
    });
    await deps.emit(tx, { type: 'appeal.resolved', order, extra: { appeal: appealView(after) } });
    return { ...appealView(after), resolved_by: after.resolvedBy };
  });
}

/** The reads of appeals: the operators' queue, a merchant's, an order's. */
function appealReads(deps: AppealsDeps) {
  const db = deps.database.db;
  return {
    /** Operators' list: open ones by deadline, with whether each is overdue. */
    async list(filter: { status?: AppealStatus | undefined; merchantId?: string | undefined }, limit = 200) {
      const nowMs = deps.clock.now();
      return (await listAppeals(db, filter, limit)).map((a) => ({
        ...appealView(a),
        merchant_id: a.merchantId,
        resolved_by: a.resolvedBy,
        overdue: a.status === 'open' && a.deadlineAt.getTime() < nowMs,
      }));
    },

    /** A merchant's appeals, newest first (`before`: ISO time for paging). */
    async forMerchant(
      merchantId: string,
      query: { status?: AppealStatus | undefined; before?: string | undefined; limit?: number | undefined },
    ) {
      const before = query.before ? new Date(query.before) : undefined;
      if (before && Number.isNaN(before.getTime())) throw invalidField('before', 'must be an ISO 8601 time');
      const rows = await listAppeals(
        db,
        { merchantId, status: query.status, ...(before ? { before } : {}) },
        query.limit ?? 50,
      );
      return rows.map(appealView);
    },

    /** One of the merchant's appeals; NOT_FOUND for another merchant's (never told apart). */
    async ownAppeal(merchantId: string, id: string): Promise<AppealView> {
      const row = isUuid(id) ? await findAppeal(db, id, merchantId) : undefined;
      if (!row) throw new AppError('NOT_FOUND');
      return appealView(row);
    },

    /** Every appeal of one of the merchant's orders, newest first (the portal's order page). */
    async forOrder(merchantId: string, orderId: string): Promise<AppealView[]> {
      return (await listAppeals(db, { merchantId, orderId }, 50)).map(appealView);
    },

    /** The latest appeal of an order (the payment form shows its status), or null. */
    async latestFor(orderId: string): Promise<AppealView | null> {
      const row = (await listAppeals(db, { orderId }, 1))[0];
      return row ? appealView(row) : null;
    },

    /** The order behind an appeal (its merchant, for the console). */
    orderOf: (appeal: { order_id: string }) => orderQueries.findOrderById(db, appeal.order_id),
  };
}

/**
 * Appeals (docs/decisions.md section 27): a late-payment claim on a failed fiat
 * PAYIN, made by the payer on the form or by the merchant (API, portal) with a receipt under the
 * contract's receipt rules. Operators accept it (the order succeeds through the lifecycle: ledger,
 * success webhook, `order.late_payment`) or reject it with a reason; both emit `appeal.resolved`.
 * `deadlineHours` sets each appeal's deadline; `windowDays` how long after failing a claim is taken.
 */
export function createAppealsService(deps: AppealsDeps) {
  const { receipts } = deps;

  return {
    assertAppealable: (order: OrderRow) => assertAppealable(deps, order),

    /**
     * Opens an appeal with an uploaded receipt file (the form's payer, a merchant's multipart call).
     * The upload is always consumed: kept with the appeal, or discarded on any refusal.
     */
    async openWithFile(
      order: OrderRow,
      upload: MultipartUpload,
      by: 'payer' | 'merchant',
      actor: { name: string; ip: string },
    ): Promise<AppealView> {
      try {
        if (!upload.file) throw new AppError('RECEIPT_REQUIRED');
        await assertAppealable(deps, order);
        const o = opening(deps, order, by, actor);
        await receipts.attachFile(order, upload, by === 'payer' ? 'form' : 'file', o.within);
        return appealView(o.opened());
      } catch (err) {
        await receipts.discardUpload(upload);
        throw err;
      }
    },

    /** Opens an appeal with a receipt downloaded from `receiptUrl` (SSRF-safe, as the receipt upload). */
    async openWithUrl(order: OrderRow, receiptUrl: string, actor: { name: string; ip: string }) {
      await assertAppealable(deps, order);
      const o = opening(deps, order, 'merchant', actor);
      await receipts.attachUrl(order, receiptUrl, o.within);
      return appealView(o.opened());
    },

    /** Operators: accept (`reason` optional) — the order succeeds as a late payment. */
    accept: (id: string, reason: string | null, actor: AdminActor) =>
      resolve(deps, id, 'accepted', reason, actor),
    /** Operators: reject with a reason (VALIDATION_ERROR without one). */
    reject: (id: string, reason: string, actor: AdminActor) => resolve(deps, id, 'rejected', reason, actor),

    ...appealReads(deps),
  };
}

export type AppealsService = ReturnType<typeof createAppealsService>;
