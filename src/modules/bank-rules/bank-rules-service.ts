/**
 * Bank-message rules learned from the review queue (docs/decisions.md "Rules learned from the review
 * queue"): proposed from a message an operator assigned (its shape with holes, rule-shape.ts),
 * switched on by an admin only after the checks of rule-checks.ts pass against the whole corpus and
 * the stored non-credits, switched off at any time; every change audited. Active rules reach the
 * reader through `withLearned` (learned-cache.ts).
 */
import type { Database, Db } from '../../db/database.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { money } from '../../lib/money.js';
import { writeAudit } from '../../platform/audit/index.js';
import type { BankFormat, MessageChannel } from '../bank-messages/index.js';
import { findRule, insertRule, type LearnedRuleRow, listRules, updateRule } from './bank-rules-repository.js';
import { corpusLoader } from './corpus.js';
import { learnedCache } from './learned-cache.js';
import {
  assertNarrow,
  assertReadsNoNonCredit,
  compilePattern,
  type NonCredit,
  readByPattern,
} from './rule-checks.js';
import { deriveShape } from './rule-shape.js';

/** A rule as operators see it (`GET /admin/bank-rules`). */
export function ruleView(r: LearnedRuleRow) {
  return {
    id: r.id,
    bank_code: r.bankCode,
    channel: r.channel,
    direction: r.direction,
    pattern: r.pattern,
    examples: r.examples,
    status: r.status,
    proposed_by: r.proposedBy,
    proposed_at: r.proposedAt.toISOString(),
    enabled_by: r.enabledBy,
    enabled_at: r.enabledAt?.toISOString() ?? null,
    disabled_by: r.disabledBy,
    disabled_at: r.disabledAt?.toISOString() ?? null,
  };
}

export type RuleView = ReturnType<typeof ruleView>;

/** A message to learn from: its bank, channel and words, and the amount it paid. */
export interface RuleExampleInput {
  bank: string;
  channel: MessageChannel;
  text: string;
  title?: string;
  /** The assigned order's payable amount (a decimal string). */
  amount: string;
  mask?: string;
  eventId?: string;
  /** An edited pattern instead of the derived shape (checked the same way). */
  pattern?: string;
}

/** The example's words as the reader reads them (a push's title before its text). */
const exampleText = (e: { text: string; title?: string }) => (e.title ? `${e.title} ${e.text}` : e.text);

/** The pattern of a proposal: the edited one, or the shape derived from the example; it must read the example's amount. */
function patternOf(input: RuleExampleInput): string {
  const derived = input.pattern
    ? undefined
    : deriveShape({
        text: input.text,
        amount: input.amount,
        ...(input.title ? { title: input.title } : {}),
        ...(input.mask ? { mask: input.mask } : {}),
      });
  const source = input.pattern ?? derived?.pattern;
  if (!source) throw invalidField('event_id', "the message's text does not show the order's amount");
  const read = readByPattern(compilePattern(source), exampleText(input));
  if (!read || !money(read.amount).equals(money(input.amount)))
    throw invalidField('pattern', "does not read the example's amount");
  return source;
}

/** Inserts a proposed rule with its example, audited, in one transaction. */
function insertProposal(db: Db, input: RuleExampleInput, pattern: string, now: Date, actor: AdminActor) {
  return db.transaction(async (tx) => {
    const row = await insertRule(tx, {
      bankCode: input.bank,
      channel: input.channel,
      pattern,
      examples: [
        {
          text: input.text,
          ...(input.title ? { title: input.title } : {}),
          amount: input.amount,
          ...(input.mask ? { mask: input.mask } : {}),
          ...(input.eventId ? { event_id: input.eventId } : {}),
        },
      ],
      proposedBy: actor.name,
      proposedAt: now,
    });
    await writeAudit(tx, actor, {
      action: 'bank_rule.propose',
      targetType: 'bank_rule',
      targetId: row.id,
      after: { bank: row.bankCode, pattern, event_id: input.eventId ?? null },
    });
    return ruleView(row);
  });
}

