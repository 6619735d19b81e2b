import type { Executor } from '../../db/database.js';
import { AppError } from '../../lib/errors.js';
import { money } from '../../lib/money.js';
import { ACCOUNTS, postJournal } from '../ledger/ledger-repository.js';
import type { OrderRow } from './order-view.js';
import { insertOrderEvent, updateOrderStatus } from './orders-repository.js';

/** Who moved an order and why (the order timeline; decisions.md section 5). */
export interface TransitionContext {
  actor: string;
  reason?: string | null;
  now: Date;
}

/**
 * Work that must commit with a move to `success` (the webhook outbox row, issue 3). Called inside the
 * transaction with the updated order.
 */
export type SuccessHook = (ex: Executor, order: OrderRow) => Promise<void>;

/**
 * Ledger posting of a successful PAYIN (decisions.md section 6): the merchant is credited
 * `amountAfterFee` in the order currency, or `usdtAmountAfterFee` in USDT with `convertToUsdt`;
 * the fee goes to fee revenue; the gross comes from PAYIN clearing. Balanced per currency.
 */
async function creditPayin(ex: Executor, order: OrderRow): Promise<void> {
  const useUsdt = order.convertToUsdt && order.usdtAmount !== null && order.usdtAmountAfterFee !== null;
  const currency = useUsdt ? 'USDT' : order.currency;
  const gross = money((useUsdt ? order.usdtAmount : order.payableAmount) ?? 0);
  const net = money((useUsdt ? order.usdtAmountAfterFee : order.amountAfterFee) ?? 0);
  await postJournal(ex, {
    kind: 'payin_credit',
    orderId: order.id,
    entries: [
      { account: ACCOUNTS.merchant(order.merchantId), merchantId: order.merchantId, currency, amount: net },
      { account: ACCOUNTS.feeRevenue, currency, amount: gross.minus(net) },
      { account: ACCOUNTS.payinClearing, currency, amount: gross.negated() },
    ],
  });
}

/**
 * The state machine of an order (decisions.md section 5): pending -> success | error, and
 * error -> success for an operator-confirmed late payment. Each move writes the order, its timeline
 * event, its ledger entries and its success hooks in the caller's transaction.
 */
export function createOrderLifecycle(successHooks: SuccessHook[] = []) {
  return {
    /**
     * Moves a locked order to `success`. From `error` only with a reason (late payment).
     * Throws ORDER_STATE_CONFLICT for a successful order, VALIDATION_ERROR for a missing reason.
     */
    async succeed(ex: Executor, order: OrderRow, ctx: TransitionContext): Promise<OrderRow> {
      if (order.status === 'success') throw new AppError('ORDER_STATE_CONFLICT');
      if (order.status === 'error' && !ctx.reason) {
        throw new AppError('VALIDATION_ERROR', [
          { field: 'reason', problem: 'is required to confirm a failed order' },
        ]);
      }
      const updated = await updateOrderStatus(ex, order.id, {
        status: 'success',
        statusReason: ctx.reason ?? null,
        finishedAt: ctx.now,
      });
      if (!updated) throw new AppError('ORDER_NOT_FOUND');
      await insertOrderEvent(ex, {
        orderId: order.id,
        fromStatus: order.status,
        toStatus: 'success',
        actor: ctx.actor,
        reason: ctx.reason ?? null,
      });
      if (updated.direction === 'PAYIN') await creditPayin(ex, updated);
      for (const hook of successHooks) await hook(ex, updated);
      return updated;
    },

    /** Moves a locked pending order to `error`. Throws ORDER_STATE_CONFLICT otherwise. */
    async fail(ex: Executor, order: OrderRow, ctx: TransitionContext): Promise<OrderRow> {
      if (order.status !== 'pending') throw new AppError('ORDER_STATE_CONFLICT');
      const updated = await updateOrderStatus(ex, order.id, {
        status: 'error',
        statusReason: ctx.reason ?? null,
        finishedAt: ctx.now,
      });
      if (!updated) throw new AppError('ORDER_NOT_FOUND');
      await insertOrderEvent(ex, {
        orderId: order.id,
        fromStatus: 'pending',
        toStatus: 'error',
        actor: ctx.actor,
        reason: ctx.reason ?? null,
      });
      return updated;
    },
  };
}

export type OrderLifecycle = ReturnType<typeof createOrderLifecycle>;
