// Rapira, a Russian-market exchange (rapira.net): its public market-data endpoint, no account
//   GET {base}/open/market/rates
//   200: {"code": 0, "message": "SUCCESS", "data": [{"symbol": "USDT/RUB", "baseCurrency": "RUB",
//   "quoteCurrency": "USDT", "open": .., "high": .., "low": .., "close": 80.11, "askPrice": 80.12,
//   "bidPrice": 80.11, ...}, {"symbol": "BTC/USDT", ...}], "totalPage": null, "totalElement": null}
// Rapira's own API documentation (https://docs.rapira.net) was not in the reference corpora we
// could read; this shape is the one independent public clients of the endpoint read and test
// against (symbol "BASE/QUOTE", prices as JSON numbers; note that `baseCurrency`/`quoteCurrency`
// are the other way round, so only `symbol` is trusted). The ticker moves with every trade; we
// read it every RATE_SOURCES_INTERVAL. Not a sanctioned or seized venue to our knowledge (unlike
// Garantex/Grinex): the operator chooses it in RATE_SOURCES.
import { money } from '../../../lib/money.js';
import { getJson, positiveRate, type RateSource, type SourceQuote } from './source-http.js';

/** The request path of Rapira's public rates. */
export const RAPIRA_PATH = '/open/market/rates';

const PAIR = /^(USDT|BTC|LTC|ETH|BNB|TON)\/RUB$/;

/**
 * Reads a `/open/market/rates` answer: for each `X/RUB` symbol of our coins, the middle of
 * `bidPrice` and `askPrice` (rounded half up to 12 decimals), or `close` when the book side is
 * missing. A `code` other than 0 or a `data` that is not a list gives nothing.
 */
export function parseRapira(json: unknown): SourceQuote[] {
  if (!json || typeof json !== 'object') return [];
  const body = json as { code?: unknown; data?: unknown };
  if ((body.code !== undefined && body.code !== 0) || !Array.isArray(body.data)) return [];
  const out: SourceQuote[] = [];
  for (const item of body.data as unknown[]) {
    if (!item || typeof item !== 'object') continue;
    const row = item as Record<string, unknown>;
    const pair = typeof row.symbol === 'string' ? PAIR.exec(row.symbol) : null;
    if (!pair?.[1]) continue;
    const bid = positiveRate(row.bidPrice);
    const ask = positiveRate(row.askPrice);
    const rate =
      bid && ask && money(ask).gte(bid)
        ? money(bid).plus(ask).dividedBy(2).toDecimalPlaces(12).toFixed()
        : positiveRate(row.close);
    if (rate) out.push({ base: pair[1], quote: 'RUB', rate });
  }
  return out;
}

/** The Rapira source at `baseUrl` (RATE_RAPIRA_URL), fresh for `maxAgeSeconds`. */
export function rapiraSource(baseUrl: string, maxAgeSeconds: number, intervalSeconds: number): RateSource {
  return {
    name: 'rapira',
    maxAgeSeconds,
    intervalSeconds,
    fetch: async () => {
      const quotes = parseRapira(await getJson('rapira', `${baseUrl}${RAPIRA_PATH}`));
      if (quotes.length === 0) throw new Error('rapira answered no rates');
      return quotes;
    },
  };
}
