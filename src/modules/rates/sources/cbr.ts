// The Central Bank of Russia's official daily rates, "Получение данных, используя XML":
//   https://www.cbr.ru/development/SXML/ (example: https://www.cbr.ru/scripts/XML_daily.asp)
//   GET {base}/scripts/XML_daily.asp -> windows-1251 XML:
//   <?xml version="1.0" encoding="windows-1251"?><ValCurs Date="02.03.2002" name="Foreign Currency Market">
//   <Valute ID="R01335"><NumCode>398</NumCode><CharCode>KZT</CharCode><Nominal>100</Nominal>
//   <Name>Казахстанских тенге</Name><Value>17,1234</Value><VunitRate>0,171234</VunitRate></Valute>...
//   `Value` is rubles for `Nominal` units, with a decimal comma (VunitRate, added later, is per one
//   unit; we compute Value / Nominal so that older answers work too). Set once a working day,
//   in force from the next day (`Date`); we poll it at most hourly and it stays fresh
//   RATE_CBR_MAX_AGE (36 h by default: over a weekend the last rate stays in force).
import { money } from '../../../lib/money.js';
import { getBytes, type RateSource, type SourceQuote } from './source-http.js';

/** The request path of the daily rates. */
export const CBR_PATH = '/scripts/XML_daily.asp';

const tag = (block: string, name: string) =>
  new RegExp(`<${name}>\\s*([^<]*?)\\s*</${name}>`).exec(block)?.[1];

/**
 * Reads the XML_daily text (already decoded): one `CODE/RUB` quote per `<Valute>`, rate = Value /
 * Nominal rubles for ONE unit, rounded half up to 12 decimals. A Valute with a bad code, nominal or
 * value is dropped; a text without `<ValCurs` gives nothing.
 */
export function parseCbrDaily(xml: string): SourceQuote[] {
  if (!xml.includes('<ValCurs')) return [];
  const out: SourceQuote[] = [];
  for (const m of xml.matchAll(/<Valute\b[^>]*>([\s\S]*?)<\/Valute>/g)) {
    const block = m[1] ?? '';
    const code = tag(block, 'CharCode');
    const nominal = tag(block, 'Nominal');
    const value = tag(block, 'Value')?.replace(',', '.');
    if (!code || !/^[A-Z]{3}$/.test(code) || code === 'RUB') continue;
    if (!nominal || !/^[1-9]\d{0,6}$/.test(nominal)) continue;
    if (!value || !/^\d{1,12}(\.\d{1,12})?$/.test(value)) continue;
    const rate = money(value).dividedBy(nominal).toDecimalPlaces(12);
    if (rate.gt(0)) out.push({ base: code, quote: 'RUB', rate: rate.toFixed() });
  }
  return out;
}

/** Decodes the answer's bytes as windows-1251 (the encoding the XML declares) and parses it. */
export function parseCbrBytes(bytes: Uint8Array): SourceQuote[] {
  return parseCbrDaily(new TextDecoder('windows-1251').decode(bytes));
}

/** The CBR source at `baseUrl` (RATE_CBR_URL), fresh for `maxAgeSeconds` (RATE_CBR_MAX_AGE). */
export function cbrSource(baseUrl: string, maxAgeSeconds: number, intervalSeconds: number): RateSource {
  return {
    name: 'cbr',
    maxAgeSeconds,
    intervalSeconds,
    fetch: async () => {
      const quotes = parseCbrBytes(await getBytes('cbr', `${baseUrl}${CBR_PATH}`, 'application/xml'));
      if (quotes.length === 0) throw new Error('cbr answered no rates');
      return quotes;
    },
  };
}
