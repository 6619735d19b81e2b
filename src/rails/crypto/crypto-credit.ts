/**
 * The credit of one transfer to a crypto order (docs/decisions.md sections 6, 8 and 34), inside the
 * caller's transaction: the orders it may pay, then partial, held for review, or credited through
 * the lifecycle. Shared by chain notifications, the watchers' settled transfers, operators'
 * confirmations and sandbox payments (crypto-payments.ts).
 */
import type { Decimal } from 'decimal.js';
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { cryptoTransactions } from '../../db/tables/crypto.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { money, toDbAmount } from '../../lib/money.js';
import { type CryptoMethod, cryptoMethod } from '../../modules/catalog/index.js';
import { findMerchant } from '../../modules/merchants/index.js';
import {
  type OrderLifecycle,
  type OrderRow,
  orderCommands,
  orderQueries,
} from '../../modules/orders/index.js';
import type { RatesService } from '../../modules/rates/index.js';
import {
  assertMayCreditAbove,
  type ManualCredit,
  methodOf,
  orderRubAmount,
  ratesFor,
} from './crypto-credit-checks.js';
import { cryptoOrdersAtAddress } from './crypto-order-reads.js';
import { chainCreditHold, cryptoCredit } from './crypto-rules.js';
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
  /** The chain's time of its transaction, when the watcher read it (TON); see targetsOf. */
  paidAt?: Date | null | undefined;
}

/**
 * How far a chain's clock may run behind ours: a transfer whose chain time is earlier than an
 * order's creation by more than this was made before the order existed.
 */
const CHAIN_CLOCK_SLACK_MS = 10 * 60_000;

/** What crediting works with: the clock, rates, the lifecycle and the two credit limits. */
export interface CreditContext {
  clock: Clock;
  rates: RatesService;
  lifecycle: OrderLifecycle;
  /** MANUAL_CREDIT_MAX_RATIO: a manual credit above cryptoAmount times this needs an admin and a reason. */
  manualRatio: Decimal;
  /** CHAIN_CREDIT_MAX_RATIO: a chain credit above it (crypto or RUB value) waits for an operator. */
  chainRatio: Decimal;
}

/** Writes an operator's audit entry of a result (a no-op for the chain's own credits); answers the result. */
export type Audit = <T extends { outcome: string }>(result: T, extra?: Record<string, unknown>) => Promise<T>;

/** One transfer to credit. */
export interface TransferInput {
  /** The recorded transfer; undefined for a sandbox payment, which records none. */
  txRowId: number | undefined;
  /** The transfer's network (CryptoMethod.network); with txHash, how its transaction is known. */
  network: string;
  txHash: string;
  amount: Decimal;
  actor: string;
  pending: { id: string } | undefined;
  late: { id: string } | undefined;
  nowMs: number;
  manual?: ManualCredit | undefined;
  audit: Audit;
}

const sameAddress = (a: string, b: string) =>
  a.startsWith('0x') ? a.toLowerCase() === b.toLowerCase() : a === b;

/**
 * The orders a transfer may pay: the pending one at its address, else one ended lately (late). A
 * transfer whose chain time is before an order was created (beyond the clocks' slack) is not that
 * order's: a TON pool address passes to a new order 24 h after its last one ended, and a watcher
 * that was stopped longer finds the older order's payments after the address changed hands
 * (docs/decisions.md section 34). Such a transfer pays no order here and is listed as unmatched.
 */
export async function targetsOf(
  ctx: CreditContext,
  tx: Executor,
  payment: ChainPayment,
  manual?: ManualCredit,
) {
  const candidates = await cryptoOrdersAtAddress(tx, payment.address);
  const matching = candidates.filter((c) => {
    const method = cryptoMethod(c.type);
    // A token sent to a coin order's address (or a coin to a token order's) is never credited.
    const assetFits =
      payment.asset === undefined || (method?.coin === 'USDT' ? 'token' : 'coin') === payment.asset;
    const paidBefore =
      payment.paidAt != null && payment.paidAt.getTime() < c.createdAt.getTime() - CHAIN_CLOCK_SLACK_MS;
    return (
      method?.network === payment.network &&
      assetFits &&
      sameAddress(c.address, payment.address) &&
      !paidBefore
    );
  });
  const nowMs = ctx.clock.now();
  const pending = matching.find(
    (c) => c.status === 'pending' || (manual !== undefined && c.id === manual.orderId),
  );
  const late = matching.find((c) => c.finishedAt && nowMs - c.finishedAt.getTime() < POOL_HOLD_MS);
  return { pending, late, nowMs };
}

