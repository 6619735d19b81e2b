import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { ErrorDetail } from '../lib/errors.js';

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({
    allErrors: false,
    strict: false,
    useDefaults: true,
    removeAdditional: false,
    ...options,
  });
  (addFormats as unknown as (a: Ajv) => Ajv)(ajv);
  return ajv;
}

/**
 * Validators for route schemas: JSON bodies are checked as sent (no type coercion: "100" is not an
 * amount), while path and query parameters, always text, are coerced to the schema's types.
 */
export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const strict = makeAjv({ coerceTypes: false });
  const coercing = makeAjv({ coerceTypes: 'array' });
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing;
    return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
  };
}

/**
 * Validators for the pages' routes (console, portal): their bodies are HTML forms
 * (`application/x-www-form-urlencoded`, one string per field), so every part, the body included, is
 * coerced to the schema's types ("5" to 5, "" to a missing optional string's default).
 */
export function createFormValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const coercing = makeAjv({ coerceTypes: true });
  return ({ schema }) => coercing.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
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
