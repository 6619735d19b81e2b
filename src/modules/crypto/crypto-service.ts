import type { Decimal } from 'decimal.js';
import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/database.js';
import { cryptoPoolAddresses, cryptoTransactions, cryptoXpubs, orders } from '../../db/schema.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { newInternalId } from '../../lib/ids.js';
import { money, toDbAmount } from '../../lib/money.js';
import { writeAudit } from '../audit/audit.js';
import type { MerchantRow } from '../merchants/merchants-repository.js';
import { type CreateOrderBody, callbackUrl, checkLimits } from '../orders/create-order-input.js';
import type { OrderLifecycle } from '../orders/order-lifecycle.js';
import type { OrderRow } from '../orders/order-view.js';
import {
  DuplicateOrderError,
  externalIdTaken,
  findOrderForUpdate,
  insertPendingOrder,
  updateOrderStatus,
} from '../orders/orders-repository.js';
import { eventActor } from '../orders/orders-service.js';
import type { Allowlist } from '../outbound/address-policy.js';
import type { RatesService } from '../rates/rates-service.js';
import {
  deriveDepositAddress,
  InvalidExtendedKeyError,
  parseExtendedPublicKey,
} from './address-derivation.js';
import {
  type CryptoMethod,
  cryptoMethod,
  cryptoRequestCurrency,
  type KeyNetwork,
  XPUB_NETWORKS,
} from './crypto-methods.js';
import {
  type CryptoRates,
  cryptoCredit,
  normaliseTxHash,
  parseCryptoAmount,
  quoteCryptoOrder,
} from './crypto-rules.js';
import { allocateDepositAddress, POOL_HOLD_MS } from './deposit-addresses.js';

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
}

/** A credit by hand (operator confirmation, late payment, assigning a reported transfer). */
interface ManualCredit {
  orderId: string;
  operator: AdminActor;
  reason: string | null;
}

const TON_ADDRESS = /^(?:[EU]Q[A-Za-z0-9_-]{46}|-?\d:[0-9a-fA-F]{64})$/;

const sameAddress = (a: string, b: string) =>
  a.startsWith('0x') ? a.toLowerCase() === b.toLowerCase() : a === b;

/**
 * A manual credit above the limit (issue 17 item 1): only the `admin` role, and only with a reason;
 * else 403 FORBIDDEN naming `received_amount`, or VALIDATION_ERROR naming `reason`.
 */
function assertMayCreditAbove(manual: ManualCredit, received: Decimal, limit: Decimal): void {
  if (manual.operator.role !== undefined && manual.operator.role !== 'admin') {
    throw new AppError('FORBIDDEN', [
      {
        field: 'received_amount',
        problem: `a total of ${received.toFixed()} is above ${limit.toFixed()} (cryptoAmount x MANUAL_CREDIT_MAX_RATIO): only an admin may credit more, with a reason`,
      },
    ]);
  }
  if (!manual.reason) {
    throw invalidField('reason', `is required to credit ${received.toFixed()}, above ${limit.toFixed()}`);
  }
}

function methodOf(order: OrderRow): CryptoMethod {
  const method = cryptoMethod(order.type);
  if (!method) throw new AppError('UNSUPPORTED_PAYMENT_TYPE');
  return method;
}

/**
 * Crypto PAYIN (merchant-api.md "createOrder - crypto PAYIN"; decisions.md sections 6 and 8; issue 4):
 * deposit addresses, exact amounts, confirmation by chain watcher or operator.
 */
