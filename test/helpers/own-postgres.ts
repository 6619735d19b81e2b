import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * A PostgreSQL server of the test's own: its own data directory (a temporary folder) and port, started
 * and stopped only by the test that made it. Tests that take a database away (stop, restart) use this,
 * never the machine's shared server, which other applications may be using.
 */
export interface OwnPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  url: string;
  start(): Promise<void>;
  /** Fast shutdown: open connections are cut, as a crash or failover would. */
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** Stops the server if it runs and deletes its data directory. */
  destroy(): Promise<void>;
}

/** The folder of `initdb` and `pg_ctl`: `pg_config --bindir`, else the newest `/usr/lib/postgresql/<v>/bin`. */
function findBinaries(): string | undefined {
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
    if (existsSync(join(dir, 'initdb'))) return dir;
  } catch {
    // not on PATH: look in Debian's place below
  }
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

/** A free TCP port on 127.0.0.1 (the kernel's choice). */
async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Why an own server cannot be made here, or undefined when it can: the binaries must be installed,
 * and as root a `postgres` account must exist (initdb refuses to run as root).
 */
export function ownPostgresUnavailable(): string | undefined {
  if (!findBinaries()) return 'PostgreSQL server binaries (initdb, pg_ctl) are not installed';
  if (process.getuid?.() === 0) {
    try {
      execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    } catch {
      return 'running as root without a postgres account to run initdb as';
    }
  }
  return undefined;
}

/**
 * Creates (initdb) and starts a private PostgreSQL server on a free port, trust authentication on
 * loopback only. Throws when `ownPostgresUnavailable()` names a reason.
 */
export async function startOwnPostgres(): Promise<OwnPostgres> {
  const why = ownPostgresUnavailable();
  const bin = findBinaries();
  if (why || !bin) throw new Error(why ?? 'no PostgreSQL binaries');
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'own-pg-'));
  const data = join(dir, 'data');
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const run = (tool: string, args: string[]) =>
    promisify(execFile)(
      asRoot ? 'runuser' : join(bin, tool),
      asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args,
      { timeout: 60_000 },
    );
  const port = await freePort();
  await run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const options = `-c port=${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c fsync=off`;
  const ctl = (action: string, extra: string[] = []) =>
    run('pg_ctl', [action, '-D', data, '-w', '-t', '30', '-l', join(dir, 'log'), ...extra]);
  let running = false;
  const own: OwnPostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async start() {
      await ctl('start', ['-o', options]);
      running = true;
    },
    async stop() {
      await ctl('stop', ['-m', 'fast']);
      running = false;
    },
    async restart() {
      await ctl('restart', ['-m', 'fast', '-o', options]);
      running = true;
    },
    async destroy() {
      if (running) await own.stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await own.start();
  return own;
}
