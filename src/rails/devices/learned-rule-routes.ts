import { Type } from '@sinclair/typebox';
import { actorOf } from '../../http/request-context.js';
import { type App, Envelope, errorResponses } from '../../http/schemas.js';
import type { RuleReview } from './learned-rule-review.js';

const Nullable = (t: ReturnType<typeof Type.String>) => Type.Union([t, Type.Null()]);
const RuleSchema = Type.Object({
  id: Type.String(),
  bank_code: Type.String(),
  channel: Type.String({ description: 'sms or push: the channel the rule reads' }),
  direction: Type.Literal('credit', { description: 'a learned rule only ever reads a credit' }),
  pattern: Type.String({
    description:
      'regular expression over the normalised text (flags iu); holes: amount, mask, payer, balance',
  }),
  examples: Type.Array(
    Type.Object({
      text: Type.String(),
      title: Type.Optional(Type.String()),
      amount: Type.String(),
      mask: Type.Optional(Type.String()),
      event_id: Type.Optional(Type.String()),
    }),
  ),
  status: Type.Union([Type.Literal('proposed'), Type.Literal('active'), Type.Literal('off')]),
  proposed_by: Type.String(),
  proposed_at: Type.String(),
  enabled_by: Nullable(Type.String()),
  enabled_at: Nullable(Type.String()),
  disabled_by: Nullable(Type.String()),
  disabled_at: Nullable(Type.String()),
});
const Id = Type.Object({ id: Type.String({ maxLength: 64 }) });
const ok = <T>(data: T) => ({ success: true as const, data });

/**
 * Admin: bank-message rules learned from the review queue (docs/decisions.md "Rules learned from the
 * review queue"): propose from an assigned message (orders.manage), list (orders.read), switch on
 * or off (pool.manage, admins only).
 */
export function learnedRuleRoutes(app: App, deps: { rules: RuleReview }) {
  app.post(
    '/admin/bank-rules',
    {
      schema: {
        tags: ['admin'],
        summary: "Propose a rule from a message assigned to an order: the text's shape with holes",
        body: Type.Object({
          event_id: Type.String({ minLength: 1, maxLength: 64 }),
          pattern: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
        }),
        response: { 200: Envelope(RuleSchema), ...errorResponses },
      },
    },
    async (request) =>
      ok(await deps.rules.propose(request.body.event_id, actorOf(request), request.body.pattern)),
  );
  app.get(
    '/admin/bank-rules',
    {
      schema: {
        tags: ['admin'],
        summary: 'Learned rules, newest first',
        querystring: Type.Object({
          status: Type.Optional(
            Type.Union([Type.Literal('proposed'), Type.Literal('active'), Type.Literal('off')]),
          ),
        }),
        response: { 200: Envelope(Type.Array(RuleSchema)), ...errorResponses },
      },
    },
    async (request) => ok(await deps.rules.list(request.query.status)),
  );
  app.post(
    '/admin/bank-rules/:id/enable',
    {
      schema: {
        tags: ['admin'],
        summary: 'Switch a rule on after it is checked against the corpus and stored non-credits',
        params: Id,
        response: { 200: Envelope(RuleSchema), ...errorResponses },
      },
    },
    async (request) => ok(await deps.rules.enable(request.params.id, actorOf(request))),
  );
  app.post(
    '/admin/bank-rules/:id/disable',
    {
      schema: {
        tags: ['admin'],
        summary: 'Switch a rule off',
        params: Id,
        response: { 200: Envelope(RuleSchema), ...errorResponses },
      },
    },
    async (request) => ok(await deps.rules.disable(request.params.id, actorOf(request))),
  );
}