export function createCryptoService(deps: {
  database: Database;
  clock: Clock;
  rates: RatesService;
  lifecycle: OrderLifecycle;
  /** Hosts merchant URLs may name although not public (OUTBOUND_ALLOWLIST). */
  outboundAllowlist: Allowlist;
  /** MANUAL_CREDIT_MAX_RATIO: a manual credit above cryptoAmount times this needs an admin and a reason. */
  manualCreditMaxRatio: string;
}) {
  const { database, clock, rates, lifecycle } = deps;
  const db = database.db;
  const manualRatio = money(deps.manualCreditMaxRatio);

  async function ratesFor(ex: Executor, coin: string): Promise<CryptoRates> {
    const [coinRub, usdtRub] = await Promise.all([
      coin === 'USDT' ? Promise.resolve(undefined) : rates.fresh(ex, coin, 'RUB'),
      rates.fresh(ex, 'USDT', 'RUB'),
    ]);
    return { coinRub, usdtRub };
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
      const audit = async <T extends { outcome: string }>(result: T, extra: Record<string, unknown> = {}) => {
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
      const candidates = await tx
        .select({
          id: orders.id,
          status: orders.status,
          finishedAt: orders.finishedAt,
          type: orders.type,
          address: orders.pdAddress,
        })
        .from(orders)
        .where(and(eq(orders.method, 'crypto'), sql`lower(${orders.pdAddress}) = lower(${payment.address})`))
        .orderBy(sql`${orders.createdAt} DESC`)
        .limit(5);
      const matching = candidates.filter(
        (c) => cryptoMethod(c.type)?.network === payment.network && sameAddress(c.address, payment.address),
      );
      const nowMs = clock.now();
      const pending = matching.find(
        (c) => c.status === 'pending' || (manual !== undefined && c.id === manual.orderId),
      );
      const late = matching.find((c) => c.finishedAt && nowMs - c.finishedAt.getTime() < POOL_HOLD_MS);
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
        })
        .onConflictDoNothing()
        .returning({ id: cryptoTransactions.id });
      let txRow = inserted[0];
      if (!txRow && manual && pending) {
        // An operator confirming with a transfer the watcher already reported as late or unmatched
        // assigns that transfer (and its recorded amount) to the order, once.
        const claimed = await tx
          .update(cryptoTransactions)
          .set({ orderId: pending.id, outcome: 'partial' })
          .where(
            and(
              eq(cryptoTransactions.network, payment.network),
              eq(cryptoTransactions.txHash, txHash),
              eq(cryptoTransactions.position, position),
              or(eq(cryptoTransactions.outcome, 'late'), eq(cryptoTransactions.outcome, 'unmatched')),
            ),
          )
          .returning({ id: cryptoTransactions.id, amount: cryptoTransactions.amount });
        if (claimed[0]) {
          txRow = { id: claimed[0].id };
          amount = money(claimed[0].amount);
        }
      }
      if (!txRow) return audit({ outcome: 'duplicate' as const, order_id: null, status: null });
      if (!pending)
        return audit({
          outcome: late ? ('late' as const) : ('unmatched' as const),
          order_id: target?.id ?? null,
          status: null,
        });

      const order = await findOrderForUpdate(tx, pending.id);
      if (!order) throw new AppError('ORDER_NOT_FOUND');
      const received = money(order.receivedAmount ?? 0).plus(amount);
      if (
        order.cryptoAmount === null ||
        received.lt(order.cryptoAmount) ||
        (order.status === 'error' && !manual)
      ) {
        await updateOrderStatus(tx, order.id, { receivedAmount: toDbAmount(received) });
        return audit({ outcome: 'partial' as const, order_id: order.id, status: order.status });
      }
      const limit = money(order.cryptoAmount).times(manualRatio);
      const overLimit = manual !== undefined && received.gt(limit);
      if (overLimit) assertMayCreditAbove(manual, received, limit);
      const method = methodOf(order);
      const merchant = await tx.execute(sql`SELECT settlement FROM merchants WHERE id = ${order.merchantId}`);
      const settlement = ((merchant as unknown as { rows: { settlement: string }[] }).rows[0]?.settlement ??
        'fiat') as 'fiat' | 'usdt';
      const currentRates = await ratesFor(tx, method.coin);
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
      await tx
        .update(cryptoTransactions)
        .set({ outcome: 'credited' })
        .where(eq(cryptoTransactions.id, txRow.id));
      const done = await lifecycle.succeed(
        tx,
        order,
        {
          actor,
          reason: order.status === 'error' ? `late payment ${txHash}` : (manual?.reason ?? null),
          now: new Date(nowMs),
        },
        {
          // The credited amount is fixed on the order (decisions.md section 6): the order read, the
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
    });
  }

  return {
    /** `createOrder` in crypto mode. Throws the codes of decisions.md section 3. */
    async createPayin(merchant: MerchantRow, body: CreateOrderBody) {
      const type = String(body.type);
      const method = cryptoMethod(type);
      if (!method) throw new AppError('UNSUPPORTED_PAYMENT_TYPE');
      if (!merchant.paymentTypes.includes(type)) throw new AppError('PAYMENT_TYPE_NOT_ALLOWED');
      if (body.convertToUsdt === true && type === 'ton') throw new AppError('USDT_CONVERSION_NOT_SUPPORTED');
      const amount = parseCryptoAmount(body.amount);
      if (!amount) throw new AppError('INVALID_AMOUNT');
      const requestCurrency = cryptoRequestCurrency(type, body.currency);
      if (!requestCurrency) throw new AppError('CURRENCY_NOT_ALLOWED');
      const successCallbackUrl = callbackUrl(body.success_callback_url, deps.outboundAllowlist);
      const id = newInternalId();
      const externalId = typeof body.order_id === 'string' ? body.order_id : id;
      if (await externalIdTaken(db, merchant.id, externalId)) throw new AppError('ORDER_ALREADY_EXISTS');
      const feePercent = money(merchant.payinFeePercentByType[type] ?? merchant.payinFeePercent);
      const quote = quoteCryptoOrder({
        amount,
        requestCurrency,
        method,
        feePercent,
        rates: await ratesFor(db, method.coin),
      });
      if (quote.rubAmount) checkLimits(merchant, type, quote.rubAmount.toFixed());
      const nowMs = clock.now();
      const now = new Date(nowMs);
      try {
        const order = await db.transaction(async (tx) => {
          const deposit = await allocateDepositAddress(tx, method.keyNetwork, now);
          if (!deposit) throw new AppError('REQUISITES_NOT_FOUND');
          const row = await insertPendingOrder(
            tx,
            {
              id,
              merchantId: merchant.id,
              externalId,
              direction: 'PAYIN',
              method: 'crypto',
              type,
              currency: requestCurrency,
              amount: toDbAmount(amount),
              payableAmount: toDbAmount(amount),
              feePercent: toDbAmount(feePercent),
              fee: toDbAmount(quote.fee ?? money(0)),
              amountAfterFee: toDbAmount(quote.amountAfterFee ?? money(0)),
              usdtAmount: quote.usdtAmount ? toDbAmount(quote.usdtAmount) : null,
              usdtAmountAfterFee: quote.usdtAmountAfterFee ? toDbAmount(quote.usdtAmountAfterFee) : null,
              cryptoAmount: quote.cryptoAmount ? quote.cryptoAmount.toFixed(8) : null,
              cryptoRate: quote.cryptoRate ? toDbAmount(quote.cryptoRate) : null,
              derivationIndex: deposit.index,
              status: 'pending',
              pdAddress: deposit.address,
              pdBank: method.coin,
              pdHolderName: method.network,
              successCallbackUrl,
              clientId: typeof body.client_id === 'string' && body.client_id ? body.client_id : null,
              comment: body.comment ?? null,
              expiresAt: new Date(nowMs + merchant.cryptoOrderTtlSeconds * 1000),
              createdAt: now,
              updatedAt: now,
            },
            `merchant:${merchant.id}`,
          );
          return row;
        });
        return order;
      } catch (err) {
        if (err instanceof DuplicateOrderError) throw new AppError('ORDER_ALREADY_EXISTS');
        throw err;
      }
    },

    /** `POST /chain/notifications`: a watcher reports a transaction to a deposit address. */
    async chainNotification(payment: ChainPayment) {
      return recordPayment(payment, 'chain-watcher');
    },

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
     * Fills `cryptoAmount` (and the USDT and RUB figures) of pending RUB-mode orders created without
     * a fresh rate, as soon as one exists (issue 4 section 2). Returns how many were filled.
     */
    async fillMissingAmounts(): Promise<number> {
      const waiting = await db
        .select()
        .from(orders)
        .where(
          and(
            eq(orders.method, 'crypto'),
            eq(orders.status, 'pending'),
            // RUB mode without an amount to send, or coin mode without the RUB figures.
            or(isNull(orders.cryptoAmount), isNull(orders.cryptoRate)),
          ),
        )
        .limit(200);
      let filled = 0;
      for (const order of waiting) {
        const method = methodOf(order);
        const quote = quoteCryptoOrder({
          amount: money(order.amount),
          requestCurrency: order.currency,
          method,
          feePercent: money(order.feePercent),
          rates: await ratesFor(db, method.coin),
        });
        if (!quote.cryptoAmount || !quote.cryptoRate) continue;
        const updated = await db
          .update(orders)
          .set({
            cryptoAmount: quote.cryptoAmount.toFixed(8),
            fee: toDbAmount(quote.fee ?? money(0)),
            amountAfterFee: toDbAmount(quote.amountAfterFee ?? money(0)),
            cryptoRate: quote.cryptoRate ? toDbAmount(quote.cryptoRate) : null,
            usdtAmount: quote.usdtAmount ? toDbAmount(quote.usdtAmount) : null,
            usdtAmountAfterFee: quote.usdtAmountAfterFee ? toDbAmount(quote.usdtAmountAfterFee) : null,
            updatedAt: new Date(clock.now()),
          })
          .where(and(eq(orders.id, order.id), eq(orders.status, 'pending'), isNull(orders.cryptoRate)))
          .returning({ id: orders.id });
        filled += updated.length;
      }
      return filled;
    },

    /** Sets the account xpub of a key network; returns the address at index 0 for the operator to check. */
    async setXpub(input: { network: string; xpub: string }, actor: AdminActor) {
      const network = input.network.toLowerCase() as KeyNetwork;
      if (!XPUB_NETWORKS.includes(network))
        throw invalidField('network', `one of ${XPUB_NETWORKS.join(', ')}`);
      const keyNetwork = network as Exclude<KeyNetwork, 'ton'>;
      let firstAddress: string;
      try {
        firstAddress = deriveDepositAddress(keyNetwork, parseExtendedPublicKey(keyNetwork, input.xpub), 0);
      } catch (err) {
        if (err instanceof InvalidExtendedKeyError) throw invalidField('xpub', err.message);
        throw err;
      }
      const xpub = input.xpub.trim();
      return db.transaction(async (tx) => {
        // Every key of the network is locked first: concurrent changes take turns.
        const keys = await tx
          .select()
          .from(cryptoXpubs)
          .where(eq(cryptoXpubs.network, network))
          .for('update');
        const before = keys.find((k) => k.active);
        await tx.update(cryptoXpubs).set({ active: false }).where(eq(cryptoXpubs.network, network));
        // The same key (known by its first address) keeps its counter, whether given as xpub or zpub.
        await tx
          .insert(cryptoXpubs)
          .values({ network, keyId: firstAddress, xpub, nextIndex: 0, active: true })
          .onConflictDoUpdate({
            target: [cryptoXpubs.network, cryptoXpubs.keyId],
            set: { xpub, active: true, updatedAt: new Date(clock.now()) },
          });
        const next = keys.find((k) => k.keyId === firstAddress)?.nextIndex ?? 0;
        await writeAudit(tx, actor, {
          action: 'crypto.set_xpub',
          targetType: 'crypto_network',
          targetId: network,
          before: before ? { xpub: before.xpub, next_index: before.nextIndex } : null,
          after: { xpub, next_index: next },
        });
        return { network, first_address: firstAddress, next_index: next };
      });
    },

    /** Loads TON pool addresses (operators); duplicates are skipped. */
    async addPoolAddresses(input: { network: string; addresses: string[] }, actor: AdminActor) {
      const network = input.network.toLowerCase();
      if (network !== 'ton') throw invalidField('network', 'pool addresses are for ton');
      const bad = input.addresses.find((a) => !TON_ADDRESS.test(a.trim()));
      if (bad !== undefined) throw invalidField('addresses', `not a TON address: ${bad}`);
      return db.transaction(async (tx) => {
        const added = await tx
          .insert(cryptoPoolAddresses)
          .values(input.addresses.map((a) => ({ network, address: a.trim() })))
          .onConflictDoNothing()
          .returning({ id: cryptoPoolAddresses.id });
        await writeAudit(tx, actor, {
          action: 'crypto.add_pool_addresses',
          targetType: 'crypto_network',
          targetId: network,
          after: { added: added.length, given: input.addresses.length },
        });
        return { network, added: added.length, skipped: input.addresses.length - added.length };
      });
    },

    /** Key networks with their next index, pool sizes, and recent unmatched or late transactions. */
    async overview() {
      const [keys, pool, attention] = await Promise.all([
        db.select().from(cryptoXpubs).where(eq(cryptoXpubs.active, true)).orderBy(cryptoXpubs.network),
        db
          .select({ network: cryptoPoolAddresses.network, total: sql<number>`count(*)` })
          .from(cryptoPoolAddresses)
          .groupBy(cryptoPoolAddresses.network),
        db
          .select()
          .from(cryptoTransactions)
          .where(
            or(
              eq(cryptoTransactions.outcome, 'late'),
              eq(cryptoTransactions.outcome, 'unmatched'),
              eq(cryptoTransactions.outcome, 'partial'),
            ),
          )
          .orderBy(sql`${cryptoTransactions.id} DESC`)
          .limit(100),
      ]);
      return {
        xpubs: keys.map((k) => ({ network: k.network, xpub: k.xpub, next_index: k.nextIndex })),
        pools: pool.map((p) => ({ network: p.network, total: Number(p.total) })),
        transactions_needing_attention: attention.map((t) => ({
          network: t.network,
          tx_hash: t.txHash,
          address: t.address,
          amount: t.amount,
          order_id: t.orderId,
          outcome: t.outcome,
          at: t.createdAt.toISOString(),
        })),
      };
    },
  };
}

export type CryptoService = ReturnType<typeof createCryptoService>;

/** Orders created or changed since `since` (for tests and operators). */
export const recentCryptoOrders = (ex: Executor, since: Date) =>
  ex
    .select()
    .from(orders)
    .where(and(eq(orders.method, 'crypto'), gt(orders.updatedAt, since)));
