import { sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { money } from '../../lib/money.js';
import type { SecretBox } from '../../lib/secrets.js';
import { safeEqual, sha256Hex } from '../../lib/secrets.js';
import type { MessageChannel, MessageFields } from '../../modules/bank-messages/index.js';
import type { BanksService } from '../../modules/banks/index.js';
import { type OrderLifecycle, ordersForCredit } from '../../modules/orders/index.js';
import {
  findRequisites,
  pauseRequisites,
  requisiteMasks,
  resumeRequisites,
} from '../../modules/requisites/index.js';
import { type CreditDecision, decideCredit } from './credit-matching.js';
import { checkDeviceSignature } from './device-signature.js';
import {
  bindingsOf,
  type DeviceEventRow,
  type DeviceRow,
  eventByKey,
  findDevice,
  insertEvent,
  recentCredits,
  updateDevice,
  updateEvent,
} from './devices-repository.js';
import { CHANNEL_PAIR_SECONDS, sameTransfer, transportKey } from './event-dedup.js';
import { routeMessage } from './message-routing.js';
import type { DeviceHealth } from './sms-gateway-envelope.js';

/** The apps a device event comes from (issue 19 section 1). */
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

/** How far back an expired order still takes a credit as a late payment for operators, in ms. */
const LATE_WINDOW_MS = 24 * 3600_000;

/** Counters the metrics module keeps (issue 19 "Metrics"). */
export interface DeviceMetrics {
  messageRead(bank: string, parse: 'parsed' | 'unparsed' | 'ambiguous'): void;
  creditDecided(outcome: 'confirmed' | 'review' | 'paired'): void;
  alert(kind: 'block' | 'unknown_source_block' | 'offline'): void;
}

const readCredit = (e: Pick<DeviceEventRow, 'channel' | 'requisiteId' | 'receivedAt' | 'fields'>) => ({
  channel: e.channel as MessageChannel,
  requisiteId: e.requisiteId ?? '',
  receivedAt: e.receivedAt,
  fields: (e.fields ?? {}) as MessageFields,
});

/**
 * Device events (issue 19): authenticates each app's request, then stores and acts on each event
 * in one short transaction: transport de-duplication by the unique key, SMS + push pairing, the
 * credit decision (credit-matching.ts) and, for a confirmation, the order's move through the
 * lifecycle. Every authentic event refreshes the device's last-seen time and resumes requisites
 * its silence paused.
 */
export function createDeviceIngest(deps: {
  database: Database;
  clock: Clock;
  secretBox: SecretBox;
  lifecycle: OrderLifecycle;
  banks: BanksService;
  /** SmsForwarder's credits need an operator (its body is not signed). */
  forwarderNeedsOperator: boolean;
  metrics?: DeviceMetrics;
}) {
  const { database, clock, secretBox, lifecycle, banks } = deps;
  const db = database.db;

  async function liveDevice(id: string): Promise<DeviceRow> {
    const device = isUuid(id) ? await findDevice(db, id) : undefined;
    if (!device || device.revokedAt || !device.enabled) throw new AppError('UNAUTHORIZED');
    return device;
  }

  const previousValid = (device: DeviceRow, now: number) =>
    device.previousSecrets && Date.parse(device.previousSecrets.validUntil) > now
      ? device.previousSecrets
      : undefined;

  /** Marks the device seen (and its health), resuming requisites its silence paused. */
  async function touch(ex: Executor, device: DeviceRow, now: Date, heartbeat?: { health?: DeviceHealth }) {
    const patch: Parameters<typeof updateDevice>[2] = { lastSeenAt: now };
    if (heartbeat) {
      patch.lastHeartbeatAt = now;
      if (heartbeat.health) {
        const h = heartbeat.health;
        patch.health = {
          ...(h.batteryPercent !== undefined ? { battery_percent: h.batteryPercent } : {}),
          ...(h.charging !== undefined ? { charging: h.charging } : {}),
          ...(h.connection !== undefined ? { connection: h.connection } : {}),
        };
      }
    }
    await updateDevice(ex, device.id, patch);
    const bound = (await bindingsOf(ex, [device.id])).get(device.id) ?? [];
    await resumeRequisites(ex, bound, ['stale', 'liveness'], now);
  }

  /** Acts on a credit decision for the event (inside the caller's transaction). */
  async function apply(
    tx: Executor,
    device: DeviceRow,
    event: DeviceEventRow,
    decision: CreditDecision,
    orders: Awaited<ReturnType<typeof ordersForCredit>>,
    now: Date,
  ): Promise<IngestAnswer> {
    if (decision.action === 'confirm') {
      const order = orders.find((o) => o.order.id === decision.orderId)?.order;
      if (!order) throw new Error('decided order not among the candidates');
      await lifecycle.succeed(tx, order, {
        actor: `device:${device.name}`,
        reason: `bank ${event.channel} from ${event.source}`,
        now,
      });
      await updateEvent(tx, event.id, { status: 'confirmed', reason: null, orderId: order.id });
      deps.metrics?.creditDecided('confirmed');
      return { status: 'confirmed', event_id: event.id };
    }
    if (decision.action === 'review') {
      await updateEvent(tx, event.id, {
        status: 'review',
        reason: decision.reason,
        orderId: decision.orderId ?? null,
      });
      deps.metrics?.creditDecided('review');
      return { status: 'review', event_id: event.id, reason: decision.reason };
    }
    return { status: 'ignored', event_id: event.id };
  }

  return {
    /**
     * The device of a signed request (SMS Gateway for Android, native batch): `X-Timestamp` within
     * +-300 s and `X-Signature` over the raw body with the current key or, during a rotation's
     * grace period, the previous one. Throws UNAUTHORIZED (nothing is stored) otherwise.
     */
    async authenticateSigned(
      deviceId: string,
      app: 'sms_gateway' | 'native',
      request: { body: Buffer; timestamp: string | undefined; signature: string | undefined },
    ): Promise<DeviceRow> {
      const device = await liveDevice(deviceId);
      const now = clock.now();
      const previous = previousValid(device, now);
      const sealed =
        app === 'sms_gateway'
          ? [device.signingKeySealed, previous?.signingKeySealed]
          : [device.nativeSecretSealed, previous?.nativeSecretSealed];
      for (const s of sealed) {
        if (!s) continue;
        const check = checkDeviceSignature({
          key: secretBox.open(s),
          ...request,
          nowSeconds: Math.floor(now / 1000),
        });
        if (check === 'ok') return device;
      }
      throw new AppError('UNAUTHORIZED');
    },

    /** The device of a bearer token (SmsForwarder): its own, or its previous one within the grace period. */
    async authenticateBearer(deviceId: string, token: string): Promise<DeviceRow> {
      const device = await liveDevice(deviceId);
      const digest = sha256Hex(token);
      const previous = previousValid(device, clock.now());
      if (safeEqual(device.tokenDigest, digest) || (previous && safeEqual(previous.tokenDigest, digest)))
        return device;
      throw new AppError('UNAUTHORIZED');
    },

    /** A heartbeat (SMS Gateway's ping or start, a native heartbeat): last seen, health, liveness. */
    async heartbeat(device: DeviceRow, health?: DeviceHealth): Promise<IngestAnswer> {
      const now = new Date(clock.now());
      await db.transaction((tx) => touch(tx, device, now, health ? { health } : {}));
      return { status: 'ok' };
    },

    /** An authentic event that is not about money (sent, delivered, MMS): the device is alive. */
    async ignored(device: DeviceRow): Promise<IngestAnswer> {
      const now = new Date(clock.now());
      await db.transaction((tx) => touch(tx, device, now));
      return { status: 'ignored' };
    },

    /**
     * One SMS or push: routed to a bank and requisite, de-duplicated, decided and acted on in one
     * transaction. A repeat answers `duplicate` with the first event's id.
     */
    async message(device: DeviceRow, app: DeviceApp, message: IncomingMessage): Promise<IngestAnswer> {
      const now = new Date(clock.now());
      const formats = await banks.messageFormats();
      const boundIds = (await bindingsOf(db, [device.id])).get(device.id) ?? [];
      const bound = await findRequisites(db, boundIds);
      const route = routeMessage(
        formats,
        bound.map((r) => ({ id: r.id, bankCode: r.bankCode, masks: requisiteMasks(r) })),
        message,
      );
      const { parsed, bank } = route;
      if (bank) deps.metrics?.messageRead(bank.code, parsed.status);
      const key = transportKey({
        deviceId: device.id,
        channel: message.channel,
        source: message.source,
        receivedAt: message.receivedAt,
        text: message.title ? `${message.title}\n${message.text}` : message.text,
      });
      const kind = parsed.status === 'parsed' ? parsed.kind : null;
      const fields = parsed.status === 'parsed' ? parsed.fields : undefined;
      const [only] = route.requisites;
      const requisite =
        route.requisites.length === 1 && only ? bound.find((r) => r.id === only.id) : undefined;
      // Not a bank's message at all: kept without its text (private messages are not ours).
      const privateMessage = !bank;
      return db.transaction(async (tx) => {
        const event = await insertEvent(tx, {
          deviceId: device.id,
          transportKey: key,
          app,
          channel: message.channel,
          source: message.source,
          title: privateMessage ? null : (message.title ?? null),
          text: privateMessage ? null : message.text,
          receivedAt: message.receivedAt,
          bankCode: bank?.code ?? null,
          parse: parsed.status,
          kind,
          ruleId: parsed.status === 'parsed' ? parsed.ruleId : null,
          fields: (fields ?? null) as Record<string, string> | null,
          amount: fields?.amount ?? null,
          requisiteId: requisite?.id ?? null,
          status: 'ignored',
        });
        if (!event) {
          const first = await eventByKey(tx, device.id, key);
          return { status: 'duplicate', ...(first ? { event_id: first.id } : {}) } satisfies IngestAnswer;
        }
        await touch(tx, device, now);
        if (privateMessage) return { status: 'ignored', event_id: event.id } satisfies IngestAnswer;
        if (parsed.status !== 'parsed' || kind === 'credit') {
          if (parsed.status !== 'parsed' || !route.sourceAllowed || !requisite) {
            const reason =
              parsed.status !== 'parsed'
                ? parsed.status
                : !route.sourceAllowed
                  ? 'unknown_source'
                  : route.maskUnknown
                    ? 'wrong_mask'
                    : route.requisites.length > 1
                      ? 'several_requisites'
                      : 'no_requisite';
            await updateEvent(tx, event.id, { status: 'review', reason });
            deps.metrics?.creditDecided('review');
            return { status: 'review', event_id: event.id, reason } satisfies IngestAnswer;
          }
        }
        if (kind === 'block') {
          if (!route.sourceAllowed) {
            await updateEvent(tx, event.id, { status: 'alert', reason: 'unknown_source_block' });
            deps.metrics?.alert('unknown_source_block');
            return { status: 'alert', event_id: event.id } satisfies IngestAnswer;
          }
          const paused = await pauseRequisites(
            tx,
            route.requisites.map((r) => r.id),
            'block',
            ['stale', 'liveness'],
            now,
          );
          await updateEvent(tx, event.id, { status: 'block', reason: `paused ${paused.length}` });
          deps.metrics?.alert('block');
          return { status: 'block', event_id: event.id } satisfies IngestAnswer;
        }
        if (kind !== 'credit' || !requisite || !fields?.amount) {
          return { status: 'ignored', event_id: event.id } satisfies IngestAnswer;
        }
        if (fields.currency && fields.currency !== requisite.currency) {
          await updateEvent(tx, event.id, { status: 'review', reason: 'currency_mismatch' });
          deps.metrics?.creditDecided('review');
          return { status: 'review', event_id: event.id, reason: 'currency_mismatch' } satisfies IngestAnswer;
        }
        // One credit at a time per requisite: pairing and the order choice see each other's commits.
        await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`device-credit:${requisite.id}`}))`);
        const orders = await ordersForCredit(
          tx,
          { requisiteId: requisite.id, currency: requisite.currency, amount: money(fields.amount) },
          new Date(now.getTime() - LATE_WINDOW_MS),
        );
        const mine = readCredit({
          ...event,
          requisiteId: requisite.id,
          fields: fields as Record<string, string>,
        });
        const recent = await recentCredits(
          tx,
          requisite.id,
          message.receivedAt,
          CHANNEL_PAIR_SECONDS,
          event.id,
        );
        const pair = recent.find((r) => sameTransfer(readCredit(r), mine));
        if (pair) {
          await updateEvent(tx, event.id, {
            status: 'paired',
            pairedEventId: pair.id,
            orderId: pair.orderId,
          });
          deps.metrics?.creditDecided('paired');
          return { status: 'paired', event_id: event.id } satisfies IngestAnswer;
        }
        const decision = decideCredit({
          parsed,
          receivedAt: message.receivedAt,
          sourceAllowed: true,
          deviceBound: true,
          requisiteBlocked: requisite.pausedReason === 'block',
          needsOperator: app === 'sms_forwarder' && deps.forwarderNeedsOperator,
          requisiteMasks: requisiteMasks(requisite),
          orders: orders.map((o) => ({
            id: o.order.id,
            status: o.status,
            payableAmount: o.order.payableAmount,
            createdAt: o.order.createdAt,
            expiresAt: o.order.expiresAt ?? o.order.createdAt,
          })),
        });
        return apply(tx, device, event, decision, orders, now);
      });
    },
  };
}

export type DeviceIngest = ReturnType<typeof createDeviceIngest>;
