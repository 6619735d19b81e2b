import { ChainSourceError } from './chain-source.js';
import { providerRequest, providerTarget, type RequestBudget, snippet, UNLIMITED } from './provider-http.js';

/** GET requests to a provider's REST API, with errors an operator can act on. */
export interface RestClient {
  /** The body text of a 2xx answer to GET `path` (appended to the base URL); null for a 404 when `nullOn404`. */
  get(path: string, nullOn404?: boolean): Promise<string | null>;
  /** The same, parsed as JSON; a body that is not JSON is a ChainSourceError. */
  getJson(path: string, nullOn404?: boolean): Promise<unknown>;
  /** The error for an answer of the wrong shape (`what` names it). */
  malformed(path: string, what: string, body: string): ChainSourceError;
}

/**
 * A REST client for a chain source (Esplora, toncenter): `url` is the API base (a trailing slash is
 * ignored; credentials in it become a Basic header), `headers` go with every request (an API key),
 * `expect` says what the URL should be in errors ("the Esplora API base, e.g.
 * https://blockstream.info/api"), `on400` what a 400 usually means. Requests go through
 * `providerRequest`: the chain's budget, never a redirect followed (a key never goes to another
 * address), 429 retried after a backoff, a timeout (10 s by default). Throws ChainSourceError (with
 * `status` for HTTP answers): 401/403 say to check the key; 5xx that it is retried.
 */
export function createRestClient(opts: {
  url: string;
  headers: Record<string, string>;
  expect: string;
  on400?: string;
  fetch?: typeof fetch;
  budget?: RequestBudget;
  timeoutMs?: number;
  backoffMs?: number;
}): RestClient {
  const target = providerTarget(opts.url, opts.headers);
  const requestOpts = {
    budget: opts.budget ?? UNLIMITED,
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
    ...(opts.backoffMs !== undefined ? { backoffMs: opts.backoffMs } : {}),
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  };

  function malformed(path: string, what: string, body: string): ChainSourceError {
    return new ChainSourceError(
      `GET ${path}: the provider answered ${what} (${snippet(body)}); is the URL ${opts.expect}?`,
    );
  }

  function httpError(path: string, status: number, body: string): ChainSourceError {
    const hint =
      status === 400 && opts.on400
        ? ` (${opts.on400})`
        : status === 401 || status === 403
          ? ' (check the API key)'
          : status >= 500
            ? ' (the provider or its node is failing: retried next loop)'
            : '';
    return new ChainSourceError(
      `GET ${path}: the provider answered HTTP ${status}${hint}: ${snippet(body)}`,
      status,
    );
  }

  async function get(path: string, nullOn404 = false): Promise<string | null> {
    const answer = await providerRequest(target, { method: 'GET', path, what: `GET ${path}` }, requestOpts);
    if (answer.status === 404 && nullOn404) return null;
    if (answer.status < 200 || answer.status > 299) throw httpError(path, answer.status, answer.text);
    return answer.text;
  }

  return {
    get,
    malformed,
    async getJson(path: string, nullOn404 = false): Promise<unknown> {
      const text = await get(path, nullOn404);
      if (text === null) return null;
      try {
        return JSON.parse(text);
      } catch {
        throw malformed(path, 'not JSON', text);
      }
    },
  };
}

/**
 * Runs `fn` over `items`, at most `limit` at a time (public providers rate-limit per client);
 * results in the items' order; the first error fails the whole run and the others stop taking items.
 */
export async function inPool<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failed = false;
  async function worker(): Promise<void> {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i] as T);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
