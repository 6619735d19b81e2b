/**
 * `npm run build`: compiles src/ to dist/ (tsconfig.build.json) and copies what the compiled code
 * reads from beside itself (views and assets of the form and the back office). Migrations stay in
 * ./drizzle, which dist/db/database.js finds at the same relative path as src/db/database.ts does.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
rmSync(join(root, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
  cwd: root,
  stdio: 'inherit',
});
const modules = join(root, 'src/modules');
for (const name of readdirSync(modules)) {
  for (const dir of ['views', 'assets']) {
    const from = join(modules, name, dir);
    if (existsSync(from)) cpSync(from, join(root, 'dist/modules', name, dir), { recursive: true });
  }
}
console.log('built dist/ (run: node dist/main.js, node dist/worker.js)');
