import { and, asc, desc, eq, getTableName, inArray, isNotNull, isNull, lt, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { deviceEvents, deviceRequisites, holderDevices } from '../../db/tables/devices.js';

/**
 * The devices module's tables (docs/decisions.md section 24): devices, their requisite bindings and their events. Only
 * this module's services call these.
 */

export type DeviceRow = typeof holderDevices.$inferSelect;
export type NewDeviceRow = typeof holderDevices.$inferInsert;
export type DeviceEventRow = typeof deviceEvents.$inferSelect;
export type NewDeviceEventRow = typeof deviceEvents.$inferInsert;

export async function insertDevice(ex: Executor, row: NewDeviceRow): Promise<DeviceRow> {
  const inserted = (await ex.insert(holderDevices).values(row).returning())[0];
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

export async function findDevice(ex: Executor, id: string, lock = false): Promise<DeviceRow | undefined> {
  const query = ex.select().from(holderDevices).where(eq(holderDevices.id, id));
  return (await (lock ? query.for('update') : query))[0];
}

export async function updateDevice(ex: Executor, id: string, patch: Partial<NewDeviceRow>) {
  return (await ex.update(holderDevices).set(patch).where(eq(holderDevices.id, id)).returning())[0];
}

export async function listDevices(ex: Executor): Promise<DeviceRow[]> {
  return ex.select().from(holderDevices).orderBy(asc(holderDevices.createdAt));
}

/** The device whose bearer token (current, or previous within its grace period) has this digest. */
export async function deviceByTokenDigest(ex: Executor, digest: string): Promise<DeviceRow | undefined> {
  return (
    await ex
      .select()
      .from(holderDevices)
      .where(
        sql`${holderDevices.tokenDigest} = ${digest} OR ${holderDevices.previousSecrets}->>'tokenDigest' = ${digest}`,
      )
      .limit(1)
  )[0];
}

/**
 * The device whose current pairing link has this digest, claimed or not, expired or not (the
 * caller tells them apart: docs/decisions.md "The pairing page"); `lock` inside a transaction
 * holds the row until the claim is written, so two claims never both succeed.
 */
export async function findPairing(ex: Executor, digest: string, lock = false) {
  const query = ex
    .select({
      id: holderDevices.id,
      name: holderDevices.name,
      sealed: holderDevices.pairingSealed,
      expiresAt: holderDevices.pairingExpiresAt,
      claimedAt: holderDevices.pairingClaimedAt,
      revokedAt: holderDevices.revokedAt,
    })
    .from(holderDevices)
    .where(eq(holderDevices.pairingDigest, digest));
  return (await (lock ? query.for('update') : query))[0];
}

/** Marks the device's pairing link claimed: the sealed answer is dropped, the digest kept. */
export async function markPairingClaimed(ex: Executor, id: string, now: Date) {
  await ex
    .update(holderDevices)
    .set({ pairingSealed: null, pairingClaimedAt: now })
    .where(eq(holderDevices.id, id));
}

/** Requisite ids bound to each device of `deviceIds` (all devices when omitted). */
export async function bindingsOf(ex: Executor, deviceIds?: string[]): Promise<Map<string, string[]>> {
  const rows = await ex
    .select()
    .from(deviceRequisites)
    .where(deviceIds ? inArray(deviceRequisites.deviceId, deviceIds) : undefined)
    .orderBy(asc(deviceRequisites.boundAt));
  const out = new Map<string, string[]>();
  for (const r of rows) out.set(r.deviceId, [...(out.get(r.deviceId) ?? []), r.requisiteId]);
  return out;
}

/** The device bound to each of the requisites, where any. */
export async function devicesOfRequisites(ex: Executor, requisiteIds: string[]) {
  if (requisiteIds.length === 0) return [];
  return ex.select().from(deviceRequisites).where(inArray(deviceRequisites.requisiteId, requisiteIds));
}

/** Replaces a device's bindings (the caller checked no other device holds them). */
export async function setBindings(ex: Executor, deviceId: string, requisiteIds: string[], now: Date) {
  await ex.delete(deviceRequisites).where(eq(deviceRequisites.deviceId, deviceId));
  if (requisiteIds.length === 0) return;
  await ex
    .insert(deviceRequisites)
    .values(requisiteIds.map((requisiteId) => ({ requisiteId, deviceId, boundAt: now })));
}

/** Inserts an event unless the device sent the same one before; undefined for a duplicate. */
export async function insertEvent(ex: Executor, row: NewDeviceEventRow): Promise<DeviceEventRow | undefined> {
  return (await ex.insert(deviceEvents).values(row).onConflictDoNothing().returning())[0];
}

export async function updateEvent(ex: Executor, id: string, patch: Partial<NewDeviceEventRow>) {
  return (await ex.update(deviceEvents).set(patch).where(eq(deviceEvents.id, id)).returning())[0];
}

export async function findEvent(ex: Executor, id: string, lock = false) {
  const query = ex.select().from(deviceEvents).where(eq(deviceEvents.id, id));
  return (await (lock ? query.for('update') : query))[0];
}

/** The first event of a device with this transport key (what a duplicate repeats). */
export async function eventByKey(ex: Executor, deviceId: string, transportKey: string) {
  return (
    await ex
      .select()
      .from(deviceEvents)
      .where(and(eq(deviceEvents.deviceId, deviceId), eq(deviceEvents.transportKey, transportKey)))
  )[0];
}

/** Events of a device stored under any of `keys` (the same message's reports, event-dedup.ts). */
export async function eventsByKeys(ex: Executor, deviceId: string, keys: string[]) {
  return ex
    .select()
    .from(deviceEvents)
    .where(and(eq(deviceEvents.deviceId, deviceId), inArray(deviceEvents.transportKey, keys)))
    .orderBy(asc(deviceEvents.receivedAt));
}

/**
 * Credits of the other channel on the requisite received within `seconds` of `at` that another
 * message already settled (confirmed, in review, assigned): the candidates of an SMS + push pair.
 */
export async function recentCredits(
  ex: Executor,
  requisiteId: string,
  at: Date,
  seconds: number,
  exceptId: string,
) {
  const from = new Date(at.getTime() - seconds * 1000).toISOString();
  const to = new Date(at.getTime() + seconds * 1000).toISOString();
  return ex
    .select()
    .from(deviceEvents)
    .where(
      and(
        eq(deviceEvents.requisiteId, requisiteId),
        eq(deviceEvents.kind, 'credit'),
        inArray(deviceEvents.status, ['confirmed', 'review', 'assigned']),
        sql`${deviceEvents.receivedAt} BETWEEN ${from}::timestamptz AND ${to}::timestamptz`,
        sql`${deviceEvents.id} <> ${exceptId}`,
      ),
    )
    .orderBy(asc(deviceEvents.receivedAt));
}

/** Events for operators, newest first, by status and device. */
export async function listEvents(
  ex: Executor,
  filter: { status?: string; deviceId?: string; limit: number },
) {
  const where: SQL[] = [];
  if (filter.status) where.push(eq(deviceEvents.status, filter.status as DeviceEventRow['status']));
  if (filter.deviceId) where.push(eq(deviceEvents.deviceId, filter.deviceId));
  return ex
    .select()
    .from(deviceEvents)
    .where(where.length > 0 ? and(...where) : undefined)
    .orderBy(desc(deviceEvents.createdAt))
    .limit(filter.limit);
}

/** Order ids that device messages paid (confirmed or assigned) among `orderIds`. */
export async function ordersPaidByMessages(ex: Executor, orderIds: string[]): Promise<Set<string>> {
  if (orderIds.length === 0) return new Set();
  const rows = await ex
    .select({ orderId: deviceEvents.orderId })
    .from(deviceEvents)
    .where(
      and(inArray(deviceEvents.orderId, orderIds), inArray(deviceEvents.status, ['confirmed', 'assigned'])),
    );
  return new Set(rows.map((r) => r.orderId as string));
}

/** The creation time of the oldest event waiting in review, or null. */
export async function oldestReview(ex: Executor): Promise<Date | null> {
  const row = (
    await ex
      .select({ at: sql<string | null>`min(${deviceEvents.createdAt})` })
      .from(deviceEvents)
      .where(eq(deviceEvents.status, 'review'))
  )[0];
  return row?.at ? new Date(row.at) : null;
}

/** Devices not revoked that have sent a heartbeat and were last seen before `before` (liveness sweep). */
export async function quietDevices(ex: Executor, before: Date) {
  return ex
    .select({ id: holderDevices.id, name: holderDevices.name, lastSeenAt: holderDevices.lastSeenAt })
    .from(holderDevices)
    .where(
      and(
        isNull(holderDevices.revokedAt),
        isNotNull(holderDevices.lastHeartbeatAt),
        lt(holderDevices.lastSeenAt, before),
      ),
    );
}

/**
 * The orders bank messages confirmed or were assigned to, found by the message's id or a piece of
 * its text (the operators' search, docs/decisions.md section 32): at most 20, newest first. `%` and `_` in the
 * text are literal.
 */
export async function orderIdsOfMessages(ex: Executor, text: string): Promise<string[]> {
  const q = text.trim();
  if (q.length < 4 || q.length > 200) return [];
  const byId = /^[0-9a-f-]{36}$/i.test(q) ? eq(deviceEvents.id, q.toLowerCase()) : undefined;
  const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = await ex
    .select({ orderId: deviceEvents.orderId })
    .from(deviceEvents)
    .where(and(isNotNull(deviceEvents.orderId), byId ?? sql`${deviceEvents.text} ILIKE ${like}`))
    .orderBy(desc(deviceEvents.createdAt))
    .limit(20);
  return rows.flatMap((r) => (r.orderId ? [r.orderId] : []));
}

/** The table whose rows every phone's heartbeat rewrites: vacuumed by the service (docs/decisions.md "The requisite claim under load"). */
export const devicesHotTable = getTableName(holderDevices);
