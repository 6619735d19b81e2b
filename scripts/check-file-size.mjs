#!/usr/bin/env node
// One idea per file: no source file in src/ over 400 lines (docs/architecture.md). Part of `npm run lint`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const LIMIT = 400;
const over = [];
(function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) {
      const lines = readFileSync(path, 'utf8').split('\n').length;
      if (lines > LIMIT) over.push(`${relative(root, path)}: ${lines} lines`);
    }
  }
})(join(root, 'src'));
if (over.length > 0) {
  console.error(`Files over ${LIMIT} lines (split them by idea):\n  ${over.join('\n  ')}`);
  process.exit(1);
}
console.log(`src/: every file within ${LIMIT} lines`);
