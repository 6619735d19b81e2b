import { eq, isNotNull, or, sql } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { cryptoPoolAddresses, cryptoTransactions, cryptoXpubs } from '../../db/tables/crypto.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { invalidField } from '../../lib/errors.js';
import { tonCore } from '../../lib/lazy-require.js';
import { type KeyNetwork, XPUB_NETWORKS } from '../../modules/catalog/index.js';
import { writeAudit } from '../../platform/audit/index.js';
import {
  deriveDepositAddress,
  InvalidExtendedKeyError,
  parseExtendedPublicKey,
} from './address-derivation.js';

const TON_ADDRESS = /^(?:[EU]Q[A-Za-z0-9_-]{46}|-?\d:[0-9a-fA-F]{64})$/;

/**
 * A TON address an operator may load into the pool: user-friendly (`EQ...`/`UQ...`, base64url) with
 * a valid checksum, or raw (`0:<64 hex>`). A typo would send payers' money to an address nobody
 * holds and that the watcher never reads, so the checksum is checked (@ton/core's parser).
 */
function isTonAddress(text: string): boolean {
  if (!TON_ADDRESS.test(text)) return false;
  try {
    // @ton/core is loaded when a TON address is first checked, not at start.
    tonCore().Address.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The key network and first address (index 0) of an operator's account xpub: VALIDATION_ERROR
 * naming `network` for a network without xpubs, `xpub` for a key that does not parse.
 */
function checkedXpub(input: { network: string; xpub: string }) {
  const network = input.network.toLowerCase() as KeyNetwork;
  if (!XPUB_NETWORKS.includes(network)) throw invalidField('network', `one of ${XPUB_NETWORKS.join(', ')}`);
  const keyNetwork = network as Exclude<KeyNetwork, 'ton'>;
  try {
    const firstAddress = deriveDepositAddress(keyNetwork, parseExtendedPublicKey(keyNetwork, input.xpub), 0);
    return { network: keyNetwork, firstAddress, xpub: input.xpub.trim() };
  } catch (err) {
    if (err instanceof InvalidExtendedKeyError) throw invalidField('xpub', err.message);
    throw err;
  }
}

/** A chain transaction as the operators' crypto overview shows it. */
function attentionView(t: typeof cryptoTransactions.$inferSelect) {
  return {
    network: t.network,
    tx_hash: t.txHash,
    address: t.address,
    amount: t.amount,
    order_id: t.orderId,
    outcome: t.outcome,
    position: t.position,
    confirmations: t.confirmations,
    block_height: t.blockHeight,
    reorged_at: t.reorgedAt?.toISOString() ?? null,
    review_reason: t.reviewReason,
    vanished_at: t.vanishedAt?.toISOString() ?? null,
    at: t.createdAt.toISOString(),
  };
}

/**
 * Operators' crypto settings (docs/decisions.md section 8): the account xpubs deposit
 * addresses are derived from, the TON address pool, and what needs their attention.
 */
export function createCryptoKeys(deps: { database: Database; clock: Clock }) {
  const { database, clock } = deps;
  const db = database.db;
  return {
    /** Sets the account xpub of a key network; returns the address at index 0 for the operator to check. */
    async setXpub(input: { network: string; xpub: string }, actor: AdminActor) {
      const { network, firstAddress, xpub } = checkedXpub(input);
      return db.transaction(async (tx) => {
        // Every key of the network is locked first: concurrent changes take turns.
        const keys = await tx
          .select()
          .from(cryptoXpubs)
          .where(eq(cryptoXpubs.network, network))
          .for('update');
        const before = keys.find((k) => k.active);
        await tx.update(cryptoXpubs).set({ active: false }).where(eq(cryptoXpubs.network, network));
        // The same key (known by its first address) keeps its counter, whether given as xpub or zpub.
        await tx
          .insert(cryptoXpubs)
          .values({ network, keyId: firstAddress, xpub, nextIndex: 0, active: true })
          .onConflictDoUpdate({
            target: [cryptoXpubs.network, cryptoXpubs.keyId],
            set: { xpub, active: true, updatedAt: new Date(clock.now()) },
          });
        const next = keys.find((k) => k.keyId === firstAddress)?.nextIndex ?? 0;
        await writeAudit(tx, actor, {
          action: 'crypto.set_xpub',
          targetType: 'crypto_network',
          targetId: network,
          before: before ? { xpub: before.xpub, next_index: before.nextIndex } : null,
          after: { xpub, next_index: next },
        });
        return { network, first_address: firstAddress, next_index: next };
      });
    },

    /** Loads TON pool addresses (operators); duplicates are skipped. */
    async addPoolAddresses(input: { network: string; addresses: string[] }, actor: AdminActor) {
      const network = input.network.toLowerCase();
      if (network !== 'ton') throw invalidField('network', 'pool addresses are for ton');
      const bad = input.addresses.find((a) => !isTonAddress(a.trim()));
      if (bad !== undefined) throw invalidField('addresses', `not a TON address: ${bad}`);
      return db.transaction(async (tx) => {
        const added = await tx
          .insert(cryptoPoolAddresses)
          .values(input.addresses.map((a) => ({ network, address: a.trim() })))
          .onConflictDoNothing()
          .returning({ id: cryptoPoolAddresses.id });
        await writeAudit(tx, actor, {
          action: 'crypto.add_pool_addresses',
          targetType: 'crypto_network',
          targetId: network,
          after: { added: added.length, given: input.addresses.length },
        });
        return { network, added: added.length, skipped: input.addresses.length - added.length };
      });
    },

    /** Key networks with their next index, pool sizes, and recent unmatched or late transactions. */
    async overview() {
      const [keys, pool, attention] = await Promise.all([
        db.select().from(cryptoXpubs).where(eq(cryptoXpubs.active, true)).orderBy(cryptoXpubs.network),
        db
          .select({ network: cryptoPoolAddresses.network, total: sql<number>`count(*)` })
          .from(cryptoPoolAddresses)
          .groupBy(cryptoPoolAddresses.network),
        db
          .select()
          .from(cryptoTransactions)
          .where(
            or(
              eq(cryptoTransactions.outcome, 'late'),
              eq(cryptoTransactions.outcome, 'unmatched'),
              eq(cryptoTransactions.outcome, 'partial'),
              eq(cryptoTransactions.outcome, 'awaiting'),
              eq(cryptoTransactions.outcome, 'dropped'),
              eq(cryptoTransactions.outcome, 'review'),
              isNotNull(cryptoTransactions.reorgedAt),
            ),
          )
          .orderBy(sql`${cryptoTransactions.id} DESC`)
          .limit(100),
      ]);
      return {
        xpubs: keys.map((k) => ({ network: k.network, xpub: k.xpub, next_index: k.nextIndex })),
        pools: pool.map((p) => ({ network: p.network, total: Number(p.total) })),
        transactions_needing_attention: attention.map(attentionView),
      };
    },
  };
}
