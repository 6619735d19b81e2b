/**
 * Text PostgreSQL can store (docs/decisions.md "Text that cannot be stored"): its `text` holds no
 * U+0000, and UTF-8 has no form for a lone UTF-16 surrogate, which the drivers either refuse
 * (PGlite) or silently replace with U+FFFD (pg). Either way what a caller sent could not be kept
 * as sent, so requests carrying such text are refused before any statement.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** True when `text` holds neither U+0000 nor a lone surrogate. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}

/** Deepest nesting walked: request bodies are refused past 64 levels before they get here. */
const MAX_DEPTH = 80;

/** What the walk reads of a JSON schema: an object's declared fields, an array's items. */
export interface TextSchema {
  properties?: Record<string, TextSchema>;
  additionalProperties?: boolean | TextSchema;
  items?: TextSchema;
}

/**
 * The JSON pointer (`/a/0/b`, `''` for the value itself) of the first string in `value` that is
 * not storable text (isStorableText), or undefined when there is none. `value`: parsed JSON or a
 * parsed form or query (objects, arrays, strings, numbers, booleans, null). Where `schema`
 * declares an object's fields, only those are walked (and extra fields only when it gives them a
 * schema): a field the service ignores is never stored. Elsewhere every string is walked, the
 * keys of objects included, since such a value may be stored whole.
 */
export function unstorableTextAt(value: unknown, schema?: TextSchema, depth = 0): string | undefined {
  if (typeof value === 'string') return isStorableText(value) ? undefined : '';
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const below = unstorableTextAt(value[i], schema?.items, depth + 1);
      if (below !== undefined) return `/${i}${below}`;
    }
    return undefined;
  }
  const declared = schema?.properties;
  const extra = schema?.additionalProperties;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    let field: TextSchema | undefined;
    if (declared) {
      field = Object.hasOwn(declared, key) ? declared[key] : typeof extra === 'object' ? extra : undefined;
      if (!field) continue;
    } else if (!isStorableText(key)) return `/${escapeKey(key)}`;
    const below = unstorableTextAt((value as Record<string, unknown>)[key], field, depth + 1);
    if (below !== undefined) return `/${escapeKey(key)}${below}`;
  }
  return undefined;
}

/** A key as a JSON pointer segment (RFC 6901), its unstorable characters shown as escapes. */
function escapeKey(key: string): string {
  return key
    .replaceAll('~', '~0')
    .replaceAll('/', '~1')
    .replaceAll('\u0000', '\\u0000')
    .replace(LONE_SURROGATES, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
