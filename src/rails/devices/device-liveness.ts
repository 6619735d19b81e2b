import type { Database } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { pauseRequisites } from '../../modules/requisites/index.js';
import { writeAudit } from '../../platform/audit/index.js';
import type { DeviceMetrics } from './device-ingest-service.js';
import { expiredPayinsOn } from './device-order-reads.js';
import { deviceState, ONLINE_SECONDS } from './device-state.js';
import { bindingsOf, insertEvent, quietDevices } from './devices-repository.js';

const SYSTEM = { name: 'system:liveness', ip: '' };

/**
 * The liveness sweep (docs/decisions.md section 24), run by every worker: for devices that send heartbeats
 * and went quiet, their requisites get no new orders while stale (`paused_reason: stale`) and are
 * paused as `liveness` when offline, with an audit entry and a metric the first time (the UPDATE
 * that changes the reason is the one that alerts, so several workers alert once). Orders that
 * expired on those requisites since the device went quiet become review items. A device's next
 * authentic event resumes them (device-ingest-service.ts). Idempotent; answers what it did.
 */
export function createLivenessSweep(deps: {
  database: Database;
  clock: Clock;
  metrics?: DeviceMetrics;
  onOffline?: (device: { id: string; name: string }, requisiteIds: string[]) => void;
}) {
  const { database, clock } = deps;
  const db = database.db;
  return async function sweepLiveness() {
    const now = new Date(clock.now());
    const quiet = await quietDevices(db, new Date(now.getTime() - ONLINE_SECONDS * 1000));
    const bindings = await bindingsOf(
      db,
      quiet.map((d) => d.id),
    );
    let paused = 0;
    let flagged = 0;
    for (const device of quiet) {
      const bound = bindings.get(device.id) ?? [];
      if (bound.length === 0) continue;
      const state = deviceState({ revokedAt: null, lastSeenAt: device.lastSeenAt }, now);
      await db.transaction(async (tx) => {
        if (state === 'offline') {
          const nowPaused = await pauseRequisites(tx, bound, 'liveness', ['stale'], now);
          if (nowPaused.length > 0) {
            paused += nowPaused.length;
            await writeAudit(tx, SYSTEM, {
              action: 'device.offline',
              targetType: 'device',
              targetId: device.id,
              after: { name: device.name, paused_requisite_ids: nowPaused },
            });
            deps.metrics?.alert('offline');
            deps.onOffline?.(device, nowPaused);
          }
        } else if (state === 'stale') {
          paused += (await pauseRequisites(tx, bound, 'stale', [], now)).length;
        }
        const since = device.lastSeenAt ?? now;
        for (const order of await expiredPayinsOn(tx, bound, since)) {
          const raised = await insertEvent(tx, {
            deviceId: device.id,
            transportKey: `expired-while-quiet:${order.id}`,
            app: 'system',
            channel: 'system',
            source: 'liveness',
            receivedAt: now,
            amount: order.payableAmount,
            requisiteId: order.requisiteId,
            orderId: order.id,
            status: 'review',
            reason: 'expired_while_offline',
          });
          if (raised) flagged++;
        }
      });
    }
    return { quiet: quiet.length, paused, flagged };
  };
}
