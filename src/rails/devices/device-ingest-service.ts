import type { Database, Executor } from '../../db/database.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import type { SecretBox } from '../../lib/secrets.js';
import { safeEqual, sha256Hex } from '../../lib/secrets.js';
import { type BanksService, bankSourcesOf } from '../../modules/banks/index.js';
import type { OrderLifecycle } from '../../modules/orders/index.js';
import { resumeRequisites } from '../../modules/requisites/index.js';
import { checkDeviceSignature } from './device-signature.js';
import { bindingsOf, type DeviceRow, findDevice, findEvent, updateDevice } from './devices-repository.js';
import {
  type DeviceApp,
  type DeviceMetrics,
  type IncomingMessage,
  type IngestAnswer,
  ingestMessage,
  redecideMessage,
} from './message-ingest.js';
import type { DeviceHealth } from './sms-gateway-envelope.js';

export type { DeviceApp, DeviceMetrics, IncomingMessage, IngestAnswer } from './message-ingest.js';

/** What the device ingest is made of. */
export interface DeviceIngestDeps {
  database: Database;
  clock: Clock;
  secretBox: SecretBox;
  lifecycle: OrderLifecycle;
  banks: BanksService;
  /** SmsForwarder's credits need an operator (its body is not signed). */
  forwarderNeedsOperator: boolean;
  metrics?: DeviceMetrics;
}

/** The device named by a request, if it may still speak: not revoked, enabled. UNAUTHORIZED otherwise. */
async function liveDevice(db: Database['db'], id: string): Promise<DeviceRow> {
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

/** Who is speaking: a signed request or a bearer token, the current secrets or the previous ones in grace. */
function authSteps(deps: DeviceIngestDeps) {
  const { database, clock, secretBox } = deps;
  const db = database.db;
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
      const device = await liveDevice(db, deviceId);
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
      const device = await liveDevice(db, deviceId);
      const digest = sha256Hex(token);
      const previous = previousValid(device, clock.now());
      if (safeEqual(device.tokenDigest, digest) || (previous && safeEqual(previous.tokenDigest, digest)))
        return device;
      throw new AppError('UNAUTHORIZED');
    },
  };
}

/** What an authentic device says: heartbeats, events without money, messages, and a sender named later. */
function eventSteps(deps: DeviceIngestDeps) {
  const { database, clock } = deps;
  const db = database.db;
  const messageDeps = () => ({
    ...deps,
    touch: (tx: Executor, d: DeviceRow, now: Date) => touch(tx, d, now),
  });
  return {
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
     * "This message's sender is <bank>": adds the message's SMS sender (or app package) to the
     * bank's list (audited as `bank.update`), then decides again the message if it waited as
     * `unknown_source`. Throws NOT_FOUND (message or bank) or VALIDATION_ERROR (a system item).
     */
    async senderIs(eventId: string, bankCode: string, actor: AdminActor) {
      const event = isUuid(eventId) ? await findEvent(db, eventId) : undefined;
      if (!event) throw new AppError('NOT_FOUND');
      if (event.channel === 'system') throw invalidField('event_id', 'is not a phone message');
      const row = (await deps.banks.listAll()).find((b) => b.code === bankCode);
      if (!row) throw new AppError('NOT_FOUND');
      const sources = bankSourcesOf(row);
      const patch =
        event.channel === 'sms'
          ? { sms_senders: [...sources.smsSenders, event.source] }
          : { app_packages: [...sources.appPackages, event.source] };
      const bank = await deps.banks.update(bankCode, patch, actor);
      const device = await findDevice(db, event.deviceId);
      const answer = device
        ? await redecideMessage(messageDeps(), device, event, new Date(clock.now()))
        : undefined;
      return { bank_code: bank.code, source: event.source, event_id: event.id, outcome: answer ?? null };
    },

    /**
     * One SMS or push from any app: routed, de-duplicated, decided and applied in one transaction
     * (message-ingest.ts). A repeat answers `duplicate` with the first report's id.
     */
    message(device: DeviceRow, app: DeviceApp, message: IncomingMessage): Promise<IngestAnswer> {
      return ingestMessage(messageDeps(), device, app, message, new Date(clock.now()));
    },
  };
}

/**
 * Device events: authenticates each app's request; each message then goes through the one
 * pipeline (message-ingest.ts: de-duplication, routing, the decision of message-decision.ts, the
 * order's move through the lifecycle). Every authentic event refreshes the device's last-seen time and resumes requisites
 * its silence paused.
 */
export function createDeviceIngest(deps: DeviceIngestDeps) {
  return { ...authSteps(deps), ...eventSteps(deps) };
}

export type DeviceIngest = ReturnType<typeof createDeviceIngest>;
