// A loopback fake of CoinGecko's "Coin Price by IDs" (public API v3):
//   https://docs.coingecko.com/v3.0.1/reference/simple-price
//   GET /api/v3/simple/price?ids=bitcoin,tether&vs_currencies=rub
//   200 application/json: {"bitcoin": {"rub": 9123456.78}, "tether": {"rub": 92.1}}; only the ids
//   asked for and known appear, prices are JSON numbers; over the public rate limit: 429.
import { startRateFake } from './rate-fake.js';

/** Starts the fake; `prices` maps a coin id to its RUB price (a JSON number as text, e.g. "92.1"). */
export async function startCoinGeckoFake(initial: Record<string, string> = {}) {
  const prices: Record<string, string> = { ...initial };
  const fake = await startRateFake('/api/v3/simple/price', (url) => {
    const ids = url.searchParams.get('ids')?.split(',') ?? [];
    const vs = url.searchParams.get('vs_currencies')?.split(',') ?? [];
    if (ids.length === 0 || vs.length === 0) return undefined;
    // Built by hand so the numbers are written exactly as given (as CoinGecko's JSON numbers).
    const parts = ids
      .filter((id) => prices[id] !== undefined)
      .map(
        (id) =>
          `"${id}":{${vs
            .filter((v) => v === 'rub')
            .map((v) => `"${v}":${prices[id]}`)
            .join(',')}}`,
      );
    return { body: `{${parts.join(',')}}`, contentType: 'application/json; charset=utf-8' };
  });
  return Object.assign(fake, { prices });
}
