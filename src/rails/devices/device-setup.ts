/**
 * What a holder pastes into each supported app (docs/decisions.md section 24): the creation and rotation
 * answers and the pairing link give it once. Sources: capcom6/android-sms-gateway local server
 * (`POST /webhooks {id, url, event}`, `PATCH /settings {"webhooks": {"signing_key"}, "ping":
 * {"interval_seconds"}}`, basic auth with the login the app shows; webhook URLs must be https://
 * or http://127.0.0.1) and pppscn/SmsForwarder's webhook sender (sms-forwarder-body.ts).
 */
import type { DeviceSecrets } from './device-secrets.js';
import { SMS_FORWARDER_TEMPLATE } from './sms-forwarder-body.js';

/** How often SMS Gateway for Android is asked to ping, in seconds (online means a ping within 3 minutes). */
export const SMS_GATEWAY_PING_SECONDS = 60;

/** The events SMS Gateway for Android is registered for. */
export const SMS_GATEWAY_EVENTS = ['sms:received', 'system:ping', 'app:started'] as const;

/** The device's endpoints under the service's public address. */
export function deviceUrls(baseUrl: string, deviceId: string) {
  const base = `${baseUrl.replace(/\/+$/, '')}/devices/${deviceId}`;
  return {
    smsGateway: `${base}/sms-gateway`,
    smsForwarder: `${base}/sms-forwarder`,
    native: `${base}/events`,
  };
}

const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/**
 * The setup of every app for one device: URLs, secrets, SmsForwarder's template and headers, and
 * the exact `curl` calls that register SMS Gateway's webhooks through its local server (the
 * holder replaces `<phone-ip>`, `<login>` and `<password>` with what the app's Home screen shows).
 */
export function deviceSetup(baseUrl: string, deviceId: string, secrets: DeviceSecrets) {
  const urls = deviceUrls(baseUrl, deviceId);
  const local = 'http://<phone-ip>:8080';
  const auth = "-u '<login>:<password>' -H 'Content-Type: application/json'";
  const settings = JSON.stringify({
    webhooks: { signing_key: secrets.signingKey },
    ping: { interval_seconds: SMS_GATEWAY_PING_SECONDS },
  });
  const register = SMS_GATEWAY_EVENTS.map((event) => {
    const body = JSON.stringify({ id: `payments-${event.replace(':', '-')}`, url: urls.smsGateway, event });
    return `curl -X POST ${auth} -d ${quote(body)} ${local}/webhooks`;
  });
  return {
    device_id: deviceId,
    sms_gateway: {
      url: urls.smsGateway,
      signing_key: secrets.signingKey,
      events: [...SMS_GATEWAY_EVENTS],
      commands: [`curl -X PATCH ${auth} -d ${quote(settings)} ${local}/settings`, ...register],
    },
    sms_forwarder: {
      url: urls.smsForwarder,
      token: secrets.token,
      template: SMS_FORWARDER_TEMPLATE,
      headers: { Authorization: `Bearer ${secrets.token}`, 'Content-Type': 'application/json' },
    },
    native: { url: urls.native, secret: secrets.nativeSecret },
    /** The bearer token of `POST /trader/offers` (the same as SmsForwarder's). */
    token: secrets.token,
  };
}

export type DeviceSetup = ReturnType<typeof deviceSetup>;