/** The learned rules' service; `refreshMs`: how old a process's copy of the active rules may be. */
export function createBankRules(deps: {
  database: Database;
  clock: Clock;
  refreshMs: number;
  corpusDir?: string;
}) {
  const { database, clock } = deps;
  const db = database.db;
  const corpus = corpusLoader(deps.corpusDir);
  const cache = learnedCache(database, deps.refreshMs);
  const found = async (id: string) => {
    const row = isUuid(id) ? await findRule(db, id) : undefined;
    if (!row) throw new AppError('NOT_FOUND');
    return row;
  };

  return {
    /** Keeps a proposed rule from a message. Throws VALIDATION_ERROR (pattern, event_id). Audited. */
    propose: (input: RuleExampleInput, actor: AdminActor) =>
      insertProposal(db, input, patternOf(input), new Date(clock.now()), actor),

    /**
     * Switches a proposed (or switched-off) rule on after its checks: RULE_TOO_BROAD,
     * RULE_READS_NON_CREDIT naming the corpus text or stored message it would read as a credit,
     * CORPUS_UNAVAILABLE; RULE_STATE_CONFLICT when it is on already. Audited.
     */
    async enable(id: string, actor: AdminActor, stored: () => Promise<NonCredit[]>): Promise<RuleView> {
      const before = await found(id);
      if (before.status === 'active') throw new AppError('RULE_STATE_CONFLICT');
      const re = compilePattern(before.pattern);
      const texts = await corpus();
      assertNarrow(
        re,
        texts.map((t) => exampleText(t)),
      );
      assertReadsNoNonCredit(
        re,
        texts.filter((t) => t.kind !== 'credit'),
      );
      assertReadsNoNonCredit(re, await stored());
      return switchTo(id, 'active', actor);
    },

    /** Switches a rule off (proposed or active). RULE_STATE_CONFLICT when it is off already. Audited. */
    async disable(id: string, actor: AdminActor): Promise<RuleView> {
      const before = await found(id);
      if (before.status === 'off') throw new AppError('RULE_STATE_CONFLICT');
      return switchTo(id, 'off', actor);
    },

    /** Rules newest first (at most 500), of one status when given. */
    async list(status?: LearnedRuleRow['status']): Promise<RuleView[]> {
      return (await listRules(db, status)).map(ruleView);
    },

    /** One rule with its compiled pattern. Throws NOT_FOUND. */
    async compiled(id: string): Promise<{ rule: RuleView; pattern: RegExp }> {
      const row = await found(id);
      return { rule: ruleView(row), pattern: new RegExp(row.pattern, 'iu') };
    },

    /** The banks' formats with their active learned rules (fresh within `refreshMs`). */
    async withLearned(formats: readonly BankFormat[]): Promise<BankFormat[]> {
      const active = await cache.current();
      return formats.map((f) => {
        const learned = active.get(f.code);
        return learned ? { ...f, learned } : f;
      });
    },
  };

  /** Moves a rule to `status` (re-checked under its row lock), audited, and drops this process's copy. */
  async function switchTo(id: string, status: 'active' | 'off', actor: AdminActor): Promise<RuleView> {
    const now = new Date(clock.now());
    const row = await db.transaction(async (tx) => {
      const before = await findRule(tx, id, true);
      if (!before) throw new AppError('NOT_FOUND');
      if (before.status === status) throw new AppError('RULE_STATE_CONFLICT');
      const patch =
        status === 'active'
          ? { enabledBy: actor.name, enabledAt: now }
          : { disabledBy: actor.name, disabledAt: now };
      const after = await updateRule(tx, id, before.status, { status, ...patch });
      if (!after) throw new AppError('RULE_STATE_CONFLICT');
      await writeAudit(tx, actor, {
        action: status === 'active' ? 'bank_rule.enable' : 'bank_rule.disable',
        targetType: 'bank_rule',
        targetId: id,
        before: { status: before.status },
        after: { status, bank: after.bankCode },
      });
      return after;
    });
    cache.invalidate();
    return ruleView(row);
  }
}

export type BankRules = ReturnType<typeof createBankRules>;
