import { createRequire } from 'node:module';
import type { FastifySchemaCompiler } from 'fastify';

/**
 * Route schemas compiled at their first use instead of at start (docs/decisions.md "A start that
 * compiles nothing"): Fastify compiles every route's validators (ajv) and response serializers
 * (fast-json-stringify) when the route is added, which was about half of a start's CPU. Each one is
 * compiled by the same compiler, with the same options, on the first request that needs it.
 * `compileAll` compiles what is still pending (the tests use it to prove every schema compiles,
 * which a start no longer does).
 */
export interface DeferredSchemas {
  /** Registers a compile that runs at the first call of what it returns. */
  defer<F extends (...args: never[]) => unknown>(what: string, compile: () => F): () => F;
  /** How many compiles have not run yet. */
  readonly pending: number;
  /** Runs every pending compile now; throws the first failure, naming its route and part. */
  compileAll(): void;
}

/** A registry of deferred compiles for one Fastify app (its compilers and `app.deferredSchemas`). */
export function deferredSchemas(): DeferredSchemas {
  const pending = new Set<() => unknown>();
  return {
    defer(what, compile) {
      let compiled: ReturnType<typeof compile> | undefined;
      const get = () => {
        if (compiled === undefined) {
          try {
            compiled = compile();
          } catch (err) {
            throw new Error(`schema of ${what} does not compile: ${(err as Error).message}`, { cause: err });
          }
          pending.delete(get);
        }
        return compiled;
      };
      pending.add(get);
      return get;
    },
    get pending() {
      return pending.size;
    },
    compileAll() {
      for (const get of [...pending]) get();
    },
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's deferred schema compiles (scopes with their own validator compiler defer through it). */
    deferredSchemas: DeferredSchemas;
  }
}

type Validate = ((data: unknown, dataCxt?: unknown) => unknown) & { errors?: unknown; schemaEnv?: unknown };

/**
 * Wraps a validator compiler so that each schema's validator is compiled at its first call. The
 * wrapper is what Fastify calls: it passes the call through (with the data context Fastify gives an
 * ajv validator, `schemaEnv` being ajv's mark) and shows the real validator's `errors`.
 */
export function deferValidators(
  registry: DeferredSchemas,
  compiler: FastifySchemaCompiler<unknown>,
): FastifySchemaCompiler<unknown> {
  return (route) => {
    const real = registry.defer(
      `${route.method} ${route.url} ${route.httpPart ?? ''}`,
      () => compiler(route) as unknown as Validate,
    );
    const validate = ((data: unknown, dataCxt?: unknown) =>
      dataCxt === undefined ? real()(data) : real()(data, dataCxt)) as Validate;
    Object.defineProperty(validate, 'errors', { get: () => real().errors });
    // Fastify reads `schemaEnv` just before its first call: compiling then costs nothing extra.
    Object.defineProperty(validate, 'schemaEnv', { get: () => real().schemaEnv });
    return validate as ReturnType<FastifySchemaCompiler<unknown>>;
  };
}

interface SerializerRoute {
  method: string;
  url: string;
  httpStatus: string;
  schema?: unknown;
}

/**
 * Fastify's own serializer factory (@fastify/fast-json-stringify-compiler, as Fastify builds it when
 * none is given: same external schemas, same `serializerOpts`), each route's serializer compiled at
 * its first response. For the `schemaController.compilersFactory.buildSerializer` option.
 */
export function deferredSerializerFactory(registry: DeferredSchemas) {
  return (externalSchemas: unknown, serializerOpts: unknown) => {
    // fast-json-stringify (and the ajv it loads) is loaded at the first compile, not at start.
    type Compiler = ReturnType<ReturnType<typeof import('@fastify/fast-json-stringify-compiler')>>;
    let compiler: Compiler | undefined;
    const compile = (route: SerializerRoute) => {
      if (!compiler) {
        const { SerializerSelector } = createRequire(import.meta.url)(
          '@fastify/fast-json-stringify-compiler',
        ) as typeof import('@fastify/fast-json-stringify-compiler');
        const build = SerializerSelector();
        compiler = build(externalSchemas, serializerOpts as Parameters<typeof build>[1]);
      }
      return compiler(route);
    };
    return (route: SerializerRoute) => {
      const real = registry.defer(`${route.method} ${route.url} response ${route.httpStatus}`, () =>
        compile(route),
      );
      return (doc: unknown) => real()(doc);
    };
  };
}
