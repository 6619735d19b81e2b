import type { Database } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { deviceState } from './device-state.js';
import { listDevices, oldestReview } from './devices-repository.js';

/**
 * The devices' gauges (README "Devices and the review queue"), read when Prometheus scrapes: devices by state, and the
 * age of the oldest message waiting in the review queue, in seconds (0 when none).
 */
export function deviceCounts(deps: { database: Database; clock: Clock }) {
  const db = deps.database.db;
  return {
    async byState(): Promise<Record<string, number>> {
      const now = new Date(deps.clock.now());
      const counts: Record<string, number> = { never_seen: 0, online: 0, stale: 0, offline: 0, revoked: 0 };
      for (const d of await listDevices(db)) {
        const state = deviceState(d, now);
        counts[state] = (counts[state] ?? 0) + 1;
      }
      return counts;
    },
    async reviewQueueAgeSeconds(): Promise<number> {
      const oldest = await oldestReview(db);
      return oldest ? Math.max(0, (deps.clock.now() - oldest.getTime()) / 1000) : 0;
    },
  };
}
