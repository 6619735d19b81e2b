import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every path under `dir` (itself included) whose mode lets group or others in, with the mode. */
async function notPrivate(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (path: string) => {
    const info = await stat(path);
    if ((info.mode & 0o077) !== 0) out.push(`${path} ${(info.mode & 0o777).toString(8)}`);
    if (info.isDirectory()) for (const name of await readdir(path)) await walk(join(path, name));
  };
  await walk(dir);
  return out;
}

// docs/decisions.md section 21: the embedded database, receipts and secrets are the service user's alone.
describe('the data directory is private to the service (docs/decisions.md section 21)', () => {
  let child: ChildProcess | undefined;
  let dir: string | undefined;
  after(async () => {
    child?.kill('SIGKILL');
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('npm start on the embedded database: 0700 directories, 0600 files, older files tightened', async () => {
    dir = await mkdtemp(join(tmpdir(), 'datadir-'));
    const dataDir = join(dir, 'data');
    // What an older start left: world-readable.
    await mkdir(join(dataDir, 'receipts'), { recursive: true, mode: 0o777 });
    await chmod(dataDir, 0o755);
    await writeFile(join(dataDir, 'receipts', 'old-receipt'), 'x', { mode: 0o666 });
    await chmod(join(dataDir, 'receipts', 'old-receipt'), 0o666);
    const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      // The umask of a careless shell: without the service's own, files would be 0666.
      env: { PATH: process.env.PATH ?? '', HOME: dir, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not ready: ${output}`)), 60_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('listening on')) {
          clearTimeout(timer);
          resolve();
        }
      };
      proc.stdout?.on('data', onData);
      proc.stderr?.on('data', onData);
      proc.on('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
    });
    const names = await readdir(dataDir);
    for (const expected of ['pgdata', 'secrets.json', 'receipts'])
      assert.ok(names.includes(expected), names.join());
    assert.deepEqual(await notPrivate(dataDir), []);
    proc.kill('SIGTERM');
    await new Promise((resolve) => proc.once('exit', resolve));
    child = undefined;
  });
});
