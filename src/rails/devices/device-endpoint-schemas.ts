import { Type } from '@sinclair/typebox';

// Answers of the phones' endpoints (device-endpoints.ts) and the setup every answer that issues
// secrets carries (device-setup.ts), exactly as the services build them.

const ingestStatus = Type.Union(
  ['confirmed', 'review', 'paired', 'ignored', 'block', 'alert', 'duplicate', 'ok'].map((s) =>
    Type.Literal(s),
  ),
  {
    description:
      'confirmed: an order was paid; review: kept for operators; paired: the other channel of a transfer already read; ignored: not a credit; block: the requisite was paused; alert: a block from an unknown sender; duplicate: a repeat; ok: heartbeat',
  },
);

/** One event's outcome (`POST /devices/{id}/sms-gateway`, `/sms-forwarder`). */
export const IngestAnswerSchema = Type.Object({
  status: ingestStatus,
  event_id: Type.Optional(
    Type.String({ description: 'Our id of the stored event (the first one for a duplicate)' }),
  ),
  reason: Type.Optional(Type.String({ description: 'Why it waits for an operator' })),
});

/** `POST /devices/{id}/events`: each event's outcome in the batch's order. */
export const NativeAnswerSchema = Type.Object({
  results: Type.Array(Type.Object({ client_event_id: Type.String(), ...IngestAnswerSchema.properties })),
});

/** What each app needs, shown once (creation, rotation) or through the one-time pairing link. */
export const DeviceSetupSchema = Type.Object({
  device_id: Type.String(),
  sms_gateway: Type.Object({
    url: Type.String(),
    signing_key: Type.String(),
    events: Type.Array(Type.String()),
    commands: Type.Array(Type.String(), {
      description:
        "curl calls to the app's local server: the signing key and ping interval, then one webhook per event",
    }),
  }),
  sms_forwarder: Type.Object({
    url: Type.String(),
    token: Type.String(),
    template: Type.String({ description: 'The request body to paste (one line)' }),
    headers: Type.Record(Type.String(), Type.String()),
  }),
  native: Type.Object({ url: Type.String(), secret: Type.String() }),
  token: Type.String({
    description: "Bearer token of POST /trader/offers (the same as SmsForwarder's)",
  }),
});
