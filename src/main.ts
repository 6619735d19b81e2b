import { join } from 'node:path';
import { buildApp, loggerOptions, type Services } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { startJobs } from './jobs.js';
import { DirectoryLockedError } from './lib/directory-lock.js';
import { makePrivateDir } from './lib/private-dir.js';
import { startBanner } from './start-banner.js';

function banner(lines: string[]): void {
  process.stdout.write(`\n${lines.map((l) => `  ${l}`).join('\n')}\n\n`);
}

/**
 * How many merchants, requisites and operators exist: the banner's hints show for none only. Bounded
 * to 2 s, so a slow database never holds back the line that says where the service listens (then:
 * no hints, as if each kind existed).
 */
async function startCounts(services: Services) {
  const counts = Promise.all([
    services.merchants.list(),
    services.requisites.list(),
    services.operators.list(),
  ]).then(([merchants, requisites, operators]) => ({
    merchants: merchants.length,
    requisites: requisites.length,
    operators: operators.length,
  }));
  const unknown = { merchants: 1, requisites: 1, operators: 1 };
  const late = new Promise<typeof unknown>((resolve) => setTimeout(() => resolve(unknown), 2000).unref());
  return Promise.race([counts.catch(() => unknown), late]);
}

/** Starts the service: config, database (migrations), HTTP server, background jobs, signal handling. */
async function main(): Promise<void> {
  const startedAt = Date.now();
  // Everything this process writes (embedded database, receipts, secrets) is its user's alone.
  process.umask(0o077);
  const config = loadConfig();
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.databaseUrl ? undefined : config.dataDir,
    poolSize: config.dbPoolSize,
  });
  // PGlite (emscripten) gives its files mode 0666 whatever the umask: tighten them once it has
  // opened and migrated; DATA_DIR itself is 0700, so nothing in it is reachable by others meanwhile.
  if (database.directory) await makePrivateDir(config.dataDir);
  const { app, services } = await buildApp({ config, database, logger: loggerOptions(config.logLevel) });
  await app.listen({ host: config.host, port: config.port });
  const jobs = config.runJobs ? startJobs(services, config, app.log) : undefined;
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host}:${port}`;
  app.log.info({ url, database: database.kind, readyMs: Date.now() - startedAt }, 'service ready');

  banner(
    startBanner({
      url,
      embeddedDir: database.kind === 'pglite' ? config.dataDir : undefined,
      secretsFile: join(config.dataDir, 'secrets.json'),
      generatedAdminToken: config.generatedSecrets ? config.adminToken : undefined,
      adminTokenFromEnv: config.adminTokenFromEnv,
      counts: await startCounts(services),
    }),
  );

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    try {
      await app.close();
      await jobs?.stop();
      await database.close();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof DirectoryLockedError) {
    process.stderr.write(`Cannot start: ${err.message}\n`);
  } else {
    process.stderr.write(
      `Cannot start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
  }
  process.exit(1);
});
