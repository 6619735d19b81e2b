import { randomUUID } from 'node:crypto';
import { type Database, type Executor, notify, OUTBOX_CHANNEL } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import type { MoveHook, OrderRow } from '../../modules/orders/index.js';
import { writeAudit } from '../../platform/audit/index.js';
import { type Allowlist, publicUrl } from '../../platform/outbound/index.js';
import { EVENT_TYPES, type EventType, eventBody, eventOfMove, isEventType } from './event-types.js';
import {
  deleteSubscription,
  insertSubscription,
  merchantSubscriptions,
  type SubscriptionRow,
  subscriptionsOf,
} from './subscriptions-repository.js';
import { insertDelivery, listDeliveries } from './webhooks-repository.js';
import { deliveryView } from './webhooks-service.js';

/** Subscriptions a merchant may keep. */
export const MAX_SUBSCRIPTIONS = 10;

function subscriptionView(s: SubscriptionRow) {
  return {
    id: s.id,
    url: s.url,
    // Stored only after isEventType accepted each one.
    events: s.events as EventType[],
    enabled: s.enabled,
    test: s.test,
    created_at: s.createdAt.toISOString(),
  };
}

/** What event subscriptions work with; `orderObject` is the order as `GET /merchant/order` shows it. */
export interface EventSubscriptionsDeps {
  database: Database;
  clock: Clock;
  allowlist: Allowlist;
  orderObject: (order: OrderRow) => unknown;
  onEnqueued?: () => void;
}

/** Writes one delivery per subscription that wants `type`, in the caller's transaction; their ids. */
type Enqueue = (
  ex: Executor,
  subs: SubscriptionRow[],
  type: EventType,
  order: OrderRow | null,
  body: (id: string) => string,
  test?: boolean,
) => Promise<string[]>;

/**
 * The events' side of the outbox: the lifecycle's move hook and `emit` write a delivery per
 * subscription that wants the event, in the caller's transaction.
 */
function createEventOutbox(deps: EventSubscriptionsDeps) {
  const { clock } = deps;

  /** Writes one delivery per subscription that wants `type`, in the caller's transaction; their ids. */
  const enqueue: Enqueue = async (ex, subs, type, order, body, test = order?.test ?? false) => {
    const ids: string[] = [];
    for (const s of subs) {
      // Modes never cross (docs/decisions.md section 36): a test order's event reaches test
      // subscriptions only, a live one live subscriptions only.
      if (!s.events.includes(type) || s.test !== test) continue;
      const id = randomUUID();
      const row = await insertDelivery(ex, {
        orderId: order?.id ?? null,
        merchantId: s.merchantId,
        url: s.url,
        body: body(id),
        dueAt: new Date(clock.now()),
        eventType: type,
        eventId: id,
        subscriptionId: s.id,
        test,
      });
      ids.push(row.id);
    }
    return ids;
  };

  /**
   * The lifecycle's move hook: each move that is an event (event-types.ts `eventOfMove`) becomes a
   * delivery to every subscription of its merchant that wants it, in the move's transaction.
   */
  const onMoves: MoveHook = async (ex, moves) => {
    const events = moves
      .map((m) => ({ order: m.order, type: eventOfMove({ ...m, direction: m.order.direction }) }))
      .filter((e): e is { order: OrderRow; type: EventType } => e.type !== undefined);
    if (events.length === 0) return;
    const subs = await subscriptionsOf(ex, [...new Set(events.map((e) => e.order.merchantId))]);
    if (subs.length === 0) return;
    let written = 0;
    for (const e of events) {
      const mine = subs.filter((s) => s.merchantId === e.order.merchantId);
      const at = new Date(clock.now());
      const ids = await enqueue(ex, mine, e.type, e.order, (id) =>
        eventBody({ id, type: e.type, at, order: deps.orderObject(e.order), livemode: !e.order.test }),
      );
      written += ids.length;
    }
    if (written > 0) await notify(ex, OUTBOX_CHANNEL);
  };

  /**
   * An event that is not an order's move (a receipt judged, an appeal opened or resolved): one
   * delivery per subscription of the order's merchant that wants `type`, in the caller's
   * transaction. `extra` joins `order` in the body's `data` (e.g. `receipt`, `appeal`).
   */
  async function emit(
    ex: Executor,
    event: { type: EventType; order: OrderRow; extra?: Record<string, unknown> },
  ): Promise<void> {
    const subs = await subscriptionsOf(ex, [event.order.merchantId]);
    if (subs.length === 0) return;
    const at = new Date(clock.now());
    const ids = await enqueue(ex, subs, event.type, event.order, (id) =>
      eventBody({
        id,
        type: event.type,
        at,
        order: deps.orderObject(event.order),
        livemode: !event.order.test,
        ...(event.extra ? { extra: event.extra } : {}),
      }),
    );
    if (ids.length > 0) await notify(ex, OUTBOX_CHANNEL);
  }

  return { enqueue, onMoves, emit };
}

/** A subscription's URL and events as given: VALIDATION_ERROR naming `url` or `events`. */
function checkInput(
  input: { url: string; events: string[] },
  allowlist: Allowlist,
): { url: string; events: EventType[] } {
  const url = publicUrl(input.url, allowlist, 'url');
  if (!url) throw invalidField('url', 'must be an absolute http(s) URL');
  const bad = input.events.find((e) => !isEventType(e));
  if (bad !== undefined)
    throw invalidField('events', `unknown event ${bad}; one of ${EVENT_TYPES.join(', ')}`);
  if (input.events.length === 0) throw invalidField('events', 'name at least one event');
  return { url, events: [...new Set(input.events as EventType[])] };
}

