import { and, asc, desc, eq, gt, inArray, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/database.js';
import { bankNotifications, orders, requisiteOffers, requisites, traderDevices } from '../../db/schema.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { money, toDbAmount } from '../../lib/money.js';
import { randomToken, sha256Hex } from '../../lib/secrets.js';
import { writeAudit } from '../audit/audit.js';
import type { MerchantRow } from '../merchants/merchants-repository.js';
import type { OrderLifecycle } from '../orders/order-lifecycle.js';
import { findOrderForUpdate } from '../orders/orders-repository.js';
import { FIAT_TYPES, requisiteNeedFor } from '../orders/payment-types.js';

/** How long a payment to an expired order is held for operators rather than ignored (issue 9). */
export const LATE_WINDOW_MS = 24 * 3600 * 1000;

export type DeviceRow = typeof traderDevices.$inferSelect;
export type OfferRow = typeof requisiteOffers.$inferSelect;
export type NotificationRow = typeof bankNotifications.$inferSelect;

/** A notification from a holder's device (`POST /trader/notifications`). */
export interface NotificationInput {
  message_id: string;
  requisite_id: string;
  amount: string | number;
  currency: string;
  received_at: string;
  text?: string | undefined;
}

function notificationView(n: NotificationRow) {
  return {
    id: n.id,
    message_id: n.messageId,
    requisite_id: n.requisiteId,
    amount: n.amount,
    currency: n.currency,
    received_at: n.receivedAt.toISOString(),
    text: n.text,
    status: n.status,
    reason: n.reason,
    order_id: n.orderId,
    created_at: n.createdAt.toISOString(),
  };
}

/**
 * Requisite pool offers and bank-notification matching (issue 9; decisions.md sections 7 and 12).
 * A notification confirms the one pending PAYIN order on its requisite whose payable amount equals the
 * notified amount, in one transaction with the ledger credit and the webhook; anything else is kept
 * for operators, never guessed.
 */
export function createPoolService(deps: { database: Database; clock: Clock; lifecycle: OrderLifecycle }) {
  const { database, clock, lifecycle } = deps;
  const db = database.db;

  async function offerRequisite(requisiteId: string, type: string) {
    if (!/^[0-9a-f-]{36}$/i.test(requisiteId)) throw invalidField('requisite_id', 'unknown requisite');
    const req = (await db.select().from(requisites).where(eq(requisites.id, requisiteId)))[0];
    if (!req) throw invalidField('requisite_id', 'unknown requisite');
    const need = requisiteNeedFor(type);
    if (
      !FIAT_TYPES.includes(type) ||
      !need ||
      !need.kinds.includes(req.kind) ||
      (need.bankCode && need.bankCode !== req.bankCode)
    ) {
      throw invalidField('type', `a ${req.kind} requisite at ${req.bank} cannot serve ${type}`);
    }
    return req;
  }

  return {
    /** Publishes an offer: a requisite, a fixed whole amount, a type and a lifetime in seconds. */
    async publishOffer(
      input: { requisite_id: string; amount: number; type: string; ttl_seconds: number },
      createdBy: AdminActor,
    ) {
      if (!Number.isInteger(input.amount) || input.amount <= 0)
        throw invalidField('amount', 'must be a positive integer');
      await offerRequisite(input.requisite_id, input.type);
      const expiresAt = new Date(clock.now() + input.ttl_seconds * 1000);
      return db.transaction(async (tx) => {
        const row = (
          await tx
            .insert(requisiteOffers)
            .values({
              requisiteId: input.requisite_id,
              amount: String(input.amount),
              type: input.type,
              expiresAt,
              createdBy: createdBy.name,
            })
            .returning()
        )[0];
        if (!row) throw new Error('insert returned no row');
        await writeAudit(tx, createdBy, {
          action: 'pool.offer',
          targetType: 'requisite',
          targetId: input.requisite_id,
          after: { offer_id: row.id, amount: row.amount, type: row.type },
        });
        return {
          id: row.id,
          requisite_id: row.requisiteId,
          amount: Number(row.amount),
          type: row.type,
          expires_at: row.expiresAt.toISOString(),
          status: row.status,
        };
      });
    },

    async listOffers() {
      const rows = await db
        .select()
        .from(requisiteOffers)
        .orderBy(desc(requisiteOffers.createdAt))
        .limit(500);
      return rows.map((r) => ({
        id: r.id,
        requisite_id: r.requisiteId,
        amount: Number(r.amount),
        type: r.type,
        status: r.status,
        expires_at: r.expiresAt.toISOString(),
        order_id: r.orderId,
        created_by: r.createdBy,
      }));
    },

    /**
     * `GET /merchant/pool/requisites`: open, unexpired offers whose type and currency the merchant has
     * enabled, `{id, amount, type, remainingSeconds}`, soonest to expire first.
     */
    async offersFor(merchant: MerchantRow) {
      const nowMs = clock.now();
      const rows = await db
        .select({ offer: requisiteOffers, currency: requisites.currency })
        .from(requisiteOffers)
        .innerJoin(requisites, eq(requisites.id, requisiteOffers.requisiteId))
        .where(
          and(
            eq(requisiteOffers.status, 'open'),
            gt(requisiteOffers.expiresAt, new Date(nowMs)),
            eq(requisites.enabled, true),
          ),
        )
        .orderBy(asc(requisiteOffers.expiresAt))
        .limit(500);
      return rows
        .filter(
          (r) => merchant.paymentTypes.includes(r.offer.type) && merchant.currencies.includes(r.currency),
        )
        .map((r) => ({
          id: r.offer.id,
          amount: Number(r.offer.amount),
          type: r.offer.type,
          remainingSeconds: Math.max(0, Math.ceil((r.offer.expiresAt.getTime() - nowMs) / 1000)),
        }));
    },

    /**
     * Takes an offer for an order inside its transaction: one statement that succeeds for exactly one
     * caller. Returns the offer and its requisite; REQUISITES_NOT_FOUND when taken, expired or unusable.
     */
    async takeOffer(ex: Executor, offerId: string, type: string, orderId: string, merchant: MerchantRow) {
      if (!/^[0-9a-f-]{36}$/i.test(offerId)) throw new AppError('REQUISITES_NOT_FOUND');
      const taken = await ex
        .update(requisiteOffers)
        .set({ status: 'taken', orderId })
        .where(
          and(
            eq(requisiteOffers.id, offerId),
            eq(requisiteOffers.status, 'open'),
            eq(requisiteOffers.type, type),
            gt(requisiteOffers.expiresAt, new Date(clock.now())),
          ),
        )
        .returning();
      const offer = taken[0];
      if (!offer) throw new AppError('REQUISITES_NOT_FOUND');
      const req = (await ex.select().from(requisites).where(eq(requisites.id, offer.requisiteId)))[0];
      if (!req?.enabled || !merchant.currencies.includes(req.currency))
        throw new AppError('REQUISITES_NOT_FOUND');
      return { offer, requisite: req };
    },

    /** Issues a device token (shown once) for a holder's phone, bound to its requisites. */
    async createDevice(input: { name: string; requisite_ids: string[] }, actor: AdminActor) {
      const token = `dev_${randomToken(32)}`;
      return db.transaction(async (tx) => {
        const known = input.requisite_ids.length
          ? await tx
              .select({ id: requisites.id })
              .from(requisites)
              .where(inArray(requisites.id, input.requisite_ids))
          : [];
        if (known.length !== new Set(input.requisite_ids).size)
          throw invalidField('requisite_ids', 'unknown requisite');
        const row = (
          await tx
            .insert(traderDevices)
            .values({ name: input.name, tokenDigest: sha256Hex(token), requisiteIds: input.requisite_ids })
            .returning()
        )[0];
        if (!row) throw new Error('insert returned no row');
        await writeAudit(tx, actor, {
          action: 'device.create',
          targetType: 'device',
          targetId: row.id,
          after: { name: row.name, requisite_ids: row.requisiteIds },
        });
        return { id: row.id, name: row.name, requisite_ids: row.requisiteIds, token };
      });
    },

    async deviceByToken(token: string): Promise<DeviceRow | undefined> {
      const row = (
        await db
          .select()
          .from(traderDevices)
          .where(eq(traderDevices.tokenDigest, sha256Hex(token)))
          .limit(1)
      )[0];
      return row?.enabled ? row : undefined;
    },

    /**
     * Stores and matches a bank notification (issue 9 section 3). The same `message_id` from the same
     * device twice changes nothing (the first outcome is returned). Throws FORBIDDEN for a requisite
     * that is not the device's.
     */
    async ingest(device: DeviceRow, input: NotificationInput) {
      if (!device.requisiteIds.includes(input.requisite_id)) throw new AppError('FORBIDDEN');
      const amount = money(String(input.amount));
      const receivedAt = new Date(input.received_at);
      if (Number.isNaN(receivedAt.getTime())) throw invalidField('received_at', 'must be an ISO 8601 time');
      const nowMs = clock.now();
      const now = new Date(nowMs);
      return db.transaction(async (tx) => {
        const inserted = await tx
          .insert(bankNotifications)
          .values({
            deviceId: device.id,
            messageId: input.message_id,
            requisiteId: input.requisite_id,
            amount: toDbAmount(amount),
            currency: input.currency,
            receivedAt,
            text: input.text ?? null,
            status: 'unmatched',
            reason: 'no_order',
          })
          .onConflictDoNothing()
          .returning();
        const note = inserted[0];
        if (!note) {
          const first = (
            await tx
              .select()
              .from(bankNotifications)
              .where(
                and(
                  eq(bankNotifications.deviceId, device.id),
                  eq(bankNotifications.messageId, input.message_id),
                ),
              )
          )[0];
          return { duplicate: true, ...(first ? notificationView(first) : {}) };
        }
        const sameAmount = and(
          eq(orders.requisiteId, input.requisite_id),
          eq(orders.method, 'fiat'),
          eq(orders.currency, input.currency),
          sql`${orders.payableAmount} = ${toDbAmount(amount)}::numeric`,
        );
        const candidates = await tx
          .select()
          .from(orders)
          .where(and(sameAmount, eq(orders.status, 'pending'), gt(orders.expiresAt, now)))
          .for('update');
        let patch: Partial<NotificationRow>;
        if (candidates.length === 1 && candidates[0]) {
          await lifecycle.succeed(tx, candidates[0], {
            actor: `device:${device.name}`,
            reason: `bank notification ${input.message_id}`,
            now,
          });
          patch = { status: 'matched', reason: null, orderId: candidates[0].id };
        } else if (candidates.length > 1) {
          patch = { status: 'unmatched', reason: 'ambiguous' };
        } else {
          const late = await tx
            .select({ id: orders.id })
            .from(orders)
            .where(
              and(
                sameAmount,
                sql`(${orders.status} = 'error' AND ${orders.statusReason} = 'expired' AND ${orders.finishedAt} > ${new Date(nowMs - LATE_WINDOW_MS).toISOString()}::timestamptz)
                    OR (${orders.status} = 'pending' AND ${orders.expiresAt} <= ${now.toISOString()}::timestamptz)`,
              ),
            )
            .orderBy(desc(orders.createdAt))
            .limit(1);
          patch = late[0]
            ? { status: 'late', reason: 'late', orderId: late[0].id }
            : { status: 'unmatched', reason: 'no_order' };
        }
        const done = (
          await tx.update(bankNotifications).set(patch).where(eq(bankNotifications.id, note.id)).returning()
        )[0];
        return { duplicate: false, ...notificationView(done ?? note) };
      });
    },

    /** Operators: notifications by status (e.g. unmatched, late), newest first. */
    async listNotifications(status: NotificationRow['status'] | undefined) {
      const rows = await db
        .select()
        .from(bankNotifications)
        .where(status ? eq(bankNotifications.status, status) : undefined)
        .orderBy(desc(bankNotifications.createdAt))
        .limit(500);
      return rows.map(notificationView);
    },

    /**
     * An operator assigns an unmatched or late notification to an order: the order succeeds (a late one
     * with the notification as the reason) in the same transaction; audited.
     */
    async assign(notificationId: string, orderId: string, actor: AdminActor) {
      if (!/^[0-9a-f-]{36}$/i.test(notificationId)) throw new AppError('NOT_FOUND');
      return db.transaction(async (tx) => {
        const note = (
          await tx
            .select()
            .from(bankNotifications)
            .where(eq(bankNotifications.id, notificationId))
            .for('update')
        )[0];
        if (!note) throw new AppError('NOT_FOUND');
        if (note.status === 'matched' || note.status === 'assigned')
          throw new AppError('ORDER_STATE_CONFLICT');
        const order = await findOrderForUpdate(tx, orderId);
        if (!order) throw new AppError('ORDER_NOT_FOUND');
        if (order.direction !== 'PAYIN') throw new AppError('ORDER_STATE_CONFLICT');
        await lifecycle.succeed(tx, order, {
          actor: actor.name.includes(':') ? actor.name : `operator:${actor.name}`,
          reason: `bank notification ${note.messageId} assigned`,
          now: new Date(clock.now()),
        });
        const done = (
          await tx
            .update(bankNotifications)
            .set({ status: 'assigned', orderId })
            .where(eq(bankNotifications.id, note.id))
            .returning()
        )[0];
        await writeAudit(tx, actor, {
          action: 'notification.assign',
          targetType: 'order',
          targetId: orderId,
          after: { notification_id: note.id, message_id: note.messageId },
        });
        return notificationView(done ?? note);
      });
    },
  };
}

export type PoolService = ReturnType<typeof createPoolService>;

/**
 * Disables requisites whose last `streak` orders all expired unpaid (issue 9 section 4), with the
 * reason shown to operators. Returns the ids disabled.
 */
export async function disableRequisitesAfterExpiredStreak(
  ex: Executor,
  requisiteIds: string[],
  streak: number,
): Promise<string[]> {
  const disabled: string[] = [];
  for (const id of new Set(requisiteIds)) {
    const last = await ex
      .select({ status: orders.status, reason: orders.statusReason })
      .from(orders)
      .where(eq(orders.requisiteId, id))
      .orderBy(desc(orders.createdAt))
      .limit(streak);
    if (last.length < streak || !last.every((o) => o.status === 'error' && o.reason === 'expired')) continue;
    const rows = await ex
      .update(requisites)
      .set({
        enabled: false,
        disabledReason: `disabled automatically: the last ${streak} orders expired unpaid`,
        updatedAt: new Date(),
      })
      .where(and(eq(requisites.id, id), eq(requisites.enabled, true)))
      .returning({ id: requisites.id });
    if (rows[0]) disabled.push(rows[0].id);
  }
  return disabled;
}
