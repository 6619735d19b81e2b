/**
 * The active learned rules of one process (docs/decisions.md "Rules learned from the review queue"):
 * several API and worker processes share one database, so each reloads the active rules when its
 * copy is older than `refreshMs` (a switch made in another process reads within that time, without
 * a restart); a switch made in this process drops its copy at once. The age is measured on the
 * monotonic clock, not the service's clock (which tests may stop).
 */
import type { Database } from '../../db/database.js';
import type { LearnedRule } from '../bank-messages/index.js';
import { activeRows } from './bank-rules-repository.js';

/** The active rules by bank code, reloaded after `refreshMs`. */
export function learnedCache(database: Database, refreshMs: number) {
  let loadedAt = Number.NEGATIVE_INFINITY;
  let byBank = new Map<string, LearnedRule[]>();
  let loading: Promise<void> | undefined;

  async function load() {
    const rows = await activeRows(database.db);
    const next = new Map<string, LearnedRule[]>();
    for (const row of rows) {
      let pattern: RegExp;
      try {
        pattern = new RegExp(row.pattern, 'iu');
      } catch {
        continue; // Checked when proposed; a hand-edited row is skipped, never read.
      }
      const list = next.get(row.bankCode) ?? [];
      list.push({ id: row.id, channel: row.channel, pattern });
      next.set(row.bankCode, list);
    }
    byBank = next;
    loadedAt = performance.now();
  }

  return {
    /** The active rules by bank code, fresh within `refreshMs`. */
    async current(): Promise<ReadonlyMap<string, readonly LearnedRule[]>> {
      if (performance.now() - loadedAt < refreshMs) return byBank;
      loading ??= load().finally(() => {
        loading = undefined;
      });
      await loading;
      return byBank;
    },
    /** Drops this process's copy (after a switch made here). */
    invalidate() {
      loadedAt = Number.NEGATIVE_INFINITY;
    },
  };
}
