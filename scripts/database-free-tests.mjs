// Which test files cannot reach a database: CI runs those in one of its two passes only (they would
// check the same thing on either database). A file counts as database-free only when nothing it
// imports, followed through every relative import, is our database layer (src/db/), a database
// driver or Drizzle, starts a process or a thread (a child could open a database), or names a
// database variable. Anything unsure counts as using the database, so it runs in both passes.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Module specifiers and repository paths that mean "may open a database". */
const DATABASE_MODULE =
  /(^|\/)src\/db\/|^pg$|^@electric-sql\/pglite|^drizzle-orm|^(node:)?child_process$|^(node:)?worker_threads$|^(node:)?cluster$/;
/** Text that means the file reads or sets the database settings. */
const DATABASE_TEXT = /DATABASE_URL|PGLITE/;
/** Value imports and re-exports (`import type` is erased and cannot open anything), dynamic imports. */
const IMPORT =
  /^\s*(?:import|export)(?!\s+type\b)[^'";]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

/** The file a relative specifier names (TypeScript's `.js` for `.ts`), or undefined. */
function resolveRelative(from, specifier) {
  const base = resolve(dirname(from), specifier);
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.mjs$/, '.mts'),
    `${base}.ts`,
    join(base, 'index.ts'),
  ];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

/**
 * Returns the test files (paths relative to `root`) that cannot reach a database, by the rules at the
 * top of this file.
 * @param {string} root repository root (absolute)
 * @param {string[]} files test files, relative to root
 * @returns {Set<string>}
 */
export function databaseFreeTests(root, files) {
  const texts = new Map(); // absolute path -> source text
  const read = (file) => {
    if (!texts.has(file)) texts.set(file, readFileSync(file, 'utf8'));
    return texts.get(file);
  };
  // Breadth-first over the file's whole relative import closure; the first database use decides.
  const reachesDatabase = (start) => {
    const seen = new Set([start]);
    const queue = [start];
    while (queue.length > 0) {
      const file = queue.shift();
      const text = read(file);
      if (DATABASE_TEXT.test(text)) return true;
      for (const m of text.matchAll(IMPORT)) {
        const specifier = m[1] ?? m[2] ?? m[3];
        if (!specifier.startsWith('.')) {
          if (DATABASE_MODULE.test(specifier)) return true;
          continue;
        }
        const target = resolveRelative(file, specifier);
        if (!target || seen.has(target)) continue;
        if (DATABASE_MODULE.test(relative(root, target))) return true;
        seen.add(target);
        queue.push(target);
      }
    }
    return false;
  };
  return new Set(files.filter((f) => !reachesDatabase(join(root, f))));
}
