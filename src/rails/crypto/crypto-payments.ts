import type { Decimal } from 'decimal.js';
import { and, eq, or } from 'drizzle-orm';
import type { Database, Executor } from '../../db/database.js';
import { cryptoTransactions } from '../../db/tables/crypto.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { money, toDbAmount } from '../../lib/money.js';
import { cryptoMethod } from '../../modules/catalog/index.js';
import { findMerchant } from '../../modules/merchants/index.js';
import {
  eventActor,
  lockOrder,
  type OrderLifecycle,
  type OrderRow,
  orderCommands,
} from '../../modules/orders/index.js';
import type { RatesService } from '../../modules/rates/index.js';
import { writeAudit } from '../../platform/audit/index.js';
import {
  assertMayCreditAbove,
  type ManualCredit,
  methodOf,
  orderRubAmount,
  ratesFor,
} from './crypto-credit-checks.js';
import { cryptoOrdersAtAddress } from './crypto-order-reads.js';
import { chainCreditHold, cryptoCredit, normaliseTxHash } from './crypto-rules.js';

export { ratesFor };

import { POOL_HOLD_MS } from './deposit-addresses.js';

/** A chain transfer as the watcher (or an operator) reports it. */
export interface ChainPayment {
  network: string;
  address: string;
  /** As given: normalised (normaliseTxHash) before use; anything else is VALIDATION_ERROR. */
  txHash: string;
  /** The transfer's index inside its own transaction (log position or output index); default 0. */
  position?: number | undefined;
  amount: string;
  confirmations?: number | null;
  /** The chain's coin or its USDT token; given, a transfer of the other asset matches no order. */
  asset?: 'coin' | 'token' | undefined;
}

