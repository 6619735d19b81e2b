import formbody from '@fastify/formbody';
import { Type } from '@sinclair/typebox';
import type { preHandlerAsyncHookHandler } from 'fastify';
import { type App, errorResponses } from '../../http/schemas.js';
import { SANDBOX_OUTCOMES } from '../../rails/sandbox/index.js';
import type { FormService } from './form-service.js';

/**
 * The buttons of a test order's payment form (docs/decisions.md section 29): `POST /form/<id>/sandbox` with
 * `outcome` (a plain HTML form, so it works without JavaScript) drives the test order and answers
 * 303 back to the page (JSON `{success, outcome}` to a client that does not ask for HTML). A live order is ORDER_NOT_FOUND: nothing a payer posts here moves money.
 */
export function formSandboxRoutes(app: App, deps: { form: FormService; limit: preHandlerAsyncHookHandler }) {
  void app.register(async (scope: App) => {
    await scope.register(formbody);
    scope.post(
      '/form/:id/sandbox',
      {
        preHandler: deps.limit,
        schema: {
          tags: ['form'],
          summary: "A test order's sandbox button: drives it to `outcome`, then 303 to the page",
          params: Type.Object({ id: Type.String({ maxLength: 500 }) }),
          consumes: ['application/x-www-form-urlencoded'],
          body: Type.Object({ outcome: Type.Union(SANDBOX_OUTCOMES.map((o) => Type.Literal(o))) }),
          response: {
            200: Type.Object({ success: Type.Literal(true), outcome: Type.String() }),
            303: Type.Null(),
            ...errorResponses,
          },
        },
      },
      async (request, reply) => {
        await deps.form.sandbox(request.params.id, request.body.outcome, request.ip);
        // A browser's form post gets the page back; a script gets JSON (as the appeal post does).
        if ((request.headers.accept ?? '').includes('text/html'))
          return reply.redirect(`/form/${encodeURIComponent(request.params.id)}`, 303);
        return { success: true as const, outcome: request.body.outcome };
      },
    );
  });
}
