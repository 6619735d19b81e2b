import { createRequire } from 'node:module';
import type { Ajv, Options } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import type { ErrorDetail } from '../lib/errors.js';
import { type TextSchema, unstorableTextAt } from '../lib/storable-text.js';
import { type DeferredSchemas, deferValidators } from './deferred-schemas.js';

/** ajv and its formats are loaded with the first instance, at the first validation, not at start. */
function makeAjv(options: Options): Ajv {
  const require = createRequire(import.meta.url);
  const { Ajv } = require('ajv') as typeof import('ajv');
  const addFormats = require('ajv-formats') as (a: Ajv) => Ajv;
  const ajv = new Ajv({
    allErrors: false,
    strict: false,
    useDefaults: true,
    removeAdditional: false,
    ...options,
  });
  addFormats(ajv);
  return ajv;
}

/** An ajv instance made at its first use (a start that compiles nothing makes none). */
function lazyAjv(options: Options): () => Ajv {
  let ajv: Ajv | undefined;
  return () => {
    ajv ??= makeAjv(options);
    return ajv;
  };
}

type Validator = ReturnType<FastifySchemaCompiler<unknown>>;
/** An ajv validator as Fastify calls it: the data, its context, and ajv's mark `schemaEnv`. */
type AjvValidate = ((data: unknown, dataCxt?: unknown) => unknown) & {
  errors?: unknown;
  schemaEnv?: unknown;
};

/** The error a validator gives for text no field can store (docs/decisions.md "Text that cannot be stored"). */
export const UNSTORABLE_TEXT_PROBLEM = 'holds U+0000 or an unpaired surrogate, which cannot be stored';

/**
 * `validate`, then a refusal of text no field can store (lib/storable-text.ts) in a body or a
 * query, in the fields `schema` declares (a field the service ignores is never stored): checked by
 * the schemas' validation step, so after authentication, and answered VALIDATION_ERROR naming the
 * field. Path parameters are left to their routes: an id that cannot
 * be stored names nothing, which each lookup answers itself.
 */
function refusingUnstorableText(
  validate: Validator,
  httpPart: string | undefined,
  schema: unknown,
): Validator {
  if (httpPart !== 'body' && httpPart !== 'querystring') return validate;
  const ajvValidate = validate as unknown as AjvValidate;
  // The data context passes through: ajv coerces a query's root only when given its parent.
  const checked = ((data: unknown, dataCxt?: unknown) => {
    const ok = ajvValidate(data, dataCxt);
    if (ok !== true) {
      checked.errors = ajvValidate.errors;
      return ok;
    }
    const at = unstorableTextAt(data, schema as TextSchema);
    if (at === undefined) return true;
    checked.errors = [{ instancePath: at, keyword: 'storableText', message: UNSTORABLE_TEXT_PROBLEM }];
    return false;
  }) as AjvValidate;
  checked.schemaEnv = ajvValidate.schemaEnv;
  return checked as unknown as Validator;
}

/**
 * Validators for route schemas: JSON bodies are checked as sent (no type coercion: "100" is not an
 * amount), while path and query parameters, always text, are coerced to the schema's types. Each
 * validator is compiled at its first use, through `deferred` (http/deferred-schemas.ts).
 */
export function createValidatorCompiler(deferred: DeferredSchemas): FastifySchemaCompiler<unknown> {
  const strict = lazyAjv({ coerceTypes: false });
  const coercing = lazyAjv({ coerceTypes: 'array' });
  return deferValidators(deferred, ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict() : coercing();
    return refusingUnstorableText(ajv.compile(schema as object) as Validator, httpPart, schema);
  });
}

/**
 * Validators for the pages' routes (console, portal): their bodies are HTML forms
 * (`application/x-www-form-urlencoded`, one string per field), so every part, the body included, is
 * coerced to the schema's types ("5" to 5, "" to a missing optional string's default). Compiled at
 * first use, like the API's.
 */
export function createFormValidatorCompiler(deferred: DeferredSchemas): FastifySchemaCompiler<unknown> {
  const coercing = lazyAjv({ coerceTypes: true });
  return deferValidators(deferred, ({ schema, httpPart }) =>
    refusingUnstorableText(coercing().compile(schema as object) as Validator, httpPart, schema),
  );
}

interface AjvLikeError {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** Turns validator errors into `details` items (docs/decisions.md section 2) naming the field. */
export function validationDetails(errors: readonly AjvLikeError[], context?: string): ErrorDetail[] {
  return errors.map((e) => {
    let field = (e.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.');
    if (e.keyword === 'required' && typeof e.params?.missingProperty === 'string') {
      field = field ? `${field}.${e.params.missingProperty}` : e.params.missingProperty;
      return { field, problem: 'is required' };
    }
    return { field: field || context || 'body', problem: e.message ?? 'is invalid' };
  });
}
