/**
 * What SmsForwarder (pppscn/SmsForwarder) posts with our template (docs/decisions.md section 24). Source:
 * `utils/sender/WebhookUtils.kt`: a body that starts with `{` is sent as JSON after replacing
 * `[from]` (not escaped), `[org_content]` and `[title]` (escaped with Gson, without the quotes) and
 * `[receive_time:<SimpleDateFormat>]`; `service/NotificationService.kt`: for an app notification
 * `from` is the app's package, the text is the notification's text (its big text where present)
 * and `[title]` its title; for an SMS `[title]` is the SIM's description. The app has no event id
 * and no heartbeat, and its optional `sign` covers the timestamp and the secret, not the body.
 */
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { EnvelopeError } from './sms-gateway-envelope.js';

/**
 * The body the holder pastes into SmsForwarder's webhook sender (one line; the app replaces the
 * bracketed variables). The receive time carries its offset, so the phone's time zone is known.
 */
export const SMS_FORWARDER_TEMPLATE =
  '{"from":"[from]","text":"[org_content]","title":"[title]","received_at":"[receive_time:yyyy-MM-dd\'T\'HH:mm:ss.SSSXXX]"}';

const ForwarderBody = Type.Object({
  from: Type.String({ minLength: 1, maxLength: 128 }),
  text: Type.String({ maxLength: 4000 }),
  title: Type.Optional(Type.String({ maxLength: 500 })),
  received_at: Type.String({ maxLength: 40 }),
  /** Optional: a template may say which channel; otherwise a package name means a push. */
  kind: Type.Optional(Type.Union([Type.Literal('sms'), Type.Literal('push')])),
});

/**
 * An Android package name (`ru.sberbankmobile`): lower-case segments joined by dots. Banks' SMS
 * sender ids may have a dot too (`OZON.bank`, `Yandex.Bank`) but always a capital letter.
 */
const PACKAGE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

/** A message as SmsForwarder reported it. */
export interface ForwarderMessage {
  channel: 'sms' | 'push';
  source: string;
  text: string;
  title?: string;
  receivedAt: Date;
}

/**
 * Reads one body sent with SMS_FORWARDER_TEMPLATE. For an SMS the title (the SIM) is dropped; for a
 * push it is kept (banks put the amount in either). Throws EnvelopeError for another shape or a
 * time without an offset (the template always gives one).
 */
export function readSmsForwarderBody(body: unknown): ForwarderMessage {
  if (!Value.Check(ForwarderBody, body)) throw new EnvelopeError('not our SmsForwarder template');
  if (!/(Z|[+-]\d{2}:?\d{2})$/.test(body.received_at)) throw new EnvelopeError('received_at needs an offset');
  const receivedAt = new Date(body.received_at);
  if (Number.isNaN(receivedAt.getTime())) throw new EnvelopeError('received_at is not a time');
  const source = body.from.trim();
  const channel = body.kind ?? (PACKAGE.test(source) ? 'push' : 'sms');
  const message: ForwarderMessage = { channel, source, text: body.text, receivedAt };
  if (channel === 'push' && body.title) message.title = body.title;
  return message;
}
