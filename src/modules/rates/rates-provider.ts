import { money } from '../../lib/money.js';
import { getJson } from './sources/source-http.js';

/** One rate as a provider answers it. */
export interface ProviderRate {
  base: string;
  quote: string;
  rate: string;
}

/**
 * Reads a provider answer. Two JSON shapes are taken: `{"rates": [{"base","quote","rate"}, ...]}` or
 * a flat map `{"USDT/RUB": "92.5", "BTC/RUB": 9100000}`. Entries that are not positive numbers or not
 * currency codes are dropped.
 */
export function parseProviderAnswer(json: unknown): ProviderRate[] {
  const out: ProviderRate[] = [];
  const push = (base: unknown, quote: unknown, rate: unknown) => {
    if (typeof rate !== 'number' && typeof rate !== 'string') return;
    const text = String(rate);
    if (typeof base !== 'string' || typeof quote !== 'string') return;
    if (!/^[A-Z]{3,5}$/.test(base) || !/^[A-Z]{3,5}$/.test(quote)) return;
    if (!/^\d{1,15}(\.\d{1,12})?$/.test(text) || money(text).lte(0)) return;
    out.push({ base, quote, rate: text });
  };
  if (json && typeof json === 'object' && Array.isArray((json as { rates?: unknown }).rates)) {
    for (const r of (json as { rates: Array<Record<string, unknown>> }).rates)
      push(r?.base, r?.quote, r?.rate);
  } else if (json && typeof json === 'object') {
    for (const [pair, rate] of Object.entries(json)) {
      const parts = pair.split('/');
      if (parts.length === 2) push(parts[0], parts[1], rate);
    }
  }
  return out;
}

/**
 * Fetches the operator-configured provider URL (10 s limit, as every rate source) and returns its
 * rates; a status other than 200 or a body that is not JSON throws.
 */
export async function fetchProviderRates(url: string): Promise<ProviderRate[]> {
  return parseProviderAnswer(await getJson('rates provider', url));
}
