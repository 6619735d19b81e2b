/**
 * Fields of our server-rendered forms and of their pages' query strings, one string per name: the
 * last value sent where a name repeats (as a checkbox after its hidden "off" is sent). Code that reads
 * a field then always holds a string, so a repeated field in a crafted request can never reach a
 * string method as a list (a 500). Checkbox groups use one name per box (`pt_<type>=on`).
 */
export type FormFields = Record<string, string | undefined>;

/**
 * One string per name of a parsed query or body (`{a: ['1', '2']}` -> `{a: '2'}`); other values are
 * turned into strings, undefined ones left out. Built with `Object.fromEntries`, so a `__proto__` name
 * is an own field, never the prototype.
 */
export function lastValues(fields: unknown): FormFields {
  if (fields === null || typeof fields !== 'object') return {};
  return Object.fromEntries(
    Object.entries(fields)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, String(Array.isArray(v) ? v.at(-1) : v)]),
  );
}

/** The `application/x-www-form-urlencoded` body parser of those forms (@fastify/formbody's `parser`). */
export function parseFormBody(body: string): FormFields {
  return Object.fromEntries(new URLSearchParams(body));
}
