import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import { type TProperties, Type } from '@sinclair/typebox';
import type { App } from '../../http/schemas.js';
import { createFormValidatorCompiler } from '../../http/validation.js';
import { lastValues, parseFormBody } from '../../lib/form-fields.js';

/**
 * Prepares a surface's scope for server-rendered forms (docs/architecture.md "Session stack"):
 * @fastify/cookie, @fastify/formbody (one string per field: src/lib/form-fields.ts), one string per
 * query name, and validators that coerce urlencoded bodies to their TypeBox schema's types.
 */
export async function registerFormScope(scope: App): Promise<void> {
  await scope.register(cookie);
  await scope.register(formbody, { parser: parseFormBody });
  scope.addHook('onRequest', async (request) => {
    request.query = lastValues(request.query);
  });
  scope.setValidatorCompiler(createFormValidatorCompiler(scope.deferredSchemas));
}

/**
 * A text field of a form, optionally bounded (optional: an empty or missing field is the service's to
 * refuse, in words; the body limit bounds the rest).
 */
export const Field = (maxLength?: number) =>
  Type.Optional(Type.String(maxLength === undefined ? {} : { maxLength }));

/**
 * The body of a signed-in form post: its fields and the `_csrf` token (checked by the session guard
 * before the schema, so a missing token is 403, not 400). Other fields are kept (a confirmation page
 * re-posts what it was given).
 */
export const FormBody = <T extends TProperties>(fields: T) => Type.Object({ _csrf: Field(200), ...fields });

/** A path parameter naming one thing (an id, a name, a code). */
export const PathParam = Type.String({ minLength: 1, maxLength: 512 });

/** `/:id` parameters. */
export const IdParams = Type.Object({ id: PathParam });
