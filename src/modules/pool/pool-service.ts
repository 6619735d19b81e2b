import { and, asc, desc, eq, gt } from 'drizzle-orm';
import type { Database, Executor } from '../../db/database.js';
import { requisiteOffers } from '../../db/tables/pool.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { writeAudit } from '../../platform/audit/index.js';
import { FIAT_TYPES, requisiteNeedFor } from '../catalog/index.js';
import type { MerchantRow } from '../merchants/index.js';
import { findRequisite, findRequisites } from '../requisites/index.js';

export type OfferRow = typeof requisiteOffers.$inferSelect;

/** The requisite an offer of `type` names: known, and able to serve that payment type. Throws VALIDATION_ERROR. */
async function offerRequisite(db: Executor, requisiteId: string, type: string) {
  if (!/^[0-9a-f-]{36}$/i.test(requisiteId)) throw invalidField('requisite_id', 'unknown requisite');
  const req = await findRequisite(db, requisiteId);
  if (!req) throw invalidField('requisite_id', 'unknown requisite');
  const need = requisiteNeedFor(type);
  if (
    !FIAT_TYPES.includes(type) ||
    !need?.kinds.includes(req.kind) ||
    (need.bankCode && need.bankCode !== req.bankCode)
  ) {
    throw invalidField('type', `a ${req.kind} requisite at ${req.bank} cannot serve ${type}`);
  }
  return req;
}

/** Writes a checked offer and its audit entry in one transaction; answers the offer as the admin API shows it. */
async function recordOffer(
  db: Database['db'],
  input: { requisite_id: string; amount: number; type: string },
  expiresAt: Date,
  createdBy: AdminActor,
) {
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
}

/**
 * Requisite pool offers (docs/decisions.md sections 12 and 23): a requisite with a fixed amount,
 * published by operators or holders' devices, listed to merchants, taken by one order.
 */
export function createPoolService(deps: { database: Database; clock: Clock }) {
  const { database, clock } = deps;
  const db = database.db;

  return {
    /** Publishes an offer: a requisite, a fixed whole amount, a type and a lifetime in seconds. */
    async publishOffer(
      input: { requisite_id: string; amount: number; type: string; ttl_seconds: number },
      createdBy: AdminActor,
    ) {
      if (!Number.isInteger(input.amount) || input.amount <= 0)
        throw invalidField('amount', 'must be a positive integer');
      await offerRequisite(db, input.requisite_id, input.type);
      return recordOffer(db, input, new Date(clock.now() + input.ttl_seconds * 1000), createdBy);
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
      const offers = await db
        .select()
        .from(requisiteOffers)
        .where(and(eq(requisiteOffers.status, 'open'), gt(requisiteOffers.expiresAt, new Date(nowMs))))
        .orderBy(asc(requisiteOffers.expiresAt))
        .limit(500);
      const pool = new Map(
        (await findRequisites(db, [...new Set(offers.map((o) => o.requisiteId))])).map((r) => [r.id, r]),
      );
      return offers
        .filter((o) => {
          const requisite = pool.get(o.requisiteId);
          return (
            requisite?.enabled === true &&
            merchant.paymentTypes.includes(o.type) &&
            merchant.currencies.includes(requisite.currency)
          );
        })
        .map((o) => ({
          id: o.id,
          amount: Number(o.amount),
          type: o.type,
          remainingSeconds: Math.max(0, Math.ceil((o.expiresAt.getTime() - nowMs) / 1000)),
        }));
    },

    /**
     * Takes an offer for an order inside its transaction (the orders module's TakeOffer): one statement that succeeds for exactly one
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
      const req = await findRequisite(ex, offer.requisiteId);
      if (!req?.enabled || !merchant.currencies.includes(req.currency))
        throw new AppError('REQUISITES_NOT_FOUND');
      return { amount: offer.amount, requisite: req };
    },
  };
}

export type PoolService = ReturnType<typeof createPoolService>;
