/**
 * One pipeline for every phone's message (docs/decisions.md "Bank messages: how they are read and
 * when they credit"): route it to a bank and a requisite, keep one report of a message (two apps,
 * retries), gather the facts inside the requisite's lock, decide (message-decision.ts) and apply
 * the outcome in the same transaction.
 */
import { sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/database.js';
import { money } from '../../lib/money.js';
import type { MessageChannel, MessageFields } from '../../modules/bank-messages/index.js';
import type { BanksService } from '../../modules/banks/index.js';
import type { OrderLifecycle } from '../../modules/orders/index.js';
import {
  findRequisites,
  pauseRequisites,
  type RequisiteRow,
  requisiteMasks,
} from '../../modules/requisites/index.js';
import { ordersForCredit } from './device-order-reads.js';
import {
  bindingsOf,
  type DeviceEventRow,
  type DeviceRow,
  eventsByKeys,
  findEvent,
  insertEvent,
  recentCredits,
  updateEvent,
} from './devices-repository.js';
import {
  CHANNEL_DOUBT_SECONDS,
  contentKey,
  nearKeys,
  SAME_MESSAGE_SECONDS,
  transportKey,
} from './event-dedup.js';
import { decideMessage, type MessageOutcome } from './message-decision.js';
import { type MessageRoute, routeMessage } from './message-routing.js';

/** The apps a device event comes from. */
export type DeviceApp = 'sms_gateway' | 'sms_forwarder' | 'native';

/** One SMS or push as any app reported it. */
export interface IncomingMessage {
  channel: MessageChannel;
  source: string;
  text: string;
  title?: string;
  receivedAt: Date;
}

/** What the device is told (2xx): the outcome, so that apps stop retrying. */
export interface IngestAnswer {
  status: 'confirmed' | 'review' | 'paired' | 'ignored' | 'block' | 'alert' | 'duplicate' | 'ok';
  event_id?: string;
  reason?: string;
}

/** Counters the metrics module keeps. */
export interface DeviceMetrics {
  messageRead(bank: string, parse: 'parsed' | 'unparsed' | 'ambiguous'): void;
  creditDecided(outcome: 'confirmed' | 'review' | 'paired'): void;
  alert(kind: 'block' | 'unknown_source_block' | 'offline'): void;
}

/** How far back an expired order still takes a credit as a late payment for operators, in ms. */
const LATE_WINDOW_MS = 24 * 3600_000;

const readCredit = (e: Pick<DeviceEventRow, 'channel' | 'requisiteId' | 'receivedAt' | 'fields'>) => ({
  channel: e.channel as MessageChannel,
  requisiteId: e.requisiteId ?? '',
  receivedAt: e.receivedAt,
  fields: (e.fields ?? {}) as MessageFields,
});

export interface MessageIngestDeps {
  database: Database;
  lifecycle: OrderLifecycle;
  banks: BanksService;
  forwarderNeedsOperator: boolean;
  metrics?: DeviceMetrics;
  /** Marks the device seen (inside the caller's transaction). */
  touch(tx: Executor, device: DeviceRow, now: Date): Promise<void>;
}

/** The message's route over the device's bound requisites, and the one requisite it is about. */
async function routeOf(deps: MessageIngestDeps, device: DeviceRow, message: IncomingMessage) {
  const db = deps.database.db;
  const formats = await deps.banks.messageFormats();
  const boundIds = (await bindingsOf(db, [device.id])).get(device.id) ?? [];
  const bound = await findRequisites(db, boundIds);
  const route = routeMessage(
    formats,
    bound.map((r) => ({ id: r.id, bankCode: r.bankCode, masks: requisiteMasks(r) })),
    message,
  );
  const [only] = route.requisites;
  const requisite = route.requisites.length === 1 && only ? bound.find((r) => r.id === only.id) : undefined;
  return { route, requisite };
}

/** The event row of a message as first stored (status settled by the outcome). */
function eventRow(device: DeviceRow, app: DeviceApp, message: IncomingMessage, route: MessageRoute) {
  const { parsed, bank } = route;
  const amounts = parsed.status === 'ambiguous' ? (parsed.amounts ?? []) : [];
  // A reading in doubt keeps the amounts it shows (an operator may assign it for one of them).
  const fields =
    parsed.status === 'parsed'
      ? parsed.fields
      : amounts.length > 0
        ? { amount: amounts[0], amounts: amounts.join(' ') }
        : undefined;
  // Not a bank's message at all: kept without its text (private messages are not ours).
  const mine = bank !== undefined;
  return {
    deviceId: device.id,
    transportKey: transportKey({ deviceId: device.id, ...message, text: fullText(message) }),
    app,
    channel: message.channel,
    source: message.source,
    title: mine ? (message.title ?? null) : null,
    text: mine ? message.text : null,
    receivedAt: message.receivedAt,
    bankCode: bank?.code ?? null,
    parse: parsed.status,
    kind: parsed.status === 'parsed' ? parsed.kind : null,
    ruleId: parsed.status === 'parsed' ? parsed.ruleId : null,
    fields: (fields ?? null) as Record<string, string> | null,
    amount: fields?.amount ?? null,
    status: 'ignored' as const,
  };
}

const fullText = (m: IncomingMessage) => (m.title ? `${m.title}\n${m.text}` : m.text);

/**
 * An earlier report of the same message (same device, channel, sender and normalised text within
 * 60 s): under a lock on the content, so two apps reporting it at once store it once.
 */
async function earlierReport(tx: Executor, device: DeviceRow, message: IncomingMessage) {
  const keyed = { deviceId: device.id, ...message, text: fullText(message) };
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`device-message:${contentKey(keyed)}`}))`);
  const near = await eventsByKeys(tx, device.id, nearKeys(keyed));
  const at = message.receivedAt.getTime();
  return near.find((e) => Math.abs(e.receivedAt.getTime() - at) <= SAME_MESSAGE_SECONDS * 1000);
}

/**
 * One SMS or push from any app: routed, de-duplicated, decided and applied in one transaction. A
 * repeat answers `duplicate` with the first report's id.
 */
export async function ingestMessage(
  deps: MessageIngestDeps,
  device: DeviceRow,
  app: DeviceApp,
  message: IncomingMessage,
  now: Date,
): Promise<IngestAnswer> {
  const { route, requisite } = await routeOf(deps, device, message);
  if (route.bank) deps.metrics?.messageRead(route.bank.code, route.parsed.status);
  return deps.database.db.transaction(async (tx) => {
    const first = await earlierReport(tx, device, message);
    if (first) return { status: 'duplicate', event_id: first.id } satisfies IngestAnswer;
    const event = await insertEvent(tx, {
      ...eventRow(device, app, message, route),
      requisiteId: requisite?.id ?? null,
    });
    if (!event) return { status: 'duplicate' } satisfies IngestAnswer;
    await deps.touch(tx, device, now);
    const facts = await gatherFacts(
      tx,
      route,
      requisite,
      event,
      app === 'sms_forwarder' && deps.forwarderNeedsOperator,
      now,
    );
    const outcome = decideMessage(facts.facts);
    return applyOutcome(deps, tx, { device, event, route, outcome, orders: facts.orders, now });
  });
}

/**
 * Decides again a stored message that waited in review as `unknown_source`, after an operator said
 * whose its sender is: routed with the bank's new list, then decided and applied like a new one.
 * Answers undefined when the message is no longer waiting for that.
 */
export async function redecideMessage(
  deps: MessageIngestDeps,
  device: DeviceRow,
  stored: DeviceEventRow,
  now: Date,
): Promise<IngestAnswer | undefined> {
  if (stored.channel === 'system' || stored.text === null) return undefined;
  const message: IncomingMessage = {
    channel: stored.channel,
    source: stored.source,
    text: stored.text,
    ...(stored.title ? { title: stored.title } : {}),
    receivedAt: stored.receivedAt,
  };
  const { route, requisite } = await routeOf(deps, device, message);
  return deps.database.db.transaction(async (tx) => {
    const locked = await findEvent(tx, stored.id, true);
    if (locked?.status !== 'review' || locked.reason !== 'unknown_source') return undefined;
    const {
      deviceId: _d,
      transportKey: _k,
      app: _a,
      ...columns
    } = eventRow(device, 'native', message, route);
    const event = await updateEvent(tx, stored.id, {
      ...columns,
      requisiteId: requisite?.id ?? null,
      reason: null,
    });
    if (!event) return undefined;
    const weak = stored.app === 'sms_forwarder' && deps.forwarderNeedsOperator;
    const facts = await gatherFacts(tx, route, requisite, event, weak, now);
    return applyOutcome(deps, tx, {
      device,
      event,
      route,
      outcome: decideMessage(facts.facts),
      orders: facts.orders,
      now,
    });
  });
}

/** The facts of the decision; for a credit on one requisite, read under that requisite's lock. */
async function gatherFacts(
  tx: Executor,
  route: MessageRoute,
  requisite: RequisiteRow | undefined,
  event: DeviceEventRow,
  needsOperator: boolean,
  now: Date,
) {
  const { parsed } = route;
  const base = {
    bankKnown: route.bank !== undefined,
    parsed,
    sourceAllowed: route.sourceAllowed,
    channel: event.channel as MessageChannel,
    receivedAt: event.receivedAt,
    requisites: route.requisites.length,
    maskUnknown: route.maskUnknown,
    needsOperator,
    ...(requisite
      ? {
          requisite: {
            id: requisite.id,
            currency: requisite.currency,
            blocked: requisite.pausedReason === 'block',
            masks: requisiteMasks(requisite),
          },
        }
      : {}),
  };
  const amount = parsed.status === 'parsed' && parsed.kind === 'credit' ? parsed.fields.amount : undefined;
  if (!requisite || !amount || !route.sourceAllowed)
    return { facts: { ...base, orders: [], recentCredits: [] }, orders: [] };
  // One credit at a time per requisite: pairing and the order choice see each other's commits.
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`device-credit:${requisite.id}`}))`);
  const orders = await ordersForCredit(
    tx,
    { requisiteId: requisite.id, currency: requisite.currency, amount: money(amount) },
    new Date(now.getTime() - LATE_WINDOW_MS),
  );
  // Wider than the pairing window: a later report of the same transfer is doubted, not credited.
  const recent = await recentCredits(tx, requisite.id, event.receivedAt, CHANNEL_DOUBT_SECONDS, event.id);
  const facts = {
    ...base,
    orders: orders.map((o) => ({
      id: o.order.id,
      status: o.status,
      payableAmount: o.order.payableAmount,
      createdAt: o.order.createdAt,
      expiresAt: o.order.expiresAt ?? o.order.createdAt,
    })),
    recentCredits: recent.map((r) => ({ ...readCredit(r), id: r.id, orderId: r.orderId })),
  };
  return { facts, orders };
}

