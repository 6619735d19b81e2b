/**
 * Phones as tests see them (docs/decisions.md section 24): bodies and headers built exactly as each app builds them.
 * - SMS Gateway for Android (capcom6/android-sms-gateway): Gson-serialised `WebHookEventDTO`
 *   `{id, webhookId, event, deviceId, payload}`; `sms:received` payload `{messageId, message,
 *   phoneNumber, sender, simNumber, receivedAt}` with `receivedAt` as `yyyy-MM-dd'T'HH:mm:ss.SSSXXX`
 *   in the phone's zone; headers `X-Timestamp` (unix seconds) and `X-Signature` (hex HMAC-SHA256 of
 *   body + timestamp), signed at send time (`PayloadSingingPlugin.kt`).
 * - SmsForwarder (pppscn/SmsForwarder `WebhookUtils.kt`): our template with `[from]` as is,
 *   `[org_content]` and `[title]` escaped by Gson without the quotes, `[receive_time:...]` formatted
 *   by SimpleDateFormat; `Authorization: Bearer` from the sender's headers.
 * - The native batch: our own format, signed like SMS Gateway.
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { App } from '../../src/http/schemas.js';
import { admin } from './merchant-client.js';

/** The setup a device's creation answers (the fields tests use). */
export interface PairedDevice {
  id: string;
  name: string;
  token: string;
  sms_gateway: { url: string; signing_key: string; commands: string[] };
  sms_forwarder: { url: string; token: string; template: string };
  native: { url: string; secret: string };
  pairing: { url: string; expires_at: string };
}

export async function pairDevice(app: App, requisiteIds: string[]): Promise<PairedDevice> {
  return admin<PairedDevice>(app, 'POST', '/admin/devices', {
    name: `phone-${randomUUID().slice(0, 8)}`,
    requisite_ids: requisiteIds,
  });
}

/** `yyyy-MM-dd'T'HH:mm:ss.SSS+03:00`: a time as a phone in Moscow formats it. */
export function moscowTime(at: Date): string {
  const shifted = new Date(at.getTime() + 3 * 3600_000).toISOString();
  return `${shifted.slice(0, 23)}+03:00`;
}

/** The date at `HH:MM` Moscow time on `day`'s (UTC) date, plus `seconds`. */
export function atMoscow(day: Date, hhmm: string, seconds = 7): Date {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  const d = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), h - 3, m, seconds));
  return d;
}

/** Gson's string escaping (HTML-safe by default), without the quotes: what `escapeJson` inserts. */
export function gsonEscape(text: string): string {
  return JSON.stringify(text)
    .slice(1, -1)
    .replace(/[<>&='\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const pathOf = (url: string) => new URL(url).pathname;

/** Posts a raw body with SMS Gateway's or the native batch's signature headers. */
export function postSigned(
  app: App,
  url: string,
  key: string,
  body: string,
  options: { timestamp?: number; signature?: string; nowMs: number },
) {
  const timestamp = String(options.timestamp ?? Math.floor(options.nowMs / 1000));
  const signature =
    options.signature ?? createHmac('sha256', key).update(body).update(timestamp).digest('hex');
  return app.inject({
    method: 'POST',
    url: pathOf(url),
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'x-timestamp': timestamp,
      'x-signature': signature,
    },
    payload: body,
  });
}

/** The body SMS Gateway for Android posts for one received SMS (a new event id on every attempt). */
export function smsReceivedBody(sms: { sender: string; text: string; receivedAt: Date }) {
  return JSON.stringify({
    id: randomUUID().replace(/-/g, '').slice(0, 21),
    webhookId: 'payments-sms-received',
    event: 'sms:received',
    deviceId: 'ffffffff8b1f9c2d',
    payload: {
      messageId: String(Math.floor(Math.random() * 2 ** 31)),
      message: sms.text,
      phoneNumber: sms.sender,
      sender: sms.sender,
      simNumber: 1,
      receivedAt: moscowTime(sms.receivedAt),
    },
  });
}

/** The body of a `system:ping` with the health checks the app reports. */
export function pingBody(health: {
  battery: number;
  charging: boolean;
  connection: 'pass' | 'warn' | 'fail';
}) {
  return JSON.stringify({
    id: randomUUID().slice(0, 21),
    webhookId: 'payments-system-ping',
    event: 'system:ping',
    deviceId: 'ffffffff8b1f9c2d',
    payload: {
      health: {
        status: 'pass',
        checks: {
          'battery:level': {
            status: 'pass',
            observedValue: health.battery,
            observedUnit: 'percent',
            description: '',
          },
          'battery:charging': {
            status: 'pass',
            observedValue: health.charging ? 1 : 0,
            observedUnit: 'boolean',
            description: '',
          },
          'connection:status': {
            status: health.connection,
            observedValue: health.connection === 'fail' ? 0 : 1,
            observedUnit: 'boolean',
            description: '',
          },
        },
      },
    },
  });
}

/** SMS Gateway for Android posting an SMS, signed at send time. */
export function gatewaySms(
  app: App,
  device: PairedDevice,
  sms: { sender: string; text: string; receivedAt: Date },
  nowMs: number,
) {
  return postSigned(app, device.sms_gateway.url, device.sms_gateway.signing_key, smsReceivedBody(sms), {
    nowMs,
  });
}

/** SmsForwarder posting one SMS or notification with our template, as its WebhookUtils fills it. */
export function forwarderPost(
  app: App,
  device: PairedDevice,
  message: { from: string; text: string; title?: string; receivedAt: Date },
  token = device.sms_forwarder.token,
) {
  const body = device.sms_forwarder.template
    .replace('[from]', message.from)
    .replace('[org_content]', gsonEscape(message.text))
    .replace('[title]', gsonEscape(message.title ?? 'SIM1_MTS'))
    .replace(/\[receive_time(:(.*?))?]/, () => moscowTime(message.receivedAt));
  return app.inject({
    method: 'POST',
    url: pathOf(device.sms_forwarder.url),
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=utf-8' },
    payload: body,
  });
}

/** The native batch, signed with the device's native secret. */
export function nativePost(app: App, device: PairedDevice, events: unknown[], nowMs: number) {
  return postSigned(app, device.native.url, device.native.secret, JSON.stringify({ events }), { nowMs });
}
