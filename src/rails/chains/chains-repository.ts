import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { chainWatchers } from '../../db/tables/chains.js';
import type { BlockRef } from './chain-source.js';

export type ChainWatcherRow = typeof chainWatchers.$inferSelect;

/** The operator's settings of a chain, as `PUT /admin/chains/{chain}` stores them (null: not set). */
export type ChainSettingsPatch = Partial<
  Pick<
    ChainWatcherRow,
    | 'url'
    | 'apiKeySealed'
    | 'confirmations'
    | 'tokenContract'
    | 'pollSeconds'
    | 'chainId'
    | 'genesisHash'
    | 'rps'
    | 'enabled'
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
 * last block scanned, with its hash; null: a mempool-only scan, the cursor stays), the head and the
 * latest transfers for the console.
 */
export async function saveProgress(
  ex: Executor,
  chain: string,
  progress: { cursor: BlockRef | null; head: BlockRef; recent?: Array<Record<string, unknown>> | undefined },
  now: Date,
): Promise<void> {
  await ex
    .update(chainWatchers)
    .set({
      ...(progress.cursor ? { cursorHeight: progress.cursor.height, cursorHash: progress.cursor.hash } : {}),
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

/** The network check's result (docs/decisions.md section 34), for the settings digest `verifiedFor`. */
export async function saveVerification(
  ex: Executor,
  chain: string,
  facts: { network: string; tokenDecimals: number | null; verifiedFor: string },
  now: Date,
): Promise<void> {
  await ex
    .update(chainWatchers)
    .set({
      network: facts.network,
      tokenDecimals: facts.tokenDecimals,
      verifiedFor: facts.verifiedFor,
      verifiedAt: now,
    })
    .where(eq(chainWatchers.chain, chain));
}

/** The head the provider answered, kept before the scan so that a failing loop still shows its lag. */
export async function saveHead(ex: Executor, chain: string, head: BlockRef): Promise<void> {
  await ex
    .update(chainWatchers)
    .set({ headHeight: head.height, headHash: head.hash })
    .where(eq(chainWatchers.chain, chain));
}
