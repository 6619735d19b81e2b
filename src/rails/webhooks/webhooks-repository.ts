import { and, desc, eq, inArray, isNotNull, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { webhookAttempts, webhookDeliveries } from '../../db/tables/webhooks.js';

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** Writes a pending delivery due at `dueAt`; call it in the transaction of the status change. */
export async function insertDelivery(
  ex: Executor,
  row: {
    orderId: string | null;
    merchantId: string;
    url: string;
    body: string;
    dueAt: Date;
    resendOf?: string | null;
    /** An event subscription's delivery (docs/decisions.md section 26): its type, event id and subscription. */
    eventType?: string | null;
    eventId?: string | null;
    subscriptionId?: string | null;
    /** About a test order (or a test event sent with a test key): signed with the test key. */
    test?: boolean;
  },
): Promise<DeliveryRow> {
  const rows = await ex
    .insert(webhookDeliveries)
    .values({
      orderId: row.orderId,
      merchantId: row.merchantId,
      url: row.url,
      body: row.body,
      nextAttemptAt: row.dueAt,
      resendOf: row.resendOf ?? null,
      eventType: row.eventType ?? null,
      eventId: row.eventId ?? null,
      subscriptionId: row.subscriptionId ?? null,
      test: row.test ?? false,
    })
    .returning();
  const inserted = rows[0];
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

/** Age in seconds of the oldest due, undelivered webhook; 0 when none is due. */
export async function outboxLagSeconds(ex: Executor): Promise<number> {
  const rows = await ex
    .select({
      lag: sql<string | null>`EXTRACT(EPOCH FROM (now() - min(${webhookDeliveries.nextAttemptAt})))::float`,
    })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.status, 'pending'), lte(webhookDeliveries.nextAttemptAt, sql`now()`)));
  return Math.max(0, Number(rows[0]?.lag ?? 0));
}

/** A claimed delivery: the lease token proves this worker still owns it when recording the result. */
export interface ClaimedDelivery {
  id: string;
  merchantId: string;
  url: string;
  body: string;
  attempts: number;
  /** A sandbox delivery: signed with the merchant's test key. */
  test: boolean;
  lockToken: string;
}

/**
 * Claims up to `limit` due deliveries for one worker: rows not leased (or whose lease ran out, e.g.
 * the worker died mid-send) are leased until `leaseUntil` under `token`. One short statement with
 * FOR UPDATE SKIP LOCKED, so concurrent workers never claim the same row.
 */
export async function claimDueDeliveries(
  ex: Executor,
  now: Date,
  leaseUntil: Date,
  token: string,
  limit: number,
): Promise<ClaimedDelivery[]> {
  const due = ex
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.status, 'pending'),
        lte(webhookDeliveries.nextAttemptAt, now),
        or(isNull(webhookDeliveries.lockedUntil), lt(webhookDeliveries.lockedUntil, now)),
      ),
    )
    .orderBy(webhookDeliveries.nextAttemptAt)
    .limit(limit)
    .for('update', { skipLocked: true });
  const rows = await ex
    .update(webhookDeliveries)
    .set({ lockedUntil: leaseUntil, lockToken: token })
    .where(sql`${webhookDeliveries.id} IN ${due}`)
    .returning({
      id: webhookDeliveries.id,
      merchantId: webhookDeliveries.merchantId,
      url: webhookDeliveries.url,
      body: webhookDeliveries.body,
      attempts: webhookDeliveries.attempts,
      test: webhookDeliveries.test,
    });
  return rows.map((r) => ({ ...r, lockToken: token }));
}

/** The outcome of one try, and what the delivery becomes. */
export interface AttemptResult {
  startedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseSnippet: string | null;
  /** The delivery's new state: delivered, exhausted, or pending again at `nextAttemptAt`. */
  status: 'delivered' | 'pending' | 'exhausted';
  nextAttemptAt: Date;
}

/**
 * Records tries and moves their deliveries, in one statement for the whole list, each only while its
 * `lockToken` still owns the row (a worker whose lease ran out cannot overwrite the newer owner).
 * Returns the ids that were recorded.
 */
export async function recordAttempts(
  ex: Executor,
  items: Array<{ delivery: ClaimedDelivery; result: AttemptResult }>,
): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  const rows = items.map(({ delivery, result: r }) => ({
    id: delivery.id,
    token: delivery.lockToken,
    status: r.status,
    next_at: r.nextAttemptAt.toISOString(),
    code: r.statusCode,
    err: r.error,
    delivered_at: r.status === 'delivered' ? r.startedAt.toISOString() : null,
    started_at: r.startedAt.toISOString(),
    latency: r.latencyMs,
    snippet: r.responseSnippet,
  }));
  const result = await ex.execute(sql`
    WITH input AS (
      SELECT * FROM json_to_recordset(${JSON.stringify(rows)}::json) AS t(
        id uuid, token uuid, status text, next_at timestamptz, code int, err text,
        delivered_at timestamptz, started_at timestamptz, latency int, snippet text)
    ), moved AS (
      UPDATE ${webhookDeliveries} d
      SET attempts = d.attempts + 1,
          status = i.status,
          next_attempt_at = i.next_at,
          locked_until = NULL,
          lock_token = NULL,
          last_status_code = i.code,
          last_error = i.err,
          delivered_at = i.delivered_at
      FROM input i
      WHERE d.id = i.id AND d.lock_token = i.token
      RETURNING d.id, d.attempts, i.started_at, i.code, i.latency, i.err, i.snippet
    )
    INSERT INTO ${webhookAttempts} (delivery_id, attempt_no, started_at, status_code, latency_ms, error, response_snippet)
    SELECT id, attempts, started_at, code, latency, err, snippet FROM moved
    RETURNING delivery_id`);
  return new Set(
    (result as unknown as { rows: Array<{ delivery_id: string }> }).rows.map((r) => r.delivery_id),
  );
}

export async function findDelivery(ex: Executor, id: string): Promise<DeliveryRow | undefined> {
  return (await ex.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)).limit(1))[0];
}

/**
 * Deliveries (newest first) with their attempts: for operators, and for a merchant's own event
 * delivery log (`merchantId`, `eventsOnly`, older than `before`).
 */
export async function listDeliveries(
  ex: Executor,
  filter: {
    orderId?: string;
    status?: string;
    merchantId?: string;
    eventsOnly?: boolean;
    before?: Date;
    /** Only sandbox (true) or only live (false) deliveries; both when undefined. */
    test?: boolean;
  },
  limit: number,
) {
  const deliveries = await ex
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        filter.orderId ? eq(webhookDeliveries.orderId, filter.orderId) : undefined,
        filter.status ? eq(webhookDeliveries.status, filter.status as DeliveryRow['status']) : undefined,
        filter.merchantId ? eq(webhookDeliveries.merchantId, filter.merchantId) : undefined,
        filter.eventsOnly ? isNotNull(webhookDeliveries.eventType) : undefined,
        filter.before ? lt(webhookDeliveries.createdAt, filter.before) : undefined,
        filter.test === undefined ? undefined : eq(webhookDeliveries.test, filter.test),
      ),
    )
    .orderBy(desc(webhookDeliveries.createdAt))
    .limit(limit);
  const ids = deliveries.map((d) => d.id);
  const attempts =
    ids.length === 0
      ? []
      : await ex
          .select()
          .from(webhookAttempts)
          .where(inArray(webhookAttempts.deliveryId, ids))
          .orderBy(webhookAttempts.deliveryId, webhookAttempts.attemptNo);
  return deliveries.map((d) => ({ delivery: d, attempts: attempts.filter((a) => a.deliveryId === d.id) }));
}