/** Applies the decided outcome to the stored event (and the order or requisites it names). */
async function applyOutcome(
  deps: MessageIngestDeps,
  tx: Executor,
  c: {
    device: DeviceRow;
    event: DeviceEventRow;
    route: MessageRoute;
    outcome: MessageOutcome;
    orders: Awaited<ReturnType<typeof ordersForCredit>>;
    now: Date;
  },
): Promise<IngestAnswer> {
  const { event, outcome } = c;
  const answer = (status: IngestAnswer['status'], reason?: string): IngestAnswer => ({
    status,
    event_id: event.id,
    ...(reason ? { reason } : {}),
  });
  switch (outcome.action) {
    case 'private':
    case 'noise':
    case 'ignore':
      return answer('ignored');
    case 'alert':
      await updateEvent(tx, event.id, { status: 'alert', reason: outcome.reason });
      deps.metrics?.alert('unknown_source_block');
      return answer('alert');
    case 'block': {
      const ids = c.route.requisites.map((r) => r.id);
      const paused = await pauseRequisites(tx, ids, 'block', ['stale', 'liveness'], c.now);
      await updateEvent(tx, event.id, { status: 'block', reason: `paused ${paused.length}` });
      deps.metrics?.alert('block');
      return answer('block');
    }
    case 'paired':
      await updateEvent(tx, event.id, {
        status: 'paired',
        pairedEventId: outcome.eventId,
        orderId: outcome.orderId,
      });
      deps.metrics?.creditDecided('paired');
      return answer('paired');
    case 'review':
      await updateEvent(tx, event.id, {
        status: 'review',
        reason: outcome.reason,
        orderId: outcome.orderId ?? null,
      });
      deps.metrics?.creditDecided('review');
      return answer('review', outcome.reason);
    case 'confirm': {
      const order = c.orders.find((o) => o.order.id === outcome.orderId)?.order;
      if (!order) throw new Error('decided order not among the candidates');
      await deps.lifecycle.succeed(tx, order, {
        actor: `device:${c.device.name}`,
        reason: `bank ${event.channel} from ${event.source}`,
        now: c.now,
      });
      await updateEvent(tx, event.id, { status: 'confirmed', reason: null, orderId: order.id });
      deps.metrics?.creditDecided('confirmed');
      return answer('confirmed');
    }
  }
}
