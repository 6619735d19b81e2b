import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS package loaded at the first call of the answered function, then kept: for packages only
 * some deployments use (docs/decisions.md "A start that compiles nothing"). Synchronous, so a caller
 * on a hot path pays one property read after the first call. Type it with the package's own types:
 * `lazyRequire<typeof import('undici')>('undici')`. Throws what `require` throws, at that first call.
 */
export function lazyRequire<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(specifier) as T;
    return loaded;
  };
}

/** undici: outbound HTTP (the outbound guard's dispatcher, webhooks, receipts by URL, rate sources). */
export const undici = lazyRequire<typeof import('undici')>('undici');

/** @ton/core: TON addresses (deposit addresses, the TON watcher). */
export const tonCore = lazyRequire<typeof import('@ton/core')>('@ton/core');
