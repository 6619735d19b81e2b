import type { RateSourceName } from '../../../config.js';
import { cbrSource } from './cbr.js';
import { coinGeckoSource } from './coingecko.js';
import { rapiraSource } from './rapira.js';
import type { RateSource } from './source-http.js';

export type { RateSource, SourceQuote } from './source-http.js';

/** The CBR is read at most hourly: it sets its rates once a working day. */
const CBR_INTERVAL_SECONDS = 3600;

/**
 * The adapters RATE_SOURCES names, at their configured base URLs: markets fresh for RATE_MAX_AGE
 * and polled every RATE_SOURCES_INTERVAL; the CBR fresh for RATE_CBR_MAX_AGE, polled hourly.
 */
export function buildRateSources(cfg: {
  names: readonly RateSourceName[];
  urls: Readonly<Record<RateSourceName, string>>;
  marketMaxAgeSeconds: number;
  cbrMaxAgeSeconds: number;
  intervalSeconds: number;
}): RateSource[] {
  const build: Record<RateSourceName, () => RateSource> = {
    coingecko: () => coinGeckoSource(cfg.urls.coingecko, cfg.marketMaxAgeSeconds, cfg.intervalSeconds),
    rapira: () => rapiraSource(cfg.urls.rapira, cfg.marketMaxAgeSeconds, cfg.intervalSeconds),
    cbr: () =>
      cbrSource(cfg.urls.cbr, cfg.cbrMaxAgeSeconds, Math.max(cfg.intervalSeconds, CBR_INTERVAL_SECONDS)),
  };
  return cfg.names.map((name) => build[name]());
}
