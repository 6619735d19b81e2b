import { sql } from 'drizzle-orm';
import { check, index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, ts } from '../columns.js';

// Tables of the bank-rules module: only src/modules/bank-rules/ reads and writes them (docs/architecture.md).

/** One example a learned rule was made from: the message's text and what it must read. */
export interface LearnedRuleExample {
  text: string;
  title?: string;
  amount: string;
  mask?: string;
  /** The review item (device event) it came from. */
  event_id?: string;
}

/**
 * Bank-message rules learned from the review queue (docs/decisions.md "Rules learned from the
 * review queue"): a pattern over the normalised text whose named groups are the holes (`amount`,
 * `mask`, `payer`, `balance`). Only `active` rules are read, and only as credits of their bank;
 * every process reloads the active ones after a short interval (no restart).
 */
export const learnedBankRules = pgTable(
  'learned_bank_rules',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    bankCode: text('bank_code').notNull(),
    /** `sms` or `push`: the channel of the example; the rule reads only that channel. */
    channel: text('channel', { enum: ['sms', 'push'] }).notNull(),
    /** What the rule reads; always `credit` (a learned rule never reads anything else). */
    direction: text('direction', { enum: ['credit'] })
      .notNull()
      .default('credit'),
    /** The regular expression's source (flags `iu`). */
    pattern: text('pattern').notNull(),
    examples: jsonb('examples').$type<LearnedRuleExample[]>().notNull(),
    status: text('status', { enum: ['proposed', 'active', 'off'] })
      .notNull()
      .default('proposed'),
    proposedBy: text('proposed_by').notNull(),
    proposedAt: ts('proposed_at').notNull(),
    enabledBy: text('enabled_by'),
    enabledAt: ts('enabled_at'),
    disabledBy: text('disabled_by'),
    disabledAt: ts('disabled_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('learned_bank_rules_status_idx').on(t.status, t.bankCode),
    check('learned_bank_rules_pattern_length', sql`length(${t.pattern}) <= 2000`),
    check('learned_bank_rules_status_ck', sql`${t.status} IN ('proposed', 'active', 'off')`),
    check('learned_bank_rules_channel_ck', sql`${t.channel} IN ('sms', 'push')`),
    check('learned_bank_rules_direction_ck', sql`${t.direction} = 'credit'`),
  ],
);
