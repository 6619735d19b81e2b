import type { Decimal } from 'decimal.js';
import type { Executor } from '../../db/database.js';
import type { AdminActor } from '../../http/request-context.js';
import { AppError } from '../../lib/errors.js';
import { money, toDbAmount } from '../../lib/money.js';
import { writeAudit } from '../../platform/audit/index.js';
import { postPayinCredit, settleHold } from '../ledger/index.js';
import { disableAfterExpiredStreak } from './expired-streak.js';
import type { OrderRow } from './order-view.js';
import {
  findOrderById,
  insertOrderEvents,
  type OrderPatch,
  type StatusChange,
  writeExpired,
  writeStatus,
} from './orders-repository.js';

/** Who moved an order and why (the order timeline; docs/decisions.md section 5). */
export interface TransitionContext {
  /** As the timeline shows it: `merchant:<id>`, `operator:<name>`, `device:<name>`, `system`. */
  actor: string;
  reason?: string | null;
  now: Date;
  /**
   * An operator's move: audited in the same transaction (`action`, the status before and after,
   * the reason and `extra`).
   */
  audit?: { by: AdminActor; action: string; extra?: Record<string, unknown> };
}

/** Work that must commit with a move to `success` (the webhook outbox row, docs/decisions.md section 11). */
export type SuccessHook = (ex: Executor, order: OrderRow) => Promise<void>;

/** One status move, as event hooks see it (docs/decisions.md section 26). */
export interface OrderMove {
  order: OrderRow;
  from: string;
  to: 'success' | 'error';
  /** The status reason: `expired`, an operator's reason, null. */
  reason: string | null;
}

/** Work that must commit with every move (the event subscriptions' outbox rows). */
export type MoveHook = (ex: Executor, moves: OrderMove[]) => Promise<void>;

/** What a successful PAYIN credits the merchant: currency, gross amount and net of the fee. */
export interface PayinCredit {
  currency: string;
  gross: Decimal;
  net: Decimal;
}

/**
 * The credit of a fiat PAYIN (docs/decisions.md section 6): `amountAfterFee` in the order currency,
 * or `usdtAmountAfterFee` in USDT with `convertToUsdt`; the gross is what the payer paid.
 */
export function fiatCredit(order: OrderRow): PayinCredit {
  const useUsdt = order.convertToUsdt && order.usdtAmount !== null && order.usdtAmountAfterFee !== null;
  return {
    currency: useUsdt ? 'USDT' : order.currency,
    gross: money((useUsdt ? order.usdtAmount : order.payableAmount) ?? 0),
    net: money((useUsdt ? order.usdtAmountAfterFee : order.amountAfterFee) ?? 0),
  };
}

/** Extra work of a move to success, given by the flow that makes it (crypto credits, payouts). */
export interface SuccessOptions {
  /** Columns stored with the move (the received crypto amount, the credited amount fixed). */
  patch?: OrderPatch;
  /** PAYIN credit to post instead of the fiat one. */
  credit?: PayinCredit;
  /** Work of the same transaction once the order moved (a payout's proof receipt). */
  within?: (ex: Executor, order: OrderRow) => Promise<void>;
}

/**
 * The compare-and-set of a move: the order changes only while its status is still the one the caller
 * read (docs/decisions.md section 35). ORDER_STATE_CONFLICT when another move got
 * there first (nothing is written then), ORDER_NOT_FOUND when the order is gone.
 */
async function moveStatus(
  ex: Executor,
  order: OrderRow,
  ctx: TransitionContext,
  change: StatusChange,
): Promise<OrderRow> {
  const updated = await writeStatus(ex, order.id, order.status, change, ctx.now);
  if (updated) return updated;
  throw new AppError((await findOrderById(ex, order.id)) ? 'ORDER_STATE_CONFLICT' : 'ORDER_NOT_FOUND');
}

/**
 * The ledger side of a move to success, after its compare-and-set: a PAYIN's credit (`credit`), or a
 * payout's captured hold (the debit). A sandbox order posts nothing. Either is keyed once per order in
 * the ledger, so that even a caller without the order's lock cannot move money twice: a key already
 * posted, or no active hold, is ORDER_STATE_CONFLICT (the transaction then rolls back whole). The hold
 * is the order's amountAfterFee (payouts-service.ts), the figure the move already fixed on the order.
 */
async function postSuccessMoney(
  ex: Executor,
  order: OrderRow,
  credit: PayinCredit | undefined,
  now: Date,
): Promise<void> {
  if (order.test) return;
  if (credit) {
    const applied = await postPayinCredit(ex, { merchantId: order.merchantId, orderId: order.id, ...credit });
    if (!applied) throw new AppError('ORDER_STATE_CONFLICT');
    return;
  }
  const captured = await settleHold(ex, order.id, 'captured', now, {
    gross: money(order.amount),
    fee: money(order.fee),
  });
  if (!captured) throw new AppError('ORDER_STATE_CONFLICT');
}

/**
 * The state machine of an order (docs/decisions.md section 5): pending -> success | error, and
 * error -> success for an operator-confirmed late payment. The ONLY code that changes an order's
 * status: each move writes the order, its timeline event, its ledger entries (with what was
 * credited fixed on the order), its audit entry when an operator made it, and its success hooks (the
 * webhook outbox row) in the caller's transaction, with no network call. A sandbox order
 * (`test`, docs/decisions.md section 29) moves the same way but posts no ledger entry and holds nothing.
 */
