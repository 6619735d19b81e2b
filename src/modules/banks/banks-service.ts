import { eq } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { banks } from '../../db/tables/banks.js';
import type { AdminActor } from '../../http/request-context.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { writeAudit } from '../../platform/audit/index.js';
import { BANK_FORMATS, type BankFormat, bankFormat } from '../bank-messages/index.js';

export type BankRow = typeof banks.$inferSelect;

/** The sources whose messages are a bank's (docs/decisions.md section 24): the operators' lists, else the format's defaults. */
export function bankSourcesOf(row: Pick<BankRow, 'code' | 'smsSenders' | 'appPackages'>) {
  const format = bankFormat(row.code);
  return {
    smsSenders: row.smsSenders ?? [...(format?.senders ?? [])],
    appPackages: row.appPackages ?? [...(format?.packages ?? [])],
    /**
     * Whether the service reads this bank's messages at all: it has rules, or operators listed its
     * senders or packages (then its texts are read by their parts alone).
     */
    readable: format !== undefined || row.smsSenders !== null || row.appPackages !== null,
  };
}

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

    /**
     * Enables/disables a bank or changes its sources; `sms_senders`/`app_packages` null restores the
     * format's defaults. Audited.
     */
    async update(
      code: string,
      input: {
        enabled?: boolean;
        sbp?: boolean;
        card?: boolean;
        sms_senders?: string[] | null;
        app_packages?: string[] | null;
      },
      actor: AdminActor,
    ) {
      const { sms_senders, app_packages, ...flags } = input;
      const patch: Partial<BankRow> = { ...flags };
      if (sms_senders !== undefined)
        patch.smsSenders = sms_senders && [...new Set(sms_senders.map((x) => x.trim()))];
      if (app_packages !== undefined)
        patch.appPackages = app_packages && [...new Set(app_packages.map((x) => x.trim()))];
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

    /**
     * Every bank whose messages the service reads, as a format whose senders and packages are the
     * effective ones (operators' lists or defaults), for reading device messages; a bank with no
     * rules whose senders or packages operators listed comes with no rules (read by parts).
     */
    async messageFormats(): Promise<BankFormat[]> {
      const rows = await db.select().from(banks);
      const byCode = new Map(rows.map((r) => [r.code, r]));
      const known = BANK_FORMATS.map((format) => {
        const row = byCode.get(format.code);
        if (!row) return format;
        const sources = bankSourcesOf(row);
        return { ...format, senders: sources.smsSenders, packages: sources.appPackages };
      });
      // A bank with no rules whose senders operators listed is read by the parts of its texts.
      const byParts = rows
        .filter((r) => !bankFormat(r.code) && (r.smsSenders?.length || r.appPackages?.length))
        .map((r) => ({
          code: r.code,
          name: r.name,
          senders: r.smsSenders ?? [],
          packages: r.appPackages ?? [],
          rules: [],
        }));
      return [...known, ...byParts];
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
