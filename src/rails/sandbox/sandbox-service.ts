import type { Database } from '../../db/database.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { money } from '../../lib/money.js';
import type { MerchantRow } from '../../modules/merchants/index.js';
import {
  type OrderLifecycle,
  type OrderRow,
  type OrdersService,
  orderQueries,
} from '../../modules/orders/index.js';
import { writeAudit } from '../../platform/audit/index.js';
import type { CryptoService } from '../crypto/index.js';
import type { ReceiptsService } from '../receipts/index.js';

/**
 * What a test order can be driven to (docs/decisions.md section 29). `paid_other_amount` pays `amount`
 * instead of the order's: on a crypto order the live credit rules apply (less leaves it pending
 * with the amount recorded, more completes it with the amount credited); on a fiat order it
 * confirms nothing, as a bank transfer of another amount confirms nothing live.
 */
export const SANDBOX_OUTCOMES = [
  'paid',
  'paid_other_amount',
  'expired',
  'cancelled',
  'receipt_accepted',
  'receipt_rejected',
  'payout_sent',
  'payout_failed',
] as const;

export type SandboxOutcome = (typeof SANDBOX_OUTCOMES)[number];

export function isSandboxOutcome(value: unknown): value is SandboxOutcome {
  return typeof value === 'string' && (SANDBOX_OUTCOMES as readonly string[]).includes(value);
}

/** The outcomes a test order can take now: what the portal and the form offer as buttons. */
export function outcomesFor(order: {
  test: boolean;
  status: string;
  direction: string;
  receiptStatus: string | null;
}): SandboxOutcome[] {
  if (!order.test) return [];
  const out: SandboxOutcome[] = [];
  if (order.receiptStatus === 'under_review') out.push('receipt_accepted', 'receipt_rejected');
  if (order.status !== 'pending') return out;
  if (order.direction === 'PAYOUT') return [...out, 'payout_sent', 'payout_failed'];
  return [...out, 'paid', 'paid_other_amount', 'expired', 'cancelled'];
}

/** The outcomes that are a lifecycle move, with the status reason the order keeps. */
const MOVES: Partial<Record<SandboxOutcome, { to: 'success' | 'error'; reason: string | null }>> = {
  paid: { to: 'success', reason: null },
  payout_sent: { to: 'success', reason: null },
  expired: { to: 'error', reason: 'expired' },
  cancelled: { to: 'error', reason: 'cancelled' },
  payout_failed: { to: 'error', reason: 'failed' },
};

const PAYIN_ONLY: readonly SandboxOutcome[] = ['paid', 'paid_other_amount', 'expired'];
const PAYOUT_ONLY: readonly SandboxOutcome[] = ['payout_sent', 'payout_failed'];

/** What the sandbox drives a test order through: the live lifecycle, crypto payments and receipt decisions. */
export interface SandboxDeps {
  database: Database;
  clock: Clock;
  lifecycle: OrderLifecycle;
  orders: Pick<OrdersService, 'findOwnOrder' | 'getOrder'>;
  crypto: Pick<CryptoService, 'sandboxPayment'>;
  receipts: Pick<ReceiptsService, 'decide' | 'forOrder'>;
}

/** An outcome that is a lifecycle move (MOVES), made on the locked pending order and audited by the lifecycle. */
async function move(deps: SandboxDeps, order: OrderRow, outcome: SandboxOutcome, actor: AdminActor) {
  const step = MOVES[outcome];
  if (!step) throw new AppError('ORDER_STATE_CONFLICT');
  const { to, reason } = step;
  await deps.database.db.transaction(async (tx) => {
    const locked = await orderQueries.lockOrder(tx, order.id);
    if (locked?.status !== 'pending') throw new AppError('ORDER_STATE_CONFLICT');
    const ctx = {
      actor: reason === 'expired' ? 'system' : 'sandbox',
      reason,
      now: new Date(deps.clock.now()),
      audit: { by: actor, action: `sandbox.${outcome}` },
    };
    if (to === 'success') await deps.lifecycle.succeed(tx, locked, ctx);
    else await deps.lifecycle.fail(tx, locked, ctx);
  });
}

/** Decides the order's receipt under review as an operator would. ORDER_STATE_CONFLICT when there is none. */
async function judgeReceipt(
  deps: SandboxDeps,
  order: OrderRow,
  decision: 'accepted' | 'rejected',
  actor: AdminActor,
) {
  const receipt = (await deps.receipts.forOrder(order.id)).find((r) => r.status === 'under_review');
  if (!receipt)
    throw new AppError('ORDER_STATE_CONFLICT', [
      {
        field: 'outcome',
        problem: 'no receipt under review: upload one first (POST /merchant/receipt/upload)',
      },
    ]);
  await deps.database.db.transaction(async (tx) => {
    const reason = decision === 'rejected' ? 'rejected in the sandbox' : null;
    const after = await deps.receipts.decide(tx, receipt.id, decision, reason, actor);
    if (after === 'missing' || after === 'decided') throw new AppError('ORDER_STATE_CONFLICT');
  });
}

