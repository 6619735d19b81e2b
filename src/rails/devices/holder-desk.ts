import { randomUUID } from 'node:crypto';
import type { Decimal } from 'decimal.js';
import { and, desc, eq, gte, inArray, isNull, ne, or } from 'drizzle-orm';
import type { Database, Executor } from '../../db/database.js';
import { deviceEvents, deviceRequisites, holderDevices } from '../../db/tables/devices.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { money, toDbAmount } from '../../lib/money.js';
import { ordersForReading as orders } from '../../modules/orders/index.js';
import { holderOfRequisite } from '../../modules/requisites/index.js';
import { writeAudit } from '../../platform/audit/index.js';
import { deviceState } from './device-state.js';
import { insertEvent } from './devices-repository.js';

/** The banks' time zone offset (Moscow, no daylight saving): "today" on a holder's page is theirs. */
const MOSCOW_OFFSET_MS = 3 * 3600_000;

/** The start of the Moscow day `now` falls in, as an instant. */
export function moscowDayStart(now: Date): Date {
  const local = now.getTime() + MOSCOW_OFFSET_MS;
  return new Date(local - (local % 86_400_000) - MOSCOW_OFFSET_MS);
}

/** A missed payment as a holder reports it (amount checked already, time parsed, requisite theirs). */
export interface MissedPaymentReport {
  holderId: string;
  login: string;
  ip: string;
  requisiteId: string;
  amount: Decimal;
  currency: string;
  receivedAt: Date;
  note: string;
  /** The stored receipt (the receipts rail's storage: its id and sniffed type), or null. */
  receipt: { id: string; contentType: string } | null;
}

/**
 * The holder's phones (theirs by `holder_id`, or bound to one of their requisites), not revoked, by
 * name, with their state, last sign of life and last message received.
 */
async function phonesOf(ex: Executor, holderId: string, requisiteIds: string[], now: Date) {
  const bound = requisiteIds.length
    ? (
        await ex
          .select({ deviceId: deviceRequisites.deviceId })
          .from(deviceRequisites)
          .where(inArray(deviceRequisites.requisiteId, requisiteIds))
      ).map((b) => b.deviceId)
    : [];
  const devices = await ex
    .select()
    .from(holderDevices)
    .where(
      and(
        bound.length
          ? or(eq(holderDevices.holderId, holderId), inArray(holderDevices.id, bound))
          : eq(holderDevices.holderId, holderId),
        isNull(holderDevices.revokedAt),
      ),
    )
    .orderBy(holderDevices.name);
  const out = [];
  for (const d of devices) {
    const last = (
      await ex
        .select()
        .from(deviceEvents)
        .where(and(eq(deviceEvents.deviceId, d.id), ne(deviceEvents.channel, 'system')))
        .orderBy(desc(deviceEvents.receivedAt))
        .limit(1)
    )[0];
    out.push({
      id: d.id,
      name: d.name,
      state: deviceState(d, now),
      last_seen_at: d.lastSeenAt?.toISOString() ?? null,
      last_message: last
        ? {
            received_at: last.receivedAt.toISOString(),
            source: last.source,
            amount: last.amount === null ? null : money(last.amount).toFixed(),
          }
        : null,
    });
  }
  return out;
}

/**
 * What a holder's own page reads of the devices rail and of the orders on their requisites
 * (docs/decisions.md "The holder's own page"), and the one thing it writes here: a report of a
 * payment their phone missed, raised as a review item (`reason: holder_report`, channel `system`)
 * in the operators' queue of bank messages. A system item never confirms an order (message-assign.ts):
 * an operator checks the bank and confirms the order themselves.
 */
export function createHolderDesk(deps: { database: Database; clock: Clock }) {
  const db = deps.database.db;
  const now = () => new Date(deps.clock.now());
  return {
    /** The holder's phones (theirs, or bound to `requisiteIds`): state, last seen, last message. */
    phones: (holderId: string, requisiteIds: string[]) => phonesOf(db, holderId, requisiteIds, now()),

    /** Today's (Moscow day) live orders on `requisiteIds`, newest first, at most 200. */
    async todayOrders(requisiteIds: string[]) {
      if (requisiteIds.length === 0) return [];
      const rows = await db
        .select()
        .from(orders)
        .where(
          and(
            inArray(orders.requisiteId, requisiteIds),
            gte(orders.createdAt, moscowDayStart(now())),
            eq(orders.test, false),
          ),
        )
        .orderBy(desc(orders.createdAt))
        .limit(200);
      return rows.map((o) => ({
        id: o.id,
        requisite_id: o.requisiteId,
        direction: o.direction,
        amount: money(o.payableAmount).toFixed(),
        currency: o.currency,
        status: o.status,
        created_at: o.createdAt.toISOString(),
      }));
    },

    /**
     * Raises the report in the review queue on the phone bound to the requisite (else the holder's
     * first phone). NOT_YOUR_REQUISITE when the requisite is not the holder's; VALIDATION_ERROR
     * naming `requisite_id` when the holder has no phone. Audited
     * `holder.payment_reported`. Writes no order, no ledger entry.
     */
    async reportMissed(report: MissedPaymentReport) {
      return db.transaction(async (tx) => {
        // Checked again where it is written: a requisite moved to another holder meanwhile is refused.
        if ((await holderOfRequisite(tx, report.requisiteId)) !== report.holderId)
          throw new AppError('NOT_YOUR_REQUISITE');
        const bound = (
          await tx.select().from(deviceRequisites).where(eq(deviceRequisites.requisiteId, report.requisiteId))
        )[0];
        const own = (await phonesOf(tx, report.holderId, [], now()))[0];
        const deviceId = bound?.deviceId ?? own?.id;
        if (!deviceId) throw invalidField('requisite_id', 'no phone of yours is bound to report through');
        const amount = report.amount.toFixed();
        const event = await insertEvent(tx, {
          deviceId,
          transportKey: `holder-report:${randomUUID()}`,
          app: 'holder_report',
          channel: 'system',
          source: `holder:${report.login}`,
          title: 'Holder report',
          text: `${report.login}: ${amount} ${report.currency}${report.note ? ` — ${report.note}` : ''}`,
          receivedAt: report.receivedAt,
          amount: toDbAmount(report.amount),
          requisiteId: report.requisiteId,
          status: 'review',
          reason: 'holder_report',
          fields: {
            reported_by: report.login,
            ...(report.note ? { note: report.note } : {}),
            ...(report.receipt
              ? { receipt_file_id: report.receipt.id, receipt_content_type: report.receipt.contentType }
              : {}),
          },
        });
        if (!event) throw new Error('review item insert returned nothing');
        await writeAudit(
          tx,
          { name: `holder:${report.login}`, ip: report.ip },
          {
            action: 'holder.payment_reported',
            targetType: 'device_event',
            targetId: event.id,
            after: { requisite_id: report.requisiteId, amount, received_at: report.receivedAt.toISOString() },
          },
        );
        return { id: event.id, status: event.status };
      });
    },
  };
}

export type HolderDesk = ReturnType<typeof createHolderDesk>;
