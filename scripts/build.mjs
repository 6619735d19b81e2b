/**
 * `npm run build`: compiles src/ to dist/ (tsconfig.build.json) and copies what the compiled code
 * reads from beside itself (views and assets of the pages). Migrations stay in
 * ./drizzle, which dist/db/database.js finds at the same relative path as src/db/database.ts does.
 * Then dist/main.js, the API process, is replaced by one bundle of the service's own modules with
 * TypeBox and drizzle-orm (docs/decisions.md "A start that compiles nothing"): loading some 730
 * modules one by one was most of a start. Every other package stays external (loaded from
 * node_modules as before: native and wasm modules, packages that read files beside themselves). Each
 * bundled source file keeps its own `import.meta.url` (its path under dist/), so views, assets,
 * migrations and package.json are found exactly where the unbundled files find them.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { build } from 'esbuild';

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
/** Packages bundled into dist/main.js: ES modules of plain code, many files each, no files of their own read. */
const BUNDLED = new Set([
  '@sinclair/typebox',
  'drizzle-orm',
  'uuid',
  '@noble/curves',
  '@noble/hashes',
  '@scure/base',
  '@scure/bip32',
  'csv-stringify',
  'ox',
  'otpauth',
  'decimal.js',
]);
const packageOf = (spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');
const layout = {
  name: 'dist-layout',
  setup(b) {
    // What the code imports dynamically (import()) stays a module of its own, loaded at that
    // point as before: bundled, its static imports would be loaded with the bundle.
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      BUNDLED.has(packageOf(args.path)) && args.kind !== 'dynamic-import' ? undefined : { external: true },
    );
    b.onLoad({ filter: /\/src\/.*\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      const compiled = `./${relative(join(root, 'src'), args.path).replace(/\.ts$/, '.js')}`;
      return {
        contents: text.replaceAll(
          'import.meta.url',
          `new URL(${JSON.stringify(compiled)}, import.meta.url).href`,
        ),
        loader: 'ts',
      };
    });
  },
};
await build({
  entryPoints: [join(root, 'src/main.ts')],
  outfile: join(root, 'dist/main.js'),
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  plugins: [layout],
  logLevel: 'warning',
});
console.log('built dist/ (run: node dist/main.js, node dist/worker.js)');
