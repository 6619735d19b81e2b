/**
 * The review queue's side of the rules learned from it (docs/decisions.md "Rules learned from the
 * review queue"): a rule is proposed from a message an operator assigned (its words, bank and
 * channel, the order's amount); it is switched on only if it reads none of the messages stored as
 * non-credits either; once on, the queue's messages it reads are offered for one-click assignment
 * with their candidate orders, and assigning one records the rule's reading on the message first.
 */
import type { Database, Db } from '../../db/database.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { money } from '../../lib/money.js';
import { bankFormat, learnedRuleId, parseBankMessage } from '../../modules/bank-messages/index.js';
import type { BankRules, RuleView } from '../../modules/bank-rules/index.js';
import { orderQueries } from '../../modules/orders/index.js';
import { candidateOrders } from './device-order-reads.js';
import type { DeviceReview } from './device-review-service.js';
import { bindingsOf, type DeviceEventRow, findEvent, updateEvent } from './devices-repository.js';
import { reviewOfBank, storedNonCredits } from './learned-rule-queries.js';
import { ASSIGN_AFTER_END_MS } from './message-assign.js';

const conflict = (problem: string) => new AppError('RULE_STATE_CONFLICT', [{ field: 'event_id', problem }]);

/**
 * The reading of a queued message with the rule, as the reader would read it with the rule on (the
 * bank's own rules first, never a credit over words of money going out): the amount and ending,
 * or undefined when the rule does not give the reading.
 */
function readingOf({ rule, pattern }: { rule: RuleView; pattern: RegExp }, e: DeviceEventRow) {
  if (rule.bank_code !== e.bankCode || rule.channel !== e.channel) return undefined;
  const own = bankFormat(rule.bank_code) ?? {
    code: rule.bank_code,
    name: rule.bank_code,
    senders: [],
    packages: [],
    rules: [],
  };
  const format = { ...own, learned: [{ id: rule.id, channel: rule.channel as 'sms' | 'push', pattern }] };
  const parsed = parseBankMessage(format, {
    channel: rule.channel as 'sms' | 'push',
    text: e.text ?? '',
    ...(e.title ? { title: e.title } : {}),
  });
  if (parsed.status !== 'parsed' || parsed.ruleId !== learnedRuleId(rule.id) || !parsed.fields.amount)
    return undefined;
  const { amount, mask } = parsed.fields;
  return { rule, read: { amount, ...(mask ? { mask } : {}) } };
}

/** The queue's messages an active rule reads, each with its reading and its candidate orders. */
async function queueMatches(db: Db, clock: Clock, bankRules: BankRules, ruleId: string) {
  const compiled = await bankRules.compiled(ruleId);
  const { rule } = compiled;
  if (rule.status !== 'active') return [];
  const rows = await reviewOfBank(db, rule.bank_code, rule.channel);
  const since = new Date(clock.now() - ASSIGN_AFTER_END_MS);
  const found = [];
  for (const e of rows) {
    const reading = readingOf(compiled, e);
    if (!reading) continue;
    const requisites = e.requisiteId
      ? [e.requisiteId]
      : ((await bindingsOf(db, [e.deviceId])).get(e.deviceId) ?? []);
    const candidates = await candidateOrders(db, requisites, [reading.read.amount], since);
    found.push({
      event_id: e.id,
      text: e.text ?? '',
      title: e.title,
      received_at: e.receivedAt.toISOString(),
      amount: reading.read.amount,
      mask: reading.read.mask ?? null,
      candidates: candidates.map((o) => ({
        id: o.id,
        order_id: o.externalId,
        amount: money(o.payableAmount).toFixed(),
        status: o.status,
      })),
    });
  }
  return found;
}

/** Proposing, switching and the one-click assignment of learned rules, over the queue's messages. */
export function createRuleReview(deps: {
  database: Database;
  clock: Clock;
  bankRules: BankRules;
  review: DeviceReview;
}) {
  const { database, clock, bankRules, review } = deps;
  const db = database.db;

  return {
    /**
     * Proposes a rule from an assigned message the reader did not read (`pattern`: an edited one
     * instead of the derived shape). Throws NOT_FOUND, RULE_STATE_CONFLICT (not an assigned bank
     * message, or one the reader reads already), VALIDATION_ERROR.
     */
    async propose(eventId: string, actor: AdminActor, pattern?: string) {
      const e = isUuid(eventId) ? await findEvent(db, eventId) : undefined;
      if (!e) throw new AppError('NOT_FOUND');
      if (e.status !== 'assigned' || !e.orderId)
        throw conflict('only a message assigned to an order teaches a rule');
      if (!e.text || !e.bankCode || e.channel === 'system')
        throw conflict("the message is not a bank's text");
      if (e.parse === 'parsed') throw conflict('the reader reads this text already');
      const order = await orderQueries.findOrderById(db, e.orderId);
      if (!order) throw new AppError('ORDER_NOT_FOUND');
      return bankRules.propose(
        {
          bank: e.bankCode,
          channel: e.channel,
          text: e.text,
          ...(e.title ? { title: e.title } : {}),
          amount: money(order.payableAmount).toFixed(),
          ...(e.fields?.mask ? { mask: e.fields.mask } : {}),
          eventId: e.id,
          ...(pattern ? { pattern } : {}),
        },
        actor,
      );
    },

    /** Switches a rule on (bank-rules' checks, and none of the stored non-credits read). */
    enable: (ruleId: string, actor: AdminActor) =>
      bankRules.enable(ruleId, actor, async () =>
        (await storedNonCredits(db)).map((m) => ({
          name: `message ${m.id} (${m.kind})`,
          text: m.text ?? '',
          ...(m.title ? { title: m.title } : {}),
        })),
      ),

    disable: (ruleId: string, actor: AdminActor) => bankRules.disable(ruleId, actor),
    list: (status?: 'proposed' | 'active' | 'off') => bankRules.list(status),
    rule: async (ruleId: string) => (await bankRules.compiled(ruleId)).rule,

    /** The queue's messages an active rule reads, each with its reading and its candidate orders. */
    matches: (ruleId: string) => queueMatches(db, clock, bankRules, ruleId),

    /**
     * One-click assignment: the active rule's reading is recorded on the queued message (a credit of
     * the read amount), then it is assigned like any credit (device-review-service.ts `assign`).
     * Throws NOT_FOUND, RULE_STATE_CONFLICT (rule not on), MESSAGE_NOT_FOR_ORDER (the rule does not read it).
     */
    async assignByRule(ruleId: string, eventId: string, orderId: string, actor: AdminActor) {
      const compiled = await bankRules.compiled(ruleId);
      if (compiled.rule.status !== 'active') throw new AppError('RULE_STATE_CONFLICT');
      const e = isUuid(eventId) ? await findEvent(db, eventId) : undefined;
      if (!e) throw new AppError('NOT_FOUND');
      if (e.status !== 'review') throw new AppError('ORDER_STATE_CONFLICT');
      const reading = readingOf(compiled, e);
      if (!reading)
        throw new AppError('MESSAGE_NOT_FOR_ORDER', [
          { field: 'event', problem: 'the rule does not read this message' },
        ]);
      const { amount, mask } = reading.read;
      await updateEvent(db, e.id, {
        parse: 'parsed',
        kind: 'credit',
        ruleId: learnedRuleId(ruleId),
        fields: { amount, ...(mask ? { mask } : {}) },
        amount,
      });
      return review.assign(e.id, orderId, actor);
    },
  };
}

export type RuleReview = ReturnType<typeof createRuleReview>;
