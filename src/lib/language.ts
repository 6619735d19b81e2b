import Negotiator from 'negotiator';

/**
 * The languages of every page of the service (the form, the portal, the console, the home page):
 * one type, one rule for choosing, catalogues per surface (docs/architecture.md "Pages and
 * languages").
 */
export const LANGS = ['ru', 'en'] as const;
export type Lang = (typeof LANGS)[number];

export function isLang(value: unknown): value is Lang {
  return value === 'ru' || value === 'en';
}

/**
 * The page language: `query` (the person's choice now), then `cookie` (their remembered choice),
 * then the best of ru/en in `acceptLanguage` by its weights and region subtags (`en-GB;q=0.8`,
 * read by the `negotiator` library), else `fallback`: Russian for the pages payers, merchants and
 * holders read; the console passes English (docs/decisions.md section 32).
 */
export function chooseLang(query: unknown, cookie: unknown, acceptLanguage: unknown, fallback: Lang): Lang {
  if (isLang(query)) return query;
  if (isLang(cookie)) return cookie;
  if (typeof acceptLanguage !== 'string' || acceptLanguage === '') return fallback;
  const best = new Negotiator({ headers: { 'accept-language': acceptLanguage } }).language([...LANGS]);
  return isLang(best) ? best : fallback;
}

/** Fills `{name}` holes of a catalogue string; a hole without a value (or a prototype name) stays. */
export function fill(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(/\{(\w+)\}/g, (hole, key: string) =>
    Object.hasOwn(values, key) ? (values[key] as string) : hole,
  );
}
