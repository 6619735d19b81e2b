/**
 * dist/main.js as one bundle (docs/decisions.md "A start that compiles nothing"): the service's own
 * modules with the pure ES module packages below; loading some 900 modules one by one was most of a
 * start. Every other package stays external (loaded from node_modules as before: native and wasm
 * modules, CommonJS packages, packages that read files beside themselves), and so does whatever the
 * code imports dynamically. Each bundled source file keeps its own `import.meta.url` (its path under
 * dist/), so views, assets, migrations and package.json are found exactly where the unbundled files
 * find them. Used by scripts/build.mjs (after tsc) and by test/ops/start-bundle.test.ts (in memory).
 */
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;

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

/**
 * Bundles src/main.ts to dist/main.js (`write: false`: in memory only). Answers esbuild's metafile:
 * `outputs['dist/main.js'].imports` lists what the bundle imports from outside, statically
 * (`import-statement`) or when the code gets there (`dynamic-import`). Throws on a build error.
 */
export async function bundleMain({ write }) {
  const result = await build({
    entryPoints: [join(root, 'src/main.ts')],
    outfile: join(root, 'dist/main.js'),
    allowOverwrite: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    plugins: [layout],
    logLevel: 'warning',
    metafile: true,
    write,
  });
  return result.metafile;
}