/** The merchant's subscription `id` of a mode; NOT_FOUND for another merchant's or mode's. */
async function own(db: Executor, merchantId: string, test: boolean, id: string): Promise<SubscriptionRow> {
  const found = isUuid(id)
    ? (await merchantSubscriptions(db, merchantId, test)).find((s) => s.id === id)
    : undefined;
  if (!found) throw new AppError('NOT_FOUND');
  return found;
}

/** The body of a test event: an example order, `"test": true` (docs/api.md "Event subscriptions"). */
function testEventBody(eventId: string, type: EventType, at: Date, sandbox: boolean): string {
  const example = {
    id: 'lux-test',
    order_id: 'test-order',
    status: type.startsWith('payout') ? 'success' : 'error',
  };
  return eventBody({ id: eventId, type, at, order: example, livemode: !sandbox, extra: { test: true } });
}

/** What a merchant does with its subscriptions: subscribe, list, remove, send a test, read the log. */
function subscriptionsApi(deps: EventSubscriptionsDeps, enqueue: Enqueue) {
  const { clock } = deps;
  const db = deps.database.db;
  return {
    /**
     * `POST /merchant/webhooks/subscriptions`: a subscription of the key's mode (`test`: it gets test
     * orders' events only). VALIDATION_ERROR naming `url` or `events`; at most MAX_SUBSCRIPTIONS per mode.
     */
    async subscribe(merchantId: string, test: boolean, input: { url: string; events: string[] }, ip: string) {
      const checked = checkInput(input, deps.allowlist);
      return db.transaction(async (tx) => {
        if ((await merchantSubscriptions(tx, merchantId, test)).length >= MAX_SUBSCRIPTIONS)
          throw invalidField('url', `at most ${MAX_SUBSCRIPTIONS} subscriptions; delete one first`);
        const row = await insertSubscription(tx, { merchantId, test, ...checked });
        await writeAudit(
          tx,
          { name: `merchant:${merchantId}`, ip },
          {
            action: 'webhook.subscribe',
            targetType: 'merchant',
            targetId: merchantId,
            after: { id: row.id, url: row.url, events: row.events, test },
          },
        );
        return subscriptionView(row);
      });
    },

    /** The merchant's subscriptions of one mode (`test`), oldest first. */
    async list(merchantId: string, test: boolean) {
      return (await merchantSubscriptions(db, merchantId, test)).map(subscriptionView);
    },

    /**
     * NOT_FOUND for another merchant's subscription or one of the other mode (never told apart from
     * a missing one).
     */
    async remove(merchantId: string, test: boolean, id: string) {
      if (!isUuid(id) || !(await deleteSubscription(db, merchantId, test, id)))
        throw new AppError('NOT_FOUND');
      return { id, deleted: true as const };
    },

    /**
     * `POST /merchant/webhooks/subscriptions/{id}/test`: one event of `type` (default the first the
     * subscription names) with `"test": true` and an example order, delivered like the real ones.
     */
    async sendTest(merchantId: string, id: string, type: string | undefined, sandbox: boolean) {
      const sub = await own(db, merchantId, sandbox, id);
      const chosen = type ?? sub.events[0];
      if (!isEventType(chosen)) throw invalidField('type', `one of ${EVENT_TYPES.join(', ')}`);
      const at = new Date(clock.now());
      const deliveryIds = await db.transaction(async (tx) => {
        const ids = await enqueue(
          tx,
          [{ ...sub, events: [chosen] }],
          chosen,
          null,
          (eventId) => testEventBody(eventId, chosen, at, sandbox),
          sandbox,
        );
        await notify(tx, OUTBOX_CHANNEL);
        return ids;
      });
      deps.onEnqueued?.();
      return { delivery_id: deliveryIds[0] as string, type: chosen };
    },

    /**
     * The merchant's delivery log of one mode (`sandbox`: a test key's view): the success webhook's
     * deliveries (`event_type` null) and the event subscriptions' ones, with their attempts, newest
     * first (`before`: ISO time for paging); docs/api.md "Event subscriptions".
     */
    async deliveries(
      merchantId: string,
      page: { limit?: number | undefined; before?: string | undefined },
      sandbox = false,
    ) {
      const before = page.before ? new Date(page.before) : undefined;
      if (before && Number.isNaN(before.getTime())) throw invalidField('before', 'must be an ISO 8601 time');
      const rows = await listDeliveries(
        db,
        { merchantId, test: sandbox, ...(before ? { before } : {}) },
        page.limit ?? 50,
      );
      return rows.map((r) => deliveryView(r.delivery, r.attempts));
    },
  };
}

/**
 * Event subscriptions (docs/api.md "Event subscriptions"): a merchant's endpoints for the events of EVENT_TYPES,
 * delivered through the success webhook's outbox (same signing with the merchant's key, same
 * durable retry schedule, same attempt log). `orderObject` is the order as `GET /merchant/order`
 * shows it.
 */
export function createEventSubscriptions(deps: EventSubscriptionsDeps) {
  const { enqueue, onMoves, emit } = createEventOutbox(deps);
  return { onMoves, emit, ...subscriptionsApi(deps, enqueue) };
}

export type EventSubscriptions = ReturnType<typeof createEventSubscriptions>;
