import type { Decimal } from 'decimal.js';
import type { Executor } from '../../db/database.js';
import { AppError } from '../../lib/errors.js';
import { money, toDbAmount } from '../../lib/money.js';
import { ACCOUNTS, postJournal, settleHold } from '../ledger/ledger-repository.js';
import type { OrderRow } from './order-view.js';
import { insertOrderEvent, type NewOrderRow, updateOrderStatus } from './orders-repository.js';

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

/** What a successful PAYIN credits the merchant: currency, gross amount and net of the fee. */
export interface PayinCredit {
  currency: string;
  gross: Decimal;
  net: Decimal;
}

/**
 * The credit of a fiat PAYIN (decisions.md section 6): `amountAfterFee` in the order currency, or
 * `usdtAmountAfterFee` in USDT with `convertToUsdt`; the gross is what the payer paid.
 */
export function fiatCredit(order: OrderRow): PayinCredit {
  const useUsdt = order.convertToUsdt && order.usdtAmount !== null && order.usdtAmountAfterFee !== null;
  return {
    currency: useUsdt ? 'USDT' : order.currency,
    gross: money((useUsdt ? order.usdtAmount : order.payableAmount) ?? 0),
    net: money((useUsdt ? order.usdtAmountAfterFee : order.amountAfterFee) ?? 0),
  };
}

/**
 * Ledger posting of a successful PAYIN: the merchant gets the net, fee revenue the difference, and
 * the gross comes from PAYIN clearing. Balanced per currency.
 */
async function postPayinCredit(ex: Executor, order: OrderRow, credit: PayinCredit): Promise<void> {
  await postJournal(ex, {
    kind: 'payin_credit',
    orderId: order.id,
    entries: [
      {
        account: ACCOUNTS.merchant(order.merchantId),
        merchantId: order.merchantId,
        currency: credit.currency,
        amount: credit.net,
      },
      { account: ACCOUNTS.feeRevenue, currency: credit.currency, amount: credit.gross.minus(credit.net) },
      { account: ACCOUNTS.payinClearing, currency: credit.currency, amount: credit.gross.negated() },
    ],
  });
}

/** Extra work of a move to success, given by the flow that makes it (crypto credits, payouts). */
export interface SuccessOptions {
  /** Columns to store with the move (e.g. the received crypto amount). */
  patch?: Partial<NewOrderRow>;
  /** PAYIN credit to post instead of the fiat one. */
  credit?: PayinCredit;
  /**
   * Ledger work of a PAYOUT (capturing its hold); called instead of a PAYIN credit.
   * Returns what was debited.
   */
  settle?: (ex: Executor, order: OrderRow) => Promise<{ currency: string; amount: Decimal }>;
}

/**
 * The state machine of an order (decisions.md section 5): pending -> success | error, and
 * error -> success for an operator-confirmed late payment. Each move writes the order, its timeline
 * event, its ledger entries (with what was credited fixed on the order) and its success hooks
 * (the webhook outbox row) in the caller's transaction.
 */
export function createOrderLifecycle(
  successHooks: SuccessHook[] = [],
  /** Told of every order that reached success or error (metrics); called inside the transaction. */
  onFinished?: (order: OrderRow, status: 'success' | 'error') => void,
) {
  return {
    /**
     * Moves a locked order to `success`. From `error` only with a reason (late payment).
     * Throws ORDER_STATE_CONFLICT for a successful order, VALIDATION_ERROR for a missing reason.
     */
    async succeed(
      ex: Executor,
      order: OrderRow,
      ctx: TransitionContext,
      options: SuccessOptions = {},
    ): Promise<OrderRow> {
      if (order.status === 'success') throw new AppError('ORDER_STATE_CONFLICT');
      // A failed payout released its hold: it can never succeed, reason or not.
      if (order.status === 'error' && order.method === 'payout') throw new AppError('ORDER_STATE_CONFLICT');
      if (order.status === 'error' && !ctx.reason) {
        throw new AppError('VALIDATION_ERROR', [
          { field: 'reason', problem: 'is required to confirm a failed order' },
        ]);
      }
      let credited: { currency: string; amount: Decimal };
      if (options.settle) {
        credited = await options.settle(ex, { ...order, ...options.patch });
      } else if (order.method === 'payout') {
        // A payout's success debits its hold: amountAfterFee leaves the balance (decisions.md section 6).
        const captured = await settleHold(ex, order.id, 'captured', {
          gross: money(order.amount),
          fee: money(order.fee),
        });
        if (!captured) throw new AppError('ORDER_STATE_CONFLICT');
        credited = { currency: captured.currency, amount: captured.amount.negated() };
      } else {
        const credit = options.credit ?? fiatCredit(order);
        await postPayinCredit(ex, order, credit);
        credited = { currency: credit.currency, amount: credit.net };
      }
      const updated = await updateOrderStatus(ex, order.id, {
        ...options.patch,
        status: 'success',
        statusReason: ctx.reason ?? null,
        finishedAt: ctx.now,
        creditedCurrency: credited.currency,
        creditedAmount: toDbAmount(credited.amount),
      });
      if (!updated) throw new AppError('ORDER_NOT_FOUND');
      await insertOrderEvent(ex, {
        orderId: order.id,
        fromStatus: order.status,
        toStatus: 'success',
        actor: ctx.actor,
        reason: ctx.reason ?? null,
      });
      for (const hook of successHooks) await hook(ex, updated);
      onFinished?.(updated, 'success');
      return updated;
    },

    /** Moves a locked pending order to `error` (a payout's hold is released). Throws ORDER_STATE_CONFLICT otherwise. */
    async fail(ex: Executor, order: OrderRow, ctx: TransitionContext): Promise<OrderRow> {
      if (order.status !== 'pending') throw new AppError('ORDER_STATE_CONFLICT');
      // A failed payout gives its reserved funds back.
      if (order.method === 'payout') await settleHold(ex, order.id, 'released');
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
      onFinished?.(updated, 'error');
      return updated;
    },
  };
}

export type OrderLifecycle = ReturnType<typeof createOrderLifecycle>;
