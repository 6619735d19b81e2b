import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { chainWatchers } from '../../db/tables/chains.js';
import type { BlockRef } from './chain-source.js';

export type ChainWatcherRow = typeof chainWatchers.$inferSelect;

/** The operator's settings of a chain, as `PUT /admin/chains/{chain}` stores them (null: not set). */
export type ChainSettingsPatch = Partial<
  Pick<
    ChainWatcherRow,
    'url' | 'apiKeySealed' | 'confirmations' | 'tokenContract' | 'pollSeconds' | 'chainId' | 'enabled'
  >
>;

/** Every chain's row (chains never configured have none). */
export async function chainRows(ex: Executor): Promise<ChainWatcherRow[]> {
  return ex.select().from(chainWatchers);
}

export async function chainRow(ex: Executor, chain: string): Promise<ChainWatcherRow | undefined> {
  return (await ex.select().from(chainWatchers).where(eq(chainWatchers.chain, chain)))[0];
}

/** Merges the operator's settings into the chain's row (omitted fields keep their values). */
export async function saveChainSettings(
  ex: Executor,
  chain: string,
  patch: ChainSettingsPatch,
  cursor: { height: number } | null,
  now: Date,
): Promise<void> {
  const set = {
    ...patch,
    ...(cursor ? { cursorHeight: cursor.height, cursorHash: null } : {}),
    updatedAt: now,
  };
  await ex
    .insert(chainWatchers)
    .values({ chain, ...set })
    .onConflictDoUpdate({ target: chainWatchers.chain, set });
}

/**
 * The watcher's progress, written in the same transaction as the transfers it saw: the cursor (the
 * last block scanned, with its hash), the head and the latest transfers for the console.
 */
export async function saveProgress(
  ex: Executor,
  chain: string,
  progress: { cursor: BlockRef; head: BlockRef; recent?: Array<Record<string, unknown>> | undefined },
  now: Date,
): Promise<void> {
  await ex
    .update(chainWatchers)
    .set({
      cursorHeight: progress.cursor.height,
      cursorHash: progress.cursor.hash,
      headHeight: progress.head.height,
      headHash: progress.head.hash,
      ...(progress.recent ? { recent: progress.recent } : {}),
      updatedAt: now,
    })
    .where(eq(chainWatchers.chain, chain));
}

/** Moves the cursor back (a reorg): the blocks above are scanned again. */
export async function rewindCursor(ex: Executor, chain: string, height: number): Promise<void> {
  await ex
    .update(chainWatchers)
    .set({ cursorHeight: height, cursorHash: null })
    .where(eq(chainWatchers.chain, chain));
}

/** A loop's end: success (clears nothing: the last error stays visible with its time) or an error. */
export async function recordOutcome(
  ex: Executor,
  chain: string,
  outcome: { ok: true; head?: BlockRef } | { ok: false; message: string },
  now: Date,
): Promise<void> {
  await ex
    .update(chainWatchers)
    .set(
      outcome.ok
        ? {
            lastSuccessAt: now,
            ...(outcome.head ? { headHeight: outcome.head.height, headHash: outcome.head.hash } : {}),
          }
        : { lastError: outcome.message.slice(0, 1000), lastErrorAt: now },
    )
    .where(eq(chainWatchers.chain, chain));
}

/** Keeps the row count honest in tests and the console: a chain known to the database. */
export async function ensureChainRow(ex: Executor, chain: string): Promise<void> {
  await ex
    .insert(chainWatchers)
    .values({ chain })
    .onConflictDoNothing({ target: chainWatchers.chain })
    .returning({ chain: sql`chain` });
}
