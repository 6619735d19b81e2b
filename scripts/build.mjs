/**
 * `npm run build`: compiles src/ to dist/ (tsconfig.build.json) and copies what the compiled code
 * reads from beside itself (views and assets of the pages). Migrations stay in
 * ./drizzle, which dist/db/database.js finds at the same relative path as src/db/database.ts does.
 * Then dist/main.js, the API process, is replaced by one bundle (scripts/bundle-main.mjs).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bundleMain } from './bundle-main.mjs';

const root = new URL('..', import.meta.url).pathname;
rmSync(join(root, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
  cwd: root,
  stdio: 'inherit',
});
// Every kind of module (docs/architecture.md "Kinds of module") may have pages.
for (const kind of ['platform', 'modules', 'rails', 'surfaces']) {
  const folder = join(root, 'src', kind);
  if (!existsSync(folder)) continue;
  for (const name of readdirSync(folder)) {
    for (const dir of ['views', 'assets']) {
      const from = join(folder, name, dir);
      if (existsSync(from)) cpSync(from, join(root, 'dist', kind, name, dir), { recursive: true });
    }
  }
}
await bundleMain({ write: true });
console.log('built dist/ (run: node dist/main.js, node dist/worker.js)');
