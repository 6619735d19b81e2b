import { ChainSourceError } from './chain-source.js';

/** Seconds a provider has to answer one request. */
const TIMEOUT_MS = 10_000;

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
 * ignored), `headers` go with every request (an API key), `expect` says what the URL should be in
 * errors ("the Esplora API base, e.g. https://blockstream.info/api"), `on400` what a 400 usually
 * means. Redirects are reported, never followed, so a key never goes to another host. Every request
 * has a 10 s timeout. Throws ChainSourceError (with `status` for HTTP answers): 429 says to raise
 * poll_seconds or use one's own node (or an API key); 401/403 to check the key; 5xx that it is retried.
 */
export function createRestClient(opts: {
  url: string;
  headers: Record<string, string>;
  expect: string;
  on400?: string;
  fetch?: typeof fetch;
}): RestClient {
  const doFetch = opts.fetch ?? globalThis.fetch;
  const base = opts.url.replace(/\/+$/, '');

  function malformed(path: string, what: string, body: string): ChainSourceError {
    return new ChainSourceError(
      `GET ${path}: the provider answered ${what} (${snippet(body)}); is the URL ${opts.expect}?`,
    );
  }

  function httpError(path: string, status: number, body: string): ChainSourceError {
    if (status === 429)
      return new ChainSourceError(
        `GET ${path}: rate limited by the provider (429): raise poll_seconds, give an API key or use your own node`,
        429,
      );
    if (status >= 300 && status < 400)
      return new ChainSourceError(
        `GET ${path}: the provider redirected (HTTP ${status}): set the URL to the final API address`,
        status,
      );
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
    let res: Response;
    let text: string;
    try {
      res = await doFetch(base + path, {
        headers: opts.headers,
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      text = await res.text();
    } catch (err) {
      throw transportError(path, err);
    }
    if (res.status === 404 && nullOn404) return null;
    if (res.status < 200 || res.status > 299) throw httpError(path, res.status, text);
    return text;
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

function transportError(path: string, err: unknown): ChainSourceError {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError')
    return new ChainSourceError(`GET ${path}: no answer within ${TIMEOUT_MS / 1000} s`);
  const cause = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
  return new ChainSourceError(`GET ${path}: could not reach the provider (${cause}): check the URL`);
}

/** The start of a body for a message: providers answer errors in plain text or HTML. */
function snippet(body: string): string {
  const s = body.replace(/\s+/g, ' ').trim();
  return s.length > 200 ? `${s.slice(0, 200)}…` : s || 'empty body';
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
