import { Type } from '@sinclair/typebox';
import type { Database } from '../../db/database.js';
import type { App } from '../../http/schemas.js';

const Health = Type.Object({ status: Type.String(), database: Type.Optional(Type.String()) });

/** `GET /healthz` (process alive) and `GET /readyz` (database reachable, else 503). */
export function healthRoutes(app: App, deps: { database: Database }) {
  app.get('/healthz', { schema: { tags: ['ops'], response: { 200: Health } } }, async () => ({
    status: 'ok',
  }));
  app.get(
    '/readyz',
    { schema: { tags: ['ops'], response: { 200: Health, 503: Health } } },
    async (_request, reply) => {
      try {
        await deps.database.ping();
        return { status: 'ready', database: deps.database.kind };
      } catch {
        return reply.status(503).send({ status: 'unavailable', database: deps.database.kind });
      }
    },
  );
}