/** `paid_other_amount`: a crypto order is paid `amount` (the live credit rules); a fiat one is left as it is. */
async function payOtherAmount(deps: SandboxDeps, order: OrderRow, amount: string | undefined) {
  if (amount === undefined || !/^\d{1,15}(\.\d{1,18})?$/.test(amount) || money(amount).lte(0))
    throw invalidField(
      'amount',
      'a positive amount (in the coin for a crypto order, else the order currency)',
    );
  // A fiat transfer of another amount matches no order live: nothing changes (see SANDBOX_OUTCOMES).
  if (order.method === 'crypto') await deps.crypto.sandboxPayment(order.id, money(amount));
}

/** Applies an outcome to a test order. ORDER_STATE_CONFLICT when the order cannot take it now. */
async function apply(
  deps: SandboxDeps,
  order: OrderRow,
  outcome: SandboxOutcome,
  amount: string | undefined,
  actor: AdminActor,
) {
  if (!order.test) throw new AppError('TEST_KEY_REQUIRED');
  const conflict = (problem: string) => new AppError('ORDER_STATE_CONFLICT', [{ field: 'outcome', problem }]);
  if (order.direction === 'PAYOUT' && PAYIN_ONLY.includes(outcome))
    throw conflict(`${outcome} is for PAYIN orders`);
  if (order.direction === 'PAYIN' && PAYOUT_ONLY.includes(outcome))
    throw conflict(`${outcome} is for PAYOUT orders`);
  if (outcome === 'receipt_accepted' || outcome === 'receipt_rejected') {
    await judgeReceipt(deps, order, outcome === 'receipt_accepted' ? 'accepted' : 'rejected', actor);
    return;
  }
  if (order.status !== 'pending') throw conflict(`the order is ${order.status} already`);
  if (outcome === 'paid_other_amount') return payOtherAmount(deps, order, amount);
  if (outcome === 'paid' && order.method === 'crypto') {
    if (order.cryptoAmount === null) throw new AppError('EXCHANGE_RATE_UNAVAILABLE');
    await deps.crypto.sandboxPayment(order.id, money(order.cryptoAmount));
    return;
  }
  return move(deps, order, outcome, actor);
}

/** The audit entry of a drive that neither the lifecycle nor receipts wrote (a crypto payment). */
async function audited(deps: SandboxDeps, order: OrderRow, outcome: SandboxOutcome, actor: AdminActor) {
  // Fiat moves are audited by the lifecycle and receipts by the receipts module; crypto payments here.
  if (outcome !== 'paid_other_amount' && !(outcome === 'paid' && order.method === 'crypto')) return;
  await writeAudit(deps.database.db, actor, {
    action: `sandbox.${outcome}`,
    targetType: 'order',
    targetId: order.id,
    after: { outcome },
  });
}

/**
 * The sandbox (docs/decisions.md section 29): drives a test order to an outcome through the same lifecycle as
 * live orders, so the answers, the success webhook and the event subscriptions are the live ones
 * (signed with the test key); no ledger entry, requisite or chain is touched. Every drive is
 * audited as `sandbox.<outcome>`.
 */
export function createSandboxService(deps: SandboxDeps) {
  const db = deps.database.db;

  return {
    /**
     * `POST /merchant/sandbox/orders/{id}/outcome`: a test key's order (by internal or external id)
     * driven to `outcome`; answers the order as `GET /merchant/order/{id}` does. TEST_KEY_REQUIRED
     * with a live key, ORDER_NOT_FOUND, ORDER_STATE_CONFLICT, VALIDATION_ERROR naming `amount`.
     */
    async drive(
      merchant: MerchantRow,
      id: string,
      input: { outcome: SandboxOutcome; amount?: string },
      ip: string,
    ) {
      if (!merchant.test) throw new AppError('TEST_KEY_REQUIRED');
      const order = await deps.orders.findOwnOrder(merchant, id);
      const actor = { name: `merchant:${merchant.id}`, ip };
      await apply(deps, order, input.outcome, input.amount, actor);
      await audited(deps, order, input.outcome, actor);
      return deps.orders.getOrder(merchant, order.id);
    },

    /**
     * The portal's and the test payment form's buttons: a test order by internal id (`merchantId`
     * given: only that merchant's), driven to `outcome`. ORDER_NOT_FOUND for a live or another
     * merchant's order, as for a missing one.
     */
    async driveTestOrder(
      orderId: string,
      outcome: SandboxOutcome,
      actor: AdminActor,
      options: { merchantId?: string; amount?: string } = {},
    ): Promise<void> {
      const order = await orderQueries.findOrderById(db, orderId);
      if (!order?.test || (options.merchantId !== undefined && order.merchantId !== options.merchantId))
        throw new AppError('ORDER_NOT_FOUND');
      await apply(deps, order, outcome, options.amount, actor);
      await audited(deps, order, outcome, actor);
    },
  };
}

export type SandboxService = ReturnType<typeof createSandboxService>;
