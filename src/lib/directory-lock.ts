import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Thrown when another live process holds the data directory. */
export class DirectoryLockedError extends Error {
  override name = 'DirectoryLockedError';
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes `<dir>/service.lock` (holding our pid) so that two processes never open the same embedded
 * database: PGlite does not lock its directory and two writers would corrupt it. A lock left by a
 * dead process (crash, SIGKILL) is taken over. Returns the release function.
 * Throws DirectoryLockedError when a live process holds it.
 */
export function acquireDirectoryLock(dir: string): () => void {
  const file = join(dir, 'service.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off('exit', release);
        try {
          if (readFileSync(file, 'utf8').trim() === String(process.pid)) unlinkSync(file);
        } catch {
          // Already gone: nothing to release.
        }
      };
      process.on('exit', release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
      if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
        throw new DirectoryLockedError(
          `The data directory ${dir} is in use by process ${holder}. Stop it first, or set DATA_DIR to another directory.`,
        );
      }
      unlinkSync(file);
    }
  }
  throw new DirectoryLockedError(`Could not lock the data directory ${dir}`);
}
