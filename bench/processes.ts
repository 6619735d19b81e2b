/**
 * What the bench's tools share about processes: a free loopback port, a process's CPU time from
 * /proc, and starting a server and waiting until it answers.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Clock ticks of /proc/<pid>/stat in milliseconds (USER_HZ 100). */
export const TICK_MS = 10;

/** A TCP port free on 127.0.0.1 at the time of the call. */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

/** CPU milliseconds (user + system, or system only) of the process `pid`; 0 once it is gone. */
export function cpuOf(pid: number, systemOnly = false): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((systemOnly ? 0 : Number(f[11])) + Number(f[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/**
 * Starts `node <args>` in `cwd` on a free port (env PORT) and waits, up to 30 s, until `readyPath`
 * answers below 500. Answers the server's base URL and its process.
 */
export async function startServer(
  cwd: string,
  args: string[],
  env: Record<string, string>,
  readyPath: string,
): Promise<{ base: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: '/tmp', PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    try {
      const r = await fetch(`${base}${readyPath}`);
      if (r.status < 500) break;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { base, child };
}
