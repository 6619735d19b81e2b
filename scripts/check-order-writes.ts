/**
 * One writer of the orders table (docs/architecture.md "What orders offers"): outside
 * src/modules/orders the table is reachable only as the orders index's `ordersForReading` (the
 * dependency rules forbid importing src/db/tables/orders.ts), and that export may only be read:
 * `.from(…)`, a join, a column (`ordersForReading.id`) or `${ordersForReading}` in a SQL template
 * that does not write it. This check lists every file:line of src/ outside the orders module that
 * inserts, updates or deletes through it, or hands it on (a variable, an argument, a re-export)
 * where it could be written unseen, and exits 1 if any does. Run by `npm run lint`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The orders index's read-only export of its table. */
export const READ_ONLY_EXPORT = 'ordersForReading';

const IMPORT = /import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*['"]([^'"]*)['"]\s*;?/g;

/** What a use may look like: a column or property, `.from(`, a join, `${…}` in a SQL template. */
const READ_BEFORE = /(?:\.from\(|[jJ]oin\(|\$\{)\s*$/;
const READ_AFTER = /^\s*\./;

const blank = (text: string) => text.replace(/[^\n]/g, ' ');

/** One finding: the 1-based line and what is wrong there. */
export interface OrderWrite {
  line: number;
  problem: string;
}

/**
 * The places in `source` (a file outside the orders module) that write the orders table through the
 * read-only export, under its name or an import alias, or hand it on. Import statements are skipped.
 */
export function orderWritesIn(source: string): OrderWrite[] {
  const names = new Set([READ_ONLY_EXPORT]);
  // Import statements, comments and quoted strings are blanked (same length, so lines stay), after
  // the imports' aliases are read: a word in a comment is no use of the table.
  const code = source
    .replace(IMPORT, (statement, specifiers: string, from: string) => {
      if (/modules\/orders\/index\.js$/.test(from))
        for (const spec of specifiers.split(',')) {
          const [name, alias] = spec.trim().split(/\s+as\s+/);
          if (name === READ_ONLY_EXPORT && alias) names.add(alias.trim());
        }
      return blank(statement);
    })
    .replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|'[^'\n]*'|"[^"\n]*"/g, blank);
  const name = `(?:${[...names].map((n) => n.replace(/\$/g, '\\$')).join('|')})`;
  const lineOf = (index: number) => code.slice(0, index).split('\n').length;
  const found: OrderWrite[] = [];
  const checks: Array<[RegExp, string]> = [
    [new RegExp(`\\.(?:insert|update|delete)\\(\\s*${name}(?![\\w$])`, 'g'), 'writes the orders table'],
    [
      new RegExp(`\\b(?:insert\\s+into|update|delete\\s+from)\\s+\\$\\{\\s*${name}\\s*\\}`, 'gi'),
      'writes the orders table in SQL',
    ],
  ];
  for (const [pattern, problem] of checks)
    for (const m of code.matchAll(pattern)) found.push({ line: lineOf(m.index), problem });
  for (const m of code.matchAll(new RegExp(`(?<![\\w$.])${name}(?![\\w$])`, 'g'))) {
    const before = code.slice(Math.max(0, m.index - 20), m.index);
    const after = code.slice(m.index + m[0].length);
    const line = lineOf(m.index);
    if (READ_BEFORE.test(before) || READ_AFTER.test(after) || found.some((f) => f.line === line)) continue;
    found.push({ line, problem: `hands on ${m[0]} (only reads of it are allowed outside orders)` });
  }
  return found.sort((a, b) => a.line - b.line);
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

function main(): void {
  const found: string[] = [];
  for (const path of tsFiles('src')) {
    if (path.startsWith(join('src', 'modules', 'orders'))) continue;
    const source = readFileSync(path, 'utf8');
    if (!source.includes(READ_ONLY_EXPORT)) continue;
    for (const f of orderWritesIn(source)) found.push(`${path}:${f.line}: ${f.problem}`);
  }
  if (found.length > 0) {
    console.error(`Only src/modules/orders writes the orders table (${found.length}):\n${found.join('\n')}`);
    process.exit(1);
  }
  console.log('the orders table is written only by src/modules/orders');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
