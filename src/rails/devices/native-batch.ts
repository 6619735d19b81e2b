/**
 * The native batch body (docs/decisions.md section 24) for any other forwarder and our future app: raw texts
 * only, never a pre-parsed amount. Signed like SMS Gateway for Android (device-signature.ts).
 * `{events: [{event_id, kind: sms|push|heartbeat, source, title?, text, occurred_at}]}`; a heartbeat
 * needs neither source nor text.
 */
import { type Static, Type } from '@sinclair/typebox';

/** At most this many events in one body (a phone catching up after being offline). */
export const NATIVE_BATCH_MAX_EVENTS = 100;

/** One event of the batch: an SMS (source = sender id), a push (source = app package) or a heartbeat. */
export const NativeEvent = Type.Object(
  {
    event_id: Type.String({ minLength: 1, maxLength: 64 }),
    kind: Type.Union([Type.Literal('sms'), Type.Literal('push'), Type.Literal('heartbeat')]),
    source: Type.Optional(Type.String({ maxLength: 128 })),
    title: Type.Optional(Type.String({ maxLength: 500 })),
    text: Type.Optional(Type.String({ maxLength: 4000 })),
    occurred_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

/** The body of `POST` to the native endpoint. */
export const NativeBatch = Type.Object(
  { events: Type.Array(NativeEvent, { minItems: 1, maxItems: NATIVE_BATCH_MAX_EVENTS }) },
  { additionalProperties: false },
);
export type NativeBatch = Static<typeof NativeBatch>;
