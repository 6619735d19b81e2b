/**
 * The page language of a surface with Russian and English (the form, the console): `query` (the
 * person's choice now), then `cookie` (their remembered choice), then the first of `en`/`ru` in
 * `acceptLanguage`, else `fallback`.
 */
export function chooseLang<L extends 'en' | 'ru'>(
  query: unknown,
  cookie: unknown,
  acceptLanguage: unknown,
  fallback: L,
): 'en' | 'ru' {
  if (query === 'en' || query === 'ru') return query;
  if (cookie === 'en' || cookie === 'ru') return cookie;
  for (const part of String(acceptLanguage ?? '').split(',')) {
    const tag = part.trim().slice(0, 2).toLowerCase();
    if (tag === 'en' || tag === 'ru') return tag;
  }
  return fallback;
}

/** Fills `{name}` holes of a catalogue string; a hole without a value (or a prototype name) stays. */
export function fill(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(/\{(\w+)\}/g, (hole, key: string) =>
    Object.hasOwn(values, key) ? (values[key] as string) : hole,
  );
}
