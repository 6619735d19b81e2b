/**
 * A device's liveness (docs/decisions.md section 24) from its last authentic event, and the warnings the
 * console shows. Pure.
 */

/** Online while the last event is at most this old, in seconds. */
export const ONLINE_SECONDS = 180;
/** Stale (no new orders for its requisites) up to this age; offline (paused) beyond, in seconds. */
export const OFFLINE_SECONDS = 600;
/** Battery level below which a phone that is not charging is a warning, in percent. */
export const LOW_BATTERY_PERCENT = 20;

export type DeviceState = 'never_seen' | 'online' | 'stale' | 'offline' | 'revoked';

/** The state of a device at `now`. */
export function deviceState(
  device: { revokedAt: Date | null; lastSeenAt: Date | null },
  now: Date,
): DeviceState {
  if (device.revokedAt) return 'revoked';
  if (!device.lastSeenAt) return 'never_seen';
  const age = (now.getTime() - device.lastSeenAt.getTime()) / 1000;
  if (age <= ONLINE_SECONDS) return 'online';
  return age <= OFFLINE_SECONDS ? 'stale' : 'offline';
}

export type DeviceWarning = 'low_battery' | 'no_connection' | 'deaf' | 'unbound_legacy_requisites';

/**
 * The console's warnings: battery low and not charging; the app's connection check failing;
 * "alive but deaf" (orders on its requisites were paid in the last day with no message of its
 * confirming them while it sent heartbeats); requisites it listed before the one-device rule that another
 * device keeps.
 */
export function deviceWarnings(input: {
  health: { battery_percent?: number; charging?: boolean; connection?: string } | null;
  state: DeviceState;
  paidWithoutMessage: number;
  unboundLegacy: number;
}): DeviceWarning[] {
  const out: DeviceWarning[] = [];
  const h = input.health;
  if (h?.battery_percent !== undefined && h.battery_percent < LOW_BATTERY_PERCENT && h.charging === false)
    out.push('low_battery');
  if (h?.connection === 'fail') out.push('no_connection');
  if (input.state === 'online' && input.paidWithoutMessage > 0) out.push('deaf');
  if (input.unboundLegacy > 0) out.push('unbound_legacy_requisites');
  return out;
}
