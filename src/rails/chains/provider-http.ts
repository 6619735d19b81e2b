import { redactUrl } from '../../lib/redact.js';
import { ChainSourceError, type RequestBudget } from './chain-source.js';

export type { RequestBudget };

/** A budget of `rps` requests per second (a slot every 1000/rps ms, no burst). */
export function createRequestBudget(
  rps: number,
  deps: { now?: () => number; sleep?: (ms: number) => Promise<void> } = {},
): RequestBudget {
  if (!(rps > 0)) throw new RangeError(`a request budget needs rps > 0: ${rps}`);
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const gap = 1000 / rps;
  let next = 0;
  return {
    rps,
    async take() {
      const at = Math.max(now(), next);
      next = at + gap;
      const wait = at - now();
      if (wait > 0) await sleep(wait);
    },
    pause(ms: number) {
      next = Math.max(next, now() + ms);
    },
  };
}

/** An unlimited budget (tests of a single source, and sources built without one). */
export const UNLIMITED: RequestBudget = {
  rps: Number.POSITIVE_INFINITY,
  take: async () => {},
  pause: () => {},
};

/** Where a provider's requests go: the URL without credentials, and the headers that carry them. */
export interface ProviderTarget {
  /** The URL with user name and password removed (fetch refuses URLs with credentials). */
  url: string;
  headers: Record<string, string>;
}

/**
 * The target of an operator's URL: credentials in the URL (`https://user:pass@host/`) become an
 * `Authorization: Basic` header (unless `headers` already has one), the rest stays as given.
 * Throws ChainSourceError for a URL that does not parse.
 */
export function providerTarget(url: string, headers: Record<string, string>): ProviderTarget {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ChainSourceError('the URL does not parse: give the full address, e.g. https://host/path');
  }
  const out = { ...headers };
  if (u.username || u.password) {
    const user = decodeURIComponent(u.username);
    const pass = decodeURIComponent(u.password);
    if (!Object.keys(out).some((k) => k.toLowerCase() === 'authorization'))
      out.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
    u.username = '';
    u.password = '';
  }
  return { url: u.toString(), headers: out };
}

/** How a request is sent and retried. */
export interface ProviderRequestOptions {
  budget: RequestBudget;
  /** Milliseconds the provider has to answer (default 10 s). */
  timeoutMs?: number;
  /** Tries after a 429 before the error (default 3), each after its backoff. */
  retries429?: number;
  /** The first backoff after a 429 without Retry-After (default 1 s; doubled each time, at most 8 s). */
  backoffMs?: number;
  fetch?: typeof fetch;
}

/** An answer: its status and body text (2xx, 404 and the other non-redirect, non-429 statuses). */
export interface ProviderAnswer {
  status: number;
  text: string;
}

const RATE_LIMIT_TEXT = /frequency limit|rate ?limit/i;

/**
 * Sends one request to a provider within the chain's budget (`what` names it in errors, e.g.
 * "GET /blocks/tip/height" or "eth_getLogs"; never the URL, which may carry a key). Redirects are
 * never followed (so no key or credential header goes to another address): a 3xx is an error naming
 * the redacted target. A 429 (or TronGrid's 403/503 "exceeds the frequency limit") pauses the budget
 * for Retry-After or an exponential backoff and is tried again, `retries429` times, then fails.
 * Throws ChainSourceError for a redirect, the last 429, a timeout or an unreachable provider.
 */
export async function providerRequest(
  target: ProviderTarget,
  init: { method: 'GET' | 'POST'; path?: string; body?: string; what: string },
  opts: ProviderRequestOptions,
): Promise<ProviderAnswer> {
  const doFetch = opts.fetch ?? globalThis.fetch;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const retries = opts.retries429 ?? 3;
  const url = init.path === undefined ? target.url : target.url.replace(/\/+$/, '') + init.path;
  const headers = {
    ...target.headers,
    ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
  };
  for (let attempt = 0; ; attempt++) {
    await opts.budget.take();
    let res: Response;
    let text: string;
    try {
      res = await doFetch(url, {
        method: init.method,
        headers,
        ...(init.body !== undefined ? { body: init.body } : {}),
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      throw transportError(init.what, err, timeoutMs);
    }
    if (res.status >= 300 && res.status < 400) {
      const location = res.headers.get('location');
      const to = location ? redactUrl(new URL(location, url).toString()) : 'another address';
      throw new ChainSourceError(
        `${init.what}: the provider redirected (HTTP ${res.status}) to ${to}: not followed, so that no key or credential goes elsewhere; set the URL to the final API address`,
        res.status,
      );
    }
    const limited =
      res.status === 429 || ((res.status === 403 || res.status === 503) && RATE_LIMIT_TEXT.test(text));
    if (!limited) return { status: res.status, text };
    const wait = backoff(res.headers.get('retry-after'), attempt, opts.backoffMs ?? 1000);
    opts.budget.pause(wait);
    if (attempt >= retries)
      throw new ChainSourceError(
        `${init.what}: rate limited by the provider (${res.status}) after ${retries} retries with backoff: lower the chain's RPS, raise poll_seconds, give an API key or use your own node`,
        429,
      );
  }
}

/** Milliseconds to wait after a 429: Retry-After (seconds, at most 30), else 1, 2, 4, 8 s. */
function backoff(retryAfter: string | null, attempt: number, first: number): number {
  const seconds = retryAfter !== null && /^\d{1,4}$/.test(retryAfter.trim()) ? Number(retryAfter) : null;
  if (seconds !== null) return Math.min(seconds, 30) * 1000;
  return Math.min(first * 2 ** attempt, 8 * first);
}

function transportError(what: string, err: unknown, timeoutMs: number): ChainSourceError {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError')
    return new ChainSourceError(`${what}: no answer within ${timeoutMs / 1000} s`);
  const cause = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
  return new ChainSourceError(`${what}: could not reach the provider (${cause}): check the URL`);
}

/** The start of a body for a message: providers answer errors in plain text or HTML. */
export function snippet(body: string): string {
  const s = body.replace(/\s+/g, ' ').trim();
  return s.length > 200 ? `${s.slice(0, 200)}…` : s || 'empty body';
}
