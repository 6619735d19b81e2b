import type { FastifyInstance } from 'fastify';

/**
 * Parses JSON bodies as bytes so the signature can be checked over exactly what was sent.
 * A body that is not JSON, or not an object, is flagged rather than thrown here, so that an
 * unauthenticated caller learns nothing before authentication runs (it becomes INVALID_JSON after).
 */
export function registerJsonBody(app: FastifyInstance): void {
  // Only JSON (and, where a route adds it, multipart) is taken: text/plain and the rest are 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    /^application\/(.+\+)?json$/,
    { parseAs: 'buffer' },
    (request, body: Buffer, done) => {
      request.rawBody = body;
      try {
        const parsed: unknown = body.length === 0 ? undefined : JSON.parse(body.toString('utf8'));
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
