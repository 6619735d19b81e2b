import { eq } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { banks } from '../../db/tables/banks.js';
import type { AdminActor } from '../../http/request-context.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { writeAudit } from '../audit/index.js';

export type BankRow = typeof banks.$inferSelect;

/**
 * Banks for payouts (`GET /merchant/banks`, docs/api.md "Bank"): seeded by a migration with the
 * Russian banks that take fast-payment transfers; operators add and disable them.
 */
export function createBanksService(deps: { database: Database }) {
  const db = deps.database.db;
  return {
    /** Enabled banks, by name: the values `payout_details.methodName` accepts. */
    async listEnabled(): Promise<BankRow[]> {
      return db.select().from(banks).where(eq(banks.enabled, true)).orderBy(banks.name);
    },

    async listAll(): Promise<BankRow[]> {
      return db.select().from(banks).orderBy(banks.name);
    },

    async add(input: { code: string; name: string; sbp?: boolean; card?: boolean }, actor: AdminActor) {
      if (!/^[a-z0-9_]{2,32}$/.test(input.code)) throw invalidField('code', 'must be 2-32 of a-z, 0-9, _');
      return db.transaction(async (tx) => {
        const rows = await tx
          .insert(banks)
          .values({
            code: input.code,
            name: input.name.trim(),
            sbp: input.sbp ?? true,
            card: input.card ?? true,
          })
          .onConflictDoNothing()
          .returning();
        const row = rows[0];
        if (!row) throw new AppError('ALREADY_EXISTS');
        await writeAudit(tx, actor, {
          action: 'bank.add',
          targetType: 'bank',
          targetId: row.code,
          after: row,
        });
        return row;
      });
    },

    async update(
      code: string,
      patch: { enabled?: boolean; sbp?: boolean; card?: boolean },
      actor: AdminActor,
    ) {
      return db.transaction(async (tx) => {
        const before = (await tx.select().from(banks).where(eq(banks.code, code)).for('update'))[0];
        if (!before) throw new AppError('NOT_FOUND');
        const after = (await tx.update(banks).set(patch).where(eq(banks.code, code)).returning())[0];
        await writeAudit(tx, actor, {
          action: 'bank.update',
          targetType: 'bank',
          targetId: code,
          before,
          after,
        });
        return after ?? before;
      });
    },

    /** The bank code whose code or name equals `bank` (case-insensitive), for same-bank matching. */
    async codeFor(bank: string): Promise<string | undefined> {
      const all = await db.select({ code: banks.code, name: banks.name }).from(banks);
      const wanted = bank.trim().toLowerCase();
      return all.find((b) => b.code === wanted || b.name.toLowerCase() === wanted)?.code;
    },
  };
}

export type BanksService = ReturnType<typeof createBanksService>;
