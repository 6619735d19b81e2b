import { Type } from '@sinclair/typebox';
import { bearerToken } from '../../http/bearer.js';
import type { App } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { safeEqual } from '../../lib/secrets.js';
import type { Metrics } from '../metrics/index.js';

const Health = Type.Object({ status: Type.String(), database: Type.Optional(Type.String()) });

/** `GET /healthz` (process alive), `GET /readyz` (database reachable, else 503), `GET /metrics`. */
export function healthRoutes(
  app: App,
  deps: {
    /** Resolves when the database answers; rejects otherwise. */
    ping: () => Promise<void>;
    databaseKind: string;
    metrics: Metrics;
    metricsToken: string | undefined;
  },
) {
  app.get(
    '/metrics',
    { schema: { tags: ['ops'], summary: 'Prometheus metrics', produces: ['text/plain'] } },
    async (request, reply) => {
      if (deps.metricsToken) {
        const given = bearerToken(request);
        if (!safeEqual(given, deps.metricsToken)) throw new AppError('UNAUTHORIZED');
      }
      return reply
        .header('content-type', deps.metrics.registry.contentType)
        .send(await deps.metrics.registry.metrics());
    },
  );
  app.get('/healthz', { schema: { tags: ['ops'], response: { 200: Health } } }, async () => ({
    status: 'ok',
  }));
  app.get(
    '/readyz',
    { schema: { tags: ['ops'], response: { 200: Health, 503: Health } } },
    async (_request, reply) => {
      try {
        await deps.ping();
        return { status: 'ready', database: deps.databaseKind };
      } catch {
        return reply.status(503).send({ status: 'unavailable', database: deps.databaseKind });
      }
    },
  );
}
