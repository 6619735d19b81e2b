/** The argon2 binding (a native module), loaded at the first password, not at start. */
const argon2 = () => import('@node-rs/argon2');

/** A hash to verify against when the account does not exist, so timing does not tell which exist. */
const DUMMY_HASH =
  '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$n5xj56n7FIvm4l/52lPcjWGyQ2iVXmEgktjNdfOu2kI';

/** An argon2id hash of a password (the library's defaults: m=19 MiB, t=2, p=1). */
export function hashPassword(password: string): Promise<string> {
  return argon2().then((a) => a.hash(password));
}

/**
 * Checks `password` against `stored`, spending one argon2 verification even when there is no
 * account (`stored` undefined), so a login's timing does not tell whether the name exists. A
 * malformed stored hash is a mismatch, never a throw.
 */
export async function verifyPassword(stored: string | undefined, password: string): Promise<boolean> {
  const { verify } = await argon2();
  const ok = await verify(stored ?? DUMMY_HASH, password).catch(() => false);
  return ok && stored !== undefined;
}