type CryptoRates = Awaited<ReturnType<typeof ratesFor>>;

/**
 * A chain credit is believed only within CHAIN_CREDIT_MAX_RATIO (docs/decisions.md section 34):
 * beyond it (a node that lies, a rate set far off) the transfer row waits for an operator as
 * `review`, the order untouched. Answers whether it was held.
 */
async function heldForReview(
  ctx: CreditContext,
  tx: Executor,
  at: { order: OrderRow; method: CryptoMethod; received: Decimal; rates: CryptoRates; txRowId: number },
): Promise<boolean> {
  const { order, method, rates } = at;
  const reason = chainCreditHold({
    received: at.received,
    cryptoAmount: money(order.cryptoAmount ?? 0),
    coin: method.coin,
    ratio: ctx.chainRatio,
    rubRate: order.cryptoRate
      ? money(order.cryptoRate)
      : method.coin === 'USDT'
        ? rates.usdtRub
        : rates.coinRub,
    orderRub: orderRubAmount(order),
  });
  if (!reason) return false;
  await tx
    .update(cryptoTransactions)
    .set({ outcome: 'review', reviewReason: reason, orderId: order.id })
    .where(eq(cryptoTransactions.id, at.txRowId));
  return true;
}

/** Who numbered a recorded transfer: the built-in watcher (which records the asset), else its reporter. */
const sourceOf = (r: { asset: string | null; reportedBy: string }) =>
  r.asset !== null ? 'the built-in watcher' : r.reportedBy;

/**
 * A transaction counts toward an order once per source (docs/decisions.md section 34). Two sources
 * may number one transfer differently (the built-in watcher keys an ETH payment's own value -1, an
 * operator or another watcher may give 0, or a block-wide log index), so a transfer of a
 * transaction already counted for `order` by another source, under another position, is held as
 * `review` with a reason; an operator crediting it by hand needs a reason of their own (else
 * VALIDATION_ERROR naming `reason`). Transfers one source numbers itself (two outputs of one
 * transaction) each count. The caller holds the order's lock, so two transfers of one transaction
 * are decided one after the other. Answers whether it was held.
 */
async function heldAsSecondOfTransaction(
  tx: Executor,
  order: OrderRow,
  input: TransferInput,
): Promise<boolean> {
  if (input.txRowId === undefined) return false;
  const rows = await tx
    .select({
      id: cryptoTransactions.id,
      position: cryptoTransactions.position,
      amount: cryptoTransactions.amount,
      outcome: cryptoTransactions.outcome,
      asset: cryptoTransactions.asset,
      reportedBy: cryptoTransactions.reportedBy,
    })
    .from(cryptoTransactions)
    .where(
      and(
        eq(cryptoTransactions.network, input.network),
        eq(cryptoTransactions.txHash, input.txHash),
        eq(cryptoTransactions.orderId, order.id),
      ),
    );
  const own = rows.find((r) => r.id === input.txRowId);
  const first = rows.find(
    (r) =>
      r.id !== input.txRowId &&
      (r.outcome === 'partial' || r.outcome === 'credited') &&
      (own === undefined || sourceOf(r) !== sourceOf(own)),
  );
  if (!first) return false;
  const reason = `transaction ${input.txHash} already counted ${first.amount} toward this order at position ${first.position} (${sourceOf(first)}); reported again at position ${own?.position ?? '?'} by ${own ? sourceOf(own) : 'another source'}, which may number the same transfer differently, it counts only when an operator says so`;
  if (input.manual) {
    if (!input.manual.reason) throw invalidField('reason', `is required: ${reason}`);
    return false;
  }
  await tx
    .update(cryptoTransactions)
    .set({ outcome: 'review', reviewReason: reason, orderId: order.id })
    .where(eq(cryptoTransactions.id, input.txRowId));
  return true;
}

