import type { FastifyServerOptions } from 'fastify';
import { createServices, type Services } from './composition.js';
import type { Config } from './config.js';
import { CACHE_CHANNEL, type Database } from './db/database.js';
import type { App } from './http/schemas.js';
import { createHttpServer } from './http/server.js';
import { type Clock, systemClock } from './lib/clock.js';
import type { OutboundGuard } from './platform/outbound/index.js';
import type { SourceFactory } from './rails/chains/index.js';
import { openReceiptStorage, type ReceiptStorage } from './rails/receipts/index.js';
import { EVENT_TYPES, EventBodySchema, WebhookBodySchema } from './rails/webhooks/index.js';
import { registerRoutes } from './routes.js';

export type { Services } from './composition.js';
export { loggerOptions } from './http/logger.js';

export interface AppDeps {
  config: Config;
  database: Database;
  clock?: Clock;
  /** Replaces the receipt store (default: as the configuration says). */
  receiptStorage?: ReceiptStorage;
  /** Replaces the outbound guard (tests: a resolver that never asks real DNS). */
  guard?: OutboundGuard;
  /** Fastify logger options; false silences (tests). */
  logger?: FastifyServerOptions['logger'];
  /** Replaces how chain watchers build their sources (tests: a shorter provider timeout). */
  chainSources?: SourceFactory;
}

/**
 * Builds the HTTP application over the given database: the server (http/server.ts), the services
 * (composition.ts), every route (routes.ts), and the listener that drops cached keys when another
 * process changes them. Does not listen.
 */
export async function buildApp(deps: AppDeps): Promise<{ app: App; services: Services }> {
  const { config, database } = deps;
  const app = await createHttpServer(config, deps.logger ?? false, {
    webhookBody: WebhookBodySchema,
    events: { body: EventBodySchema, types: EVENT_TYPES },
  });
  const services = createServices({
    config,
    database,
    clock: deps.clock ?? systemClock,
    receiptStorage: deps.receiptStorage ?? (await openReceiptStorage(config)),
    log: app.log,
    ...(deps.guard ? { guard: deps.guard } : {}),
    ...(deps.chainSources ? { chainSources: deps.chainSources } : {}),
  });
  // Another process's admin change (key rotation, settings) reaches this one's caches at once.
  const stopListening = await database.listen(CACHE_CHANNEL, () => {
    services.merchants.invalidateCache();
    services.operators.invalidateCache();
  });
  app.addHook('onClose', async () => {
    await stopListening();
    await services.guard.close();
    await services.redis?.quit().catch(() => undefined);
  });
  app.addHook('onResponse', async (request, reply) => {
    services.metrics.observeRequest(
      request.routeOptions.url ?? 'unmatched',
      request.method,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });
  await registerRoutes(app, services, config);
  return { app, services };
}
