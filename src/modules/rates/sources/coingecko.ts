// CoinGecko "Coin Price by IDs" (public, keyless API; no account needed):
//   https://docs.coingecko.com/v3.0.1/reference/simple-price
//   GET {base}/api/v3/simple/price?ids=<comma-separated coin ids>&vs_currencies=<comma-separated>
//   200: {"<coin id>": {"<vs currency>": <price as a JSON number>}, ...}; ids it does not know are
//   simply absent. "Cache / Update Frequency: every 60 seconds" for the public API; its rate limit
//   is a few calls per minute per IP ("Common Errors & Rate Limit": 429 when over it), hence one
//   call for all six coins per RATE_SOURCES_INTERVAL.
import { getJson, positiveRate, type RateSource, type SourceQuote } from './source-http.js';

/** CoinGecko's coin ids of the coins we quote (docs: `/coins/list`). */
export const COINGECKO_IDS: Readonly<Record<string, string>> = Object.freeze({
  tether: 'USDT',
  bitcoin: 'BTC',
  litecoin: 'LTC',
  ethereum: 'ETH',
  binancecoin: 'BNB',
  'the-open-network': 'TON',
});

/** The request path, exactly as documented: every coin, in rubles. */
export const COINGECKO_PATH = `/api/v3/simple/price?ids=${Object.keys(COINGECKO_IDS).join(',')}&vs_currencies=rub`;

/**
 * Reads a `/simple/price` answer: `{"tether": {"rub": 92.1}, ...}` gives USDT/RUB 92.1 for each
 * known id; unknown ids, missing `rub` and non-positive or non-numeric prices are dropped.
 */
export function parseCoinGecko(json: unknown): SourceQuote[] {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return [];
  const out: SourceQuote[] = [];
  for (const [id, coin] of Object.entries(COINGECKO_IDS)) {
    const prices = (json as Record<string, unknown>)[id];
    if (!prices || typeof prices !== 'object') continue;
    const rate = positiveRate((prices as Record<string, unknown>).rub);
    if (rate) out.push({ base: coin, quote: 'RUB', rate });
  }
  return out;
}

/** The CoinGecko source at `baseUrl` (RATE_COINGECKO_URL), fresh for `maxAgeSeconds`. */
export function coinGeckoSource(baseUrl: string, maxAgeSeconds: number, intervalSeconds: number): RateSource {
  return {
    name: 'coingecko',
    maxAgeSeconds,
    intervalSeconds,
    fetch: async () => {
      const quotes = parseCoinGecko(await getJson('coingecko', `${baseUrl}${COINGECKO_PATH}`));
      if (quotes.length === 0) throw new Error('coingecko answered no rates');
      return quotes;
    },
  };
}