const sameAddress = (a: string, b: string) =>
  a.startsWith('0x') ? a.toLowerCase() === b.toLowerCase() : a === b;

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
  const manualRatio = money(deps.manualCreditMaxRatio);
  const chainRatio = money(deps.chainCreditMaxRatio ?? '2');

  /** The orders a transfer may pay: the pending one at its address, else one ended lately (late). */
  async function targetsOf(tx: Executor, payment: ChainPayment, manual?: ManualCredit) {
    const candidates = await cryptoOrdersAtAddress(tx, payment.address);
    const matching = candidates.filter((c) => {
      const method = cryptoMethod(c.type);
      // A token sent to a coin order's address (or a coin to a token order's) is never credited.
      const assetFits =
        payment.asset === undefined || (method?.coin === 'USDT' ? 'token' : 'coin') === payment.asset;
      return method?.network === payment.network && assetFits && sameAddress(c.address, payment.address);
    });
    const nowMs = clock.now();
    const pending = matching.find(
      (c) => c.status === 'pending' || (manual !== undefined && c.id === manual.orderId),
    );
    const late = matching.find((c) => c.finishedAt && nowMs - c.finishedAt.getTime() < POOL_HOLD_MS);
    return { pending, late, nowMs };
  }

  type Audit = <T extends { outcome: string }>(result: T, extra?: Record<string, unknown>) => Promise<T>;

  /**
   * The credit of a recorded transfer row `txRowId` of `amount` coins: adds it to the pending order's
   * received amount and completes the order through the lifecycle once `cryptoAmount` is reached;
   * late and unmatched transfers stay for operators.
   */
  async function applyTransfer(
    tx: Executor,
    input: {
      /** The recorded transfer; undefined for a sandbox payment, which records none. */
      txRowId: number | undefined;
      txHash: string;
      amount: Decimal;
      actor: string;
      pending: { id: string } | undefined;
      late: { id: string } | undefined;
      nowMs: number;
      manual?: ManualCredit | undefined;
      audit: Audit;
    },
  ) {
    const { pending, late, nowMs, manual, audit, txHash, actor } = input;
    if (!pending)
      return audit({
        outcome: late ? ('late' as const) : ('unmatched' as const),
        order_id: (pending ?? late)?.id ?? null,
        status: null,
      });
    const order = await lockOrder(tx, pending.id);
    if (!order) throw new AppError('ORDER_NOT_FOUND');
    const received = money(order.receivedAmount ?? 0).plus(input.amount);
    if (
      order.cryptoAmount === null ||
      received.lt(order.cryptoAmount) ||
      (order.status === 'error' && !manual)
    ) {
      await orderCommands.recordReceivedAmount(tx, order.id, toDbAmount(received), new Date(nowMs));
      return audit({ outcome: 'partial' as const, order_id: order.id, status: order.status });
    }
    const limit = money(order.cryptoAmount).times(manualRatio);
    const overLimit = manual !== undefined && received.gt(limit);
    if (overLimit) assertMayCreditAbove(manual, received, limit);
    const method = methodOf(order);
    const settlement = (await findMerchant(tx, order.merchantId))?.settlement ?? 'fiat';
    const currentRates = await ratesFor(rates, tx, method.coin);
    if (!manual && input.txRowId !== undefined) {
      // A chain credit is believed only within CHAIN_CREDIT_MAX_RATIO (docs/decisions.md section 34):
      // beyond it (a node that lies, a rate set far off) it waits for an operator, the order untouched.
      const reason = chainCreditHold({
        received,
        cryptoAmount: money(order.cryptoAmount),
        coin: method.coin,
        ratio: chainRatio,
        rubRate: order.cryptoRate
          ? money(order.cryptoRate)
          : method.coin === 'USDT'
            ? currentRates.usdtRub
            : currentRates.coinRub,
        orderRub: orderRubAmount(order),
      });
      if (reason) {
        await tx
          .update(cryptoTransactions)
          .set({ outcome: 'review', reviewReason: reason, orderId: order.id })
          .where(eq(cryptoTransactions.id, input.txRowId));
        return audit({ outcome: 'review' as const, order_id: order.id, status: order.status });
      }
    }
    const credit = cryptoCredit({
      received,
      method,
      settlement,
      feePercent: money(order.feePercent),
      rates: {
        coinRub: order.cryptoRate ? money(order.cryptoRate) : currentRates.coinRub,
        usdtRub: currentRates.usdtRub,
      },
    });
    if (!credit) throw new AppError('EXCHANGE_RATE_UNAVAILABLE');
    if (input.txRowId !== undefined)
      await tx
        .update(cryptoTransactions)
        .set({ outcome: 'credited' })
        .where(eq(cryptoTransactions.id, input.txRowId));
    const done = await lifecycle.succeed(
      tx,
      order,
      {
        actor,
        reason: order.status === 'error' ? `late payment ${txHash}` : (manual?.reason ?? null),
        now: new Date(nowMs),
      },
      {
        // The credited amount is fixed on the order (docs/decisions.md section 6): the order read, the
        // webhook and the ledger show one number.
        patch: {
          receivedAmount: toDbAmount(received),
          ...(credit.currency === 'USDT'
            ? { usdtAmountAfterFee: toDbAmount(credit.net) }
            : { amountAfterFee: toDbAmount(credit.net), fee: toDbAmount(credit.gross.minus(credit.net)) }),
        },
        credit,
      },
    );
    return audit(
      { outcome: 'credited' as const, order_id: done.id, status: done.status },
      {
        crypto_amount: money(order.cryptoAmount).toFixed(),
        received_total: received.toFixed(),
        credited: `${credit.net.toFixed()} ${credit.currency}`,
        ...(overLimit ? { above_limit: limit.toFixed() } : {}),
      },
    );
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
  async function recordPayment(payment: ChainPayment, actor: string, manual?: ManualCredit) {
    const txHash = normaliseTxHash(payment.network, payment.txHash);
    if (!txHash) {
      throw invalidField(
        'tx_hash',
        'must be a transaction hash: 64 hex characters (0x allowed), or base64 on TON',
      );
    }
    const position = payment.position ?? 0;
    let amount = money(payment.amount);
    return db.transaction(async (tx) => {
      const audit: Audit = async (result, extra = {}) => {
        if (manual) {
          await writeAudit(tx, manual.operator, {
            action: 'order.confirm_crypto',
            targetType: 'order',
            targetId: manual.orderId,
            after: {
              tx_hash: txHash,
              position,
              received_amount: payment.amount,
              outcome: result.outcome,
              reason: manual.reason,
              ...extra,
            },
          });
        }
        return result;
      };
      const { pending, late, nowMs } = await targetsOf(tx, payment, manual);
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
        // An operator confirming with a transfer the watcher already reported as late or unmatched,
        // or held for review, assigns that transfer (and its recorded amount) to the order, once.
        const claimed = await tx
          .update(cryptoTransactions)
          .set({ orderId: pending.id, outcome: 'partial', reviewReason: null })
          .where(
            and(
              eq(cryptoTransactions.network, payment.network),
              eq(cryptoTransactions.txHash, txHash),
              eq(cryptoTransactions.position, position),
              or(
                eq(cryptoTransactions.outcome, 'late'),
                eq(cryptoTransactions.outcome, 'unmatched'),
                eq(cryptoTransactions.outcome, 'review'),
              ),
            ),
          )
          .returning({ id: cryptoTransactions.id, amount: cryptoTransactions.amount });
        if (claimed[0]) {
          txRow = { id: claimed[0].id };
          amount = money(claimed[0].amount);
        }
      }
      if (!txRow) return audit({ outcome: 'duplicate' as const, order_id: null, status: null });
      return applyTransfer(tx, {
        txRowId: txRow.id,
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
  async function settleAwaiting(rowId: number, confirmations: number) {
    return db.transaction(async (tx) => {
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
      };
      const { pending, late, nowMs } = await targetsOf(tx, payment);
      await tx
        .update(cryptoTransactions)
        .set({
          outcome: pending ? 'partial' : late ? 'late' : 'unmatched',
          orderId: (pending ?? late)?.id ?? null,
          confirmations,
        })
        .where(eq(cryptoTransactions.id, row.id));
      return applyTransfer(tx, {
        txRowId: row.id,
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

  return {
    /** `POST /chain/notifications`: a watcher reports a transfer to a deposit address. */
    chainNotification: (payment: ChainPayment) => recordPayment(payment, 'chain-watcher'),
    settleAwaiting,

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
        {
          network: methodOf(order).network,
          address: order.pdAddress,
          txHash: input.txHash,
          position: input.position,
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
        const order = await lockOrder(tx, orderId);
        if (!order?.test || order.method !== 'crypto' || order.status !== 'pending')
          throw new AppError('ORDER_STATE_CONFLICT');
        return applyTransfer(tx, {
          txRowId: undefined,
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
