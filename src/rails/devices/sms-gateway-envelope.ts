/**
 * What SMS Gateway for Android posts (docs/decisions.md section 24), read into the service's device event.
 * Source: capcom6/android-sms-gateway — `WebHookEventDTO {id, webhookId, event, deviceId, payload}`;
 * `SmsEventPayload.SmsReceived {messageId, message, sender, phoneNumber (deprecated, = sender),
 * simNumber, receivedAt}` with dates as `yyyy-MM-dd'T'HH:mm:ss.SSSXXX`; `system:ping` carries
 * `{health: {status, checks: {"battery:level", "battery:charging", "connection:status", ...}}}`
 * (`HealthService`: checks keyed `<monitor>:<name>`, each `{status, observedValue, observedUnit,
 * description}`); `app:started` carries `{simCards}`. Other events (sent, delivered, MMS) are not ours.
 */
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

const SmsReceivedPayload = Type.Object({
  message: Type.String({ maxLength: 4000 }),
  sender: Type.Optional(Type.String({ maxLength: 64 })),
  phoneNumber: Type.Optional(Type.String({ maxLength: 64 })),
  receivedAt: Type.String({ maxLength: 40 }),
  simNumber: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  messageId: Type.Optional(Type.String()),
});

const HealthCheck = Type.Object({ status: Type.String(), observedValue: Type.Number() });
const PingPayload = Type.Object({
  health: Type.Object({ status: Type.String(), checks: Type.Record(Type.String(), HealthCheck) }),
});

/** The envelope of every event the app posts. */
export const SmsGatewayEnvelope = Type.Object({
  id: Type.String({ maxLength: 64 }),
  webhookId: Type.String({ maxLength: 64 }),
  event: Type.String({ maxLength: 40 }),
  deviceId: Type.String({ maxLength: 64 }),
  payload: Type.Unknown(),
});
export type SmsGatewayEnvelope = Static<typeof SmsGatewayEnvelope>;

/** A phone's health as the console shows it; absent parts unknown. */
export interface DeviceHealth {
  batteryPercent?: number;
  charging?: boolean;
  /** The app's own verdict on its connection check: `pass`, `warn` or `fail`. */
  connection?: string;
}

/** One event of a device, whatever app sent it. */
export type DeviceEvent =
  | { kind: 'sms'; source: string; text: string; receivedAt: Date }
  | { kind: 'heartbeat'; health?: DeviceHealth }
  /** Authentic but not about money (sent, delivered, MMS, unknown events): answered `ignored`. */
  | { kind: 'ignored'; event: string };

/** Why an authentic body cannot be read (answered 400; the app would retry the same bytes). */
export class EnvelopeError extends Error {}

/** `battery:level`, `battery:charging`, `connection:status` of a ping's health, where present. */
function healthOf(payload: Static<typeof PingPayload>): DeviceHealth {
  const { checks } = payload.health;
  const health: DeviceHealth = {};
  const level = checks['battery:level'];
  if (level) health.batteryPercent = level.observedValue;
  const charging = checks['battery:charging'];
  if (charging) health.charging = charging.observedValue !== 0;
  const connection = checks['connection:status'];
  if (connection) health.connection = connection.status;
  return health;
}

/**
 * The event of one posted body (already authenticated). `sms:received` becomes an SMS with its
 * sender (`sender`, or the deprecated `phoneNumber`) and the phone's receive time; `system:ping`
 * and `app:started` are heartbeats. Throws EnvelopeError for a body that is not the app's shape.
 */
export function readSmsGatewayEnvelope(body: unknown): DeviceEvent {
  if (!Value.Check(SmsGatewayEnvelope, body)) throw new EnvelopeError('not an SMS Gateway event');
  switch (body.event) {
    case 'sms:received': {
      if (!Value.Check(SmsReceivedPayload, body.payload)) throw new EnvelopeError('sms:received payload');
      const { message, sender, phoneNumber, receivedAt } = body.payload;
      const source = sender ?? phoneNumber;
      const at = new Date(receivedAt);
      if (!source || Number.isNaN(at.getTime())) throw new EnvelopeError('sms:received sender or time');
      return { kind: 'sms', source, text: message, receivedAt: at };
    }
    case 'system:ping':
      return Value.Check(PingPayload, body.payload)
        ? { kind: 'heartbeat', health: healthOf(body.payload) }
        : { kind: 'heartbeat' };
    case 'app:started':
      return { kind: 'heartbeat' };
    default:
      return { kind: 'ignored', event: body.event };
  }
}
