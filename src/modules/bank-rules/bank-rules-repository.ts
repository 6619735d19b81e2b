/** SQL on the learned rules' table (docs/decisions.md "Rules learned from the review queue"). */
import { and, desc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { learnedBankRules } from '../../db/tables/bank-rules.js';

export type LearnedRuleRow = typeof learnedBankRules.$inferSelect;
export type NewLearnedRuleRow = typeof learnedBankRules.$inferInsert;

export async function insertRule(ex: Executor, row: NewLearnedRuleRow): Promise<LearnedRuleRow> {
  const [created] = await ex.insert(learnedBankRules).values(row).returning();
  return created as LearnedRuleRow;
}

/** One rule, locked for update when `lock`. */
export async function findRule(ex: Executor, id: string, lock = false): Promise<LearnedRuleRow | undefined> {
  const query = ex.select().from(learnedBankRules).where(eq(learnedBankRules.id, id));
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

/** Rules newest first, of one status when given. */
export function listRules(ex: Executor, status?: LearnedRuleRow['status']): Promise<LearnedRuleRow[]> {
  return ex
    .select()
    .from(learnedBankRules)
    .where(status ? eq(learnedBankRules.status, status) : undefined)
    .orderBy(desc(learnedBankRules.proposedAt))
    .limit(500);
}

/** The active rules (every bank), as every process loads them. */
export function activeRows(ex: Executor): Promise<LearnedRuleRow[]> {
  return ex.select().from(learnedBankRules).where(eq(learnedBankRules.status, 'active'));
}

export async function updateRule(
  ex: Executor,
  id: string,
  status: LearnedRuleRow['status'],
  patch: Partial<NewLearnedRuleRow>,
): Promise<LearnedRuleRow | undefined> {
  const [row] = await ex
    .update(learnedBankRules)
    .set(patch)
    .where(and(eq(learnedBankRules.id, id), eq(learnedBankRules.status, status)))
    .returning();
  return row;
}