export function createOrderLifecycle(deps: {
  successHooks?: SuccessHook[];
  /** Run in the transaction of every move, after the success hooks. */
  moveHooks?: MoveHook[];
  /** Told of every live order that reached success or error (metrics); called inside the transaction. */
  onFinished?: (order: Pick<OrderRow, 'type' | 'direction'>, status: 'success' | 'error') => void;
  /**
   * The auto-disable rule of requisites (docs/decisions.md section 18): in the expiry transaction, a
   * requisite whose last `expiredStreak` orders all expired unpaid is disabled. No rule when absent.
   */
  expiredStreak?: number;
}) {
  const successHooks = deps.successHooks ?? [];
  const moveHooks = deps.moveHooks ?? [];
  async function moved(ex: Executor, moves: OrderMove[]) {
    if (moves.length === 0) return;
    for (const hook of moveHooks) await hook(ex, moves);
  }

  /** Metrics count live orders only: a sandbox order is never a live figure (docs/decisions.md section 29). */
  function finished(order: OrderRow, status: 'success' | 'error') {
    if (!order.test) deps.onFinished?.(order, status);
  }

  async function audit(ex: Executor, before: OrderRow, after: OrderRow, ctx: TransitionContext) {
    if (!ctx.audit) return;
    await writeAudit(ex, ctx.audit.by, {
      action: ctx.audit.action,
      targetType: 'order',
      targetId: before.id,
      before: { status: before.status },
      after: { status: after.status, reason: ctx.reason ?? null, ...ctx.audit.extra },
    });
  }

  return {
    /**
     * Moves a locked order to `success`. From `error` only with a reason (late payment), never for a
     * payout (its hold was released). Throws ORDER_STATE_CONFLICT for a finished order that cannot
     * move, VALIDATION_ERROR for a missing reason.
     */
    async succeed(ex: Executor, order: OrderRow, ctx: TransitionContext, options: SuccessOptions = {}) {
      if (order.status === 'success') throw new AppError('ORDER_STATE_CONFLICT');
      if (order.status === 'error' && order.method === 'payout') throw new AppError('ORDER_STATE_CONFLICT');
      if (order.status === 'error' && !ctx.reason) {
        throw new AppError('VALIDATION_ERROR', [
          { field: 'reason', problem: 'is required to confirm a failed order' },
        ]);
      }
      const credit = order.method === 'payout' ? undefined : (options.credit ?? fiatCredit(order));
      // A payout's success debits its hold: amountAfterFee leaves the balance (docs/decisions.md section 6).
      const credited = credit
        ? { currency: credit.currency, amount: credit.net }
        : { currency: order.currency, amount: money(order.amountAfterFee).negated() };
      // The compare-and-set comes first: a move that lost its race writes nothing at all.
      const updated = await moveStatus(ex, order, ctx, {
        ...options.patch,
        status: 'success',
        statusReason: ctx.reason ?? null,
        finishedAt: ctx.now,
        creditedCurrency: credited.currency,
        creditedAmount: toDbAmount(credited.amount),
      });
      await postSuccessMoney(ex, order, credit, ctx.now);
      await insertOrderEvents(ex, [
        {
          orderId: order.id,
          fromStatus: order.status,
          toStatus: 'success',
          actor: ctx.actor,
          reason: ctx.reason,
        },
      ]);
      await options.within?.(ex, updated);
      await audit(ex, order, updated, ctx);
      for (const hook of successHooks) await hook(ex, updated);
      await moved(ex, [{ order: updated, from: order.status, to: 'success', reason: ctx.reason ?? null }]);
      finished(updated, 'success');
      return updated;
    },

    /** Moves a locked pending order to `error` (a payout's hold is released). ORDER_STATE_CONFLICT otherwise. */
    async fail(ex: Executor, order: OrderRow, ctx: TransitionContext) {
      if (order.status !== 'pending') throw new AppError('ORDER_STATE_CONFLICT');
      const updated = await moveStatus(ex, order, ctx, {
        status: 'error',
        statusReason: ctx.reason ?? null,
        finishedAt: ctx.now,
      });
      if (order.method === 'payout' && !order.test) await settleHold(ex, order.id, 'released', ctx.now);
      await insertOrderEvents(ex, [
        { orderId: order.id, fromStatus: 'pending', toStatus: 'error', actor: ctx.actor, reason: ctx.reason },
      ]);
      await audit(ex, order, updated, ctx);
      await moved(ex, [{ order: updated, from: 'pending', to: 'error', reason: ctx.reason ?? null }]);
      finished(updated, 'error');
      return updated;
    },

    /**
     * Expires pending PAYIN orders past their deadline (docs/decisions.md section 5: expiry frees the
     * amount and the requisite), at most `limit`, each with its timeline event, then the
     * `afterExpiry` rules. Safe in several processes at once (SKIP LOCKED). Returns how many.
     */
    async expireDue(ex: Executor, now: Date, limit: number): Promise<number> {
      const expired = await writeExpired(ex, now, limit);
      await insertOrderEvents(
        ex,
        expired.map((o) => ({
          orderId: o.id,
          fromStatus: 'pending',
          toStatus: 'error',
          actor: 'system',
          reason: 'expired',
        })),
      );
      await moved(
        ex,
        expired.map((o) => ({ order: o, from: 'pending', to: 'error' as const, reason: 'expired' })),
      );
      for (const o of expired) finished(o, 'error');
      if (expired.length > 0 && deps.expiredStreak !== undefined)
        await disableAfterExpiredStreak(ex, expired, deps.expiredStreak);
      return expired.length;
    },
  };
}

export type OrderLifecycle = ReturnType<typeof createOrderLifecycle>;
