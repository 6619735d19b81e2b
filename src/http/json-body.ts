import type { FastifyInstance } from 'fastify';

/**
 * Parses JSON bodies as bytes so the signature can be checked over exactly what was sent.
 * A body that is not JSON, or not an object, is flagged rather than thrown here, so that an
 * unauthenticated caller learns nothing before authentication runs (it becomes INVALID_JSON after).
 */
/** Deeper bodies are refused before parsing: re-serialising them for the signature would overflow the stack. */
export const MAX_JSON_DEPTH = 64;

/** The deepest nesting of objects and arrays in JSON text (strings skipped), stopping past `limit`. */
export function jsonDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      depth++;
      if (depth > max) max = depth;
      if (max > limit) return max;
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

export function registerJsonBody(app: FastifyInstance): void {
  // Only JSON (and, where a route adds it, multipart) is taken: text/plain and the rest are 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    // Parameters (`; charset=utf-8`) are allowed after the media type.
    /^application\/([\w.-]+\+)?json\s*(;.*)?$/i,
    { parseAs: 'buffer' },
    (request, body: Buffer, done) => {
      request.rawBody = body;
      try {
        const text = body.toString('utf8');
        if (jsonDepth(text) > MAX_JSON_DEPTH) {
          request.bodyParseError = true;
          done(null, {});
          return;
        }
        const parsed: unknown = body.length === 0 ? undefined : JSON.parse(text);
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
          request.bodyParseError = true;
          done(null, {});
          return;
        }
        done(null, parsed);
      } catch {
        request.bodyParseError = true;
        done(null, {});
      }
    },
  );
}