/**
 * The credit of a recorded transfer row `txRowId` of `amount` coins: adds it to the pending order's
 * received amount and completes the order through the lifecycle once `cryptoAmount` is reached;
 * late and unmatched transfers stay for operators.
 */
export async function applyTransfer(ctx: CreditContext, tx: Executor, input: TransferInput) {
  const { pending, late, nowMs, manual, audit } = input;
  if (!pending)
    return audit({
      outcome: late ? ('late' as const) : ('unmatched' as const),
      order_id: (pending ?? late)?.id ?? null,
      status: null,
    });
  const order = await orderQueries.lockOrder(tx, pending.id);
  if (!order) throw new AppError('ORDER_NOT_FOUND');
  if (await heldAsSecondOfTransaction(tx, order, input))
    return audit({ outcome: 'review' as const, order_id: order.id, status: order.status });
  const received = money(order.receivedAmount ?? 0).plus(input.amount);
  if (
    order.cryptoAmount === null ||
    received.lt(order.cryptoAmount) ||
    (order.status === 'error' && !manual)
  ) {
    await orderCommands.recordReceivedAmount(tx, order.id, toDbAmount(received), new Date(nowMs));
    return audit({ outcome: 'partial' as const, order_id: order.id, status: order.status });
  }
  const limit = money(order.cryptoAmount).times(ctx.manualRatio);
  const overLimit = manual !== undefined && received.gt(limit);
  if (overLimit) assertMayCreditAbove(manual, received, limit);
  const method = methodOf(order);
  const rates = await ratesFor(ctx.rates, tx, method.coin);
  if (!manual && input.txRowId !== undefined) {
    if (await heldForReview(ctx, tx, { order, method, received, rates, txRowId: input.txRowId }))
      return audit({ outcome: 'review' as const, order_id: order.id, status: order.status });
  }
  const done = await credit(ctx, tx, { order, method, received, rates, input });
  return audit(
    { outcome: 'credited' as const, order_id: done.order.id, status: done.order.status },
    {
      crypto_amount: money(order.cryptoAmount).toFixed(),
      received_total: received.toFixed(),
      credited: `${done.net.toFixed()} ${done.currency}`,
      ...(overLimit ? { above_limit: limit.toFixed() } : {}),
    },
  );
}

/** Credits the order what it received (the merchant's settlement currency, net of the fee) and moves it to success. */
async function credit(
  ctx: CreditContext,
  tx: Executor,
  at: { order: OrderRow; method: CryptoMethod; received: Decimal; rates: CryptoRates; input: TransferInput },
) {
  const { order, method, received, rates, input } = at;
  const settlement = (await findMerchant(tx, order.merchantId))?.settlement ?? 'fiat';
  const credited = cryptoCredit({
    received,
    method,
    settlement,
    feePercent: money(order.feePercent),
    rates: { coinRub: order.cryptoRate ? money(order.cryptoRate) : rates.coinRub, usdtRub: rates.usdtRub },
  });
  if (!credited) throw new AppError('EXCHANGE_RATE_UNAVAILABLE');
  if (input.txRowId !== undefined)
    await tx
      .update(cryptoTransactions)
      .set({ outcome: 'credited' })
      .where(eq(cryptoTransactions.id, input.txRowId));
  const done = await ctx.lifecycle.succeed(
    tx,
    order,
    {
      actor: input.actor,
      reason: order.status === 'error' ? `late payment ${input.txHash}` : (input.manual?.reason ?? null),
      now: new Date(input.nowMs),
    },
    {
      // The credited amount is fixed on the order (docs/decisions.md section 6): the order read, the
      // webhook and the ledger show one number.
      patch: {
        receivedAmount: toDbAmount(received),
        ...(credited.currency === 'USDT'
          ? { usdtAmountAfterFee: toDbAmount(credited.net) }
          : {
              amountAfterFee: toDbAmount(credited.net),
              fee: toDbAmount(credited.gross.minus(credited.net)),
            }),
      },
      credit: credited,
    },
  );
  return { order: done, net: credited.net, currency: credited.currency };
}
