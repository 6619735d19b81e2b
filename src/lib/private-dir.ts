import { chmod, mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Makes `dir` private to the service's user (docs/decisions.md section 21): creates it with mode 0700 and
 * tightens what an older start left readable by others: directories to 0700, files to 0600, all
 * the way down. The process's umask (077, set at start) keeps new files private.
 */
export async function makePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const walk = async (path: string): Promise<void> => {
    const info = await stat(path);
    if (info.isDirectory()) {
      if ((info.mode & 0o077) !== 0) await chmod(path, 0o700);
      for (const name of await readdir(path)) await walk(join(path, name));
    } else if ((info.mode & 0o077) !== 0) {
      await chmod(path, 0o600);
    }
  };
  await walk(dir);
}
