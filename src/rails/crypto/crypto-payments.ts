import type { Decimal } from 'decimal.js';
import { and, eq, or } from 'drizzle-orm';
import type { Database, Executor } from '../../db/database.js';
import { cryptoTransactions } from '../../db/tables/crypto.js';
import { type AdminActor, eventActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { money, toDbAmount } from '../../lib/money.js';
import { type OrderLifecycle, type OrderRow, orderQueries } from '../../modules/orders/index.js';
import type { RatesService } from '../../modules/rates/index.js';
import { writeAudit } from '../../platform/audit/index.js';
import {
  type Audit,
  applyTransfer,
  type ChainPayment,
  type CreditContext,
  targetsOf,
} from './crypto-credit.js';
import { type ManualCredit, methodOf, ratesFor } from './crypto-credit-checks.js';
import { normaliseTxHash } from './crypto-rules.js';

export type { ChainPayment };
export { ratesFor };

/** What recording a payment works with: the credit's context and the database. */
interface PaymentsContext extends CreditContext {
  database: Database;
}

/** The audit of a manual credit's result (every operator's confirmation is audited in its transaction). */
function manualAudit(
  tx: Executor,
  manual: ManualCredit | undefined,
  given: { txHash: string; position: number; amount: string },
): Audit {
  return async (result, extra = {}) => {
    if (manual) {
      await writeAudit(tx, manual.operator, {
        action: 'order.confirm_crypto',
        targetType: 'order',
        targetId: manual.orderId,
        after: {
          tx_hash: given.txHash,
          position: given.position,
          received_amount: given.amount,
          outcome: result.outcome,
          reason: manual.reason,
          ...extra,
        },
      });
    }
    return result;
  };
}

/**
 * An operator confirming with a transfer the watcher already reported as late or unmatched, or
 * held for review, assigns that transfer (and its recorded amount) to the order, once. Answers the
 * row and its amount, or undefined.
 */
async function claimReported(
  tx: Executor,
  transfer: { network: string; txHash: string; position: number },
  orderId: string,
) {
  const claimed = await tx
    .update(cryptoTransactions)
    .set({ orderId, outcome: 'partial', reviewReason: null })
    .where(
      and(
        eq(cryptoTransactions.network, transfer.network),
        eq(cryptoTransactions.txHash, transfer.txHash),
        eq(cryptoTransactions.position, transfer.position),
        or(
          eq(cryptoTransactions.outcome, 'late'),
          eq(cryptoTransactions.outcome, 'unmatched'),
          eq(cryptoTransactions.outcome, 'review'),
        ),
      ),
    )
    .returning({ id: cryptoTransactions.id, amount: cryptoTransactions.amount });
  return claimed[0];
}

/**
 * Records a transfer to a crypto order's address and completes the order when the total received
 * reaches `cryptoAmount` (overpayment credited as received); less leaves it pending with the paid
 * amount recorded. The same (network, normalised tx hash, position) twice changes nothing. A
 * payment to an address whose order ended in the last 24 h is kept for operators (late), never
 * auto-confirmed. A manual credit (`manual`) may credit at most `cryptoAmount` times
 * MANUAL_CREDIT_MAX_RATIO; above it only an admin with a reason (403 FORBIDDEN / VALIDATION_ERROR
 * otherwise), and every manual call is audited in the same transaction, with both amounts.
 */
async function recordPayment(
  ctx: PaymentsContext,
  payment: ChainPayment,
  actor: string,
  manual?: ManualCredit,
) {
  const txHash = normaliseTxHash(payment.network, payment.txHash);
  if (!txHash) {
    throw invalidField(
      'tx_hash',
      'must be a transaction hash: 64 hex characters (0x allowed), or base64 on TON',
    );
  }
  const position = payment.position ?? 0;
  let amount = money(payment.amount);
  return ctx.database.db.transaction(async (tx) => {
    const audit = manualAudit(tx, manual, { txHash, position, amount: payment.amount });
    const { pending, late, nowMs } = await targetsOf(ctx, tx, payment, manual);
    const target = pending ?? late;
    const inserted = await tx
      .insert(cryptoTransactions)
      .values({
        network: payment.network,
        txHash,
        position,
        address: payment.address,
        amount: toDbAmount(amount),
        confirmations: payment.confirmations ?? null,
        orderId: target?.id ?? null,
        outcome: pending ? 'partial' : late ? 'late' : 'unmatched',
        reportedBy: actor,
        asset: payment.asset ?? null,
      })
      .onConflictDoNothing()
      .returning({ id: cryptoTransactions.id });
    let txRow = inserted[0];
    if (!txRow && manual && pending) {
      const claimed = await claimReported(tx, { network: payment.network, txHash, position }, pending.id);
      if (claimed) {
        txRow = { id: claimed.id };
        amount = money(claimed.amount);
      }
    }
    if (!txRow) return audit({ outcome: 'duplicate' as const, order_id: null, status: null });
    return applyTransfer(ctx, tx, {
      txRowId: txRow.id,
      network: payment.network,
      txHash,
      amount,
      actor,
      pending,
      late,
      nowMs,
      manual,
      audit,
    });
  });
}

/**
 * Credits a transfer a built-in watcher saw (outcome `awaiting`) once its confirmations are
 * reached and its inclusion re-checked (docs/decisions.md section 25): the same rules as a chain notification. Answers
 * null when the row is no longer awaiting (another process settled or dropped it).
 */
async function settleAwaiting(ctx: PaymentsContext, rowId: number, confirmations: number) {
  return ctx.database.db.transaction(async (tx) => {
    const rows = await tx
      .select()
      .from(cryptoTransactions)
      .where(and(eq(cryptoTransactions.id, rowId), eq(cryptoTransactions.outcome, 'awaiting')))
      .for('update');
    const row = rows[0];
    if (!row) return null;
    const payment: ChainPayment = {
      network: row.network,
      address: row.address,
      txHash: row.txHash,
      position: row.position,
      amount: row.amount,
      asset: row.asset ?? undefined,
      paidAt: row.paidAt,
    };
    const { pending, late, nowMs } = await targetsOf(ctx, tx, payment);
    await tx
      .update(cryptoTransactions)
      .set({
        outcome: pending ? 'partial' : late ? 'late' : 'unmatched',
        orderId: (pending ?? late)?.id ?? null,
        confirmations,
      })
      .where(eq(cryptoTransactions.id, row.id));
    return applyTransfer(ctx, tx, {
      txRowId: row.id,
      network: row.network,
      txHash: row.txHash,
      amount: money(row.amount),
      actor: 'chain-watcher',
      pending,
      late,
      nowMs,
      audit: async (result) => result,
    });
  });
}

/**
 * The position an operator's confirmation records its transfer at, keyed as the built-in watcher
 * keys it (docs/decisions.md section 34): an ETH or BNB payment is its transaction's own value,
 * position -1, so that is the default there; elsewhere 0, the first log or output. -1 names nothing
 * on other orders (VALIDATION_ERROR naming `position`).
 */
function confirmedPosition(order: OrderRow, given: number | undefined): number {
  const method = methodOf(order);
  const ownValue = method.keyNetwork === 'evm' && method.coin !== 'USDT';
  if (given === undefined) return ownValue ? -1 : 0;
  if (given === -1 && !ownValue)
    throw invalidField('position', "is -1 only on ETH and BNB orders (the transaction's own value)");
  return given;
}

/**
 * Transfers to deposit addresses, reported by the chain watcher or by an operator
 * (docs/decisions.md section 8), credited through the order lifecycle.
 */
export function createCryptoPayments(deps: {
  database: Database;
  clock: Clock;
  rates: RatesService;
  lifecycle: OrderLifecycle;
  /** MANUAL_CREDIT_MAX_RATIO: a manual credit above cryptoAmount times this needs an admin and a reason. */
  manualCreditMaxRatio: string;
  /** CHAIN_CREDIT_MAX_RATIO: a chain credit above it (crypto or RUB value) waits for an operator. */
  chainCreditMaxRatio?: string;
}) {
  const { database, clock, rates, lifecycle } = deps;
  const db = database.db;
  const ctx: PaymentsContext = {
    database,
    clock,
    rates,
    lifecycle,
    manualRatio: money(deps.manualCreditMaxRatio),
    chainRatio: money(deps.chainCreditMaxRatio ?? '2'),
  };

  return {
    /** `POST /chain/notifications`: a watcher reports a transfer to a deposit address. */
    chainNotification: (payment: ChainPayment) => recordPayment(ctx, payment, 'chain-watcher'),
    settleAwaiting: (rowId: number, confirmations: number) => settleAwaiting(ctx, rowId, confirmations),

    /**
     * Operator confirmation of a crypto order with the transaction hash, its position and the
     * received amount: the same rules as a chain notification, plus the manual credit limit; an
     * `error` order (expired) may be completed this way (late payment). Audited in its transaction.
     */
    async operatorConfirm(
      order: OrderRow,
      input: {
        txHash: string;
        position?: number | undefined;
        receivedAmount: string;
        reason?: string | undefined;
      },
      actor: AdminActor,
    ) {
      return recordPayment(
        ctx,
        {
          network: methodOf(order).network,
          address: order.pdAddress,
          txHash: input.txHash,
          position: confirmedPosition(order, input.position),
          amount: input.receivedAmount,
        },
        eventActor(actor),
        { orderId: order.id, operator: actor, reason: input.reason ?? null },
      );
    },

    /**
     * A sandbox payment (docs/decisions.md section 29) of `amount` coins to a pending test order: the live
     * credit rules without a chain transfer row. ORDER_STATE_CONFLICT for a live or finished order.
     */
    async sandboxPayment(orderId: string, amount: Decimal) {
      return db.transaction(async (tx) => {
        const order = await orderQueries.lockOrder(tx, orderId);
        if (!order?.test || order.method !== 'crypto' || order.status !== 'pending')
          throw new AppError('ORDER_STATE_CONFLICT');
        return applyTransfer(ctx, tx, {
          txRowId: undefined,
          network: methodOf(order).network,
          txHash: 'sandbox',
          amount,
          actor: 'sandbox',
          pending: order,
          late: undefined,
          nowMs: clock.now(),
          audit: async (result) => result,
        });
      });
    },
  };
}
