import { undici } from '../../../lib/lazy-require.js';
import { money } from '../../../lib/money.js';

/** One rate as a source gives it: `rate` units of `quote` for one `base`, a decimal string. */
export interface SourceQuote {
  base: string;
  quote: string;
  rate: string;
}

/** A rate source adapter (docs/decisions.md section 22): a name, its freshness limit and poll interval, a fetch. */
export interface RateSource {
  /** As RATE_SOURCES names it and as quotes and history keep it. */
  name: string;
  /** Seconds a quote of this source stays fresh. */
  maxAgeSeconds: number;
  /** Least seconds between two polls (the CBR changes once a day: hourly). */
  intervalSeconds: number;
  /** Reads the source (10 s limit); throws on a transport error, a non-200 answer or a body of the wrong shape. */
  fetch(): Promise<SourceQuote[]>;
}

/** The request limit of every source (docs/decisions.md section 22: 10 s). */
export const SOURCE_TIMEOUT_MS = 10_000;

/**
 * GETs `url` and answers its body as bytes; a status other than 200 (429 rate limited, 5xx) throws
 * an error naming the source and the status.
 */
export async function getBytes(source: string, url: string, accept: string): Promise<Buffer> {
  // undici is loaded at the first fetch, not at start.
  const { request } = undici();
  const res = await request(url, {
    method: 'GET',
    signal: AbortSignal.timeout(SOURCE_TIMEOUT_MS),
    headers: { accept, 'user-agent': 'payment-orders rates' },
  });
  if (res.statusCode !== 200) {
    await res.body.dump();
    throw new Error(`${source} answered ${res.statusCode}`);
  }
  return Buffer.from(await res.body.arrayBuffer());
}

/** GETs `url` and parses its JSON body (a body that is not JSON throws). */
export async function getJson(source: string, url: string): Promise<unknown> {
  const text = (await getBytes(source, url, 'application/json')).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${source} answered something that is not JSON`);
  }
}

/**
 * A positive rate from a JSON number or string, as a decimal string rounded half up to 12
 * decimals; undefined for anything else (0, negatives, exponent forms, NaN, booleans, objects).
 * JSON numbers are read through `String()`, never through float arithmetic.
 */
export function positiveRate(value: unknown): string | undefined {
  if (typeof value !== 'number' && typeof value !== 'string') return undefined;
  const text = String(value).trim();
  if (!/^\d{1,15}(\.\d{1,20})?$/.test(text)) return undefined;
  const rate = money(text).toDecimalPlaces(12);
  return rate.gt(0) ? rate.toFixed() : undefined;
}
