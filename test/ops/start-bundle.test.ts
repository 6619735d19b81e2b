import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
// @ts-expect-error: a build script (plain JavaScript, no declarations)
import { bundleMain } from '../../scripts/bundle-main.mjs';

interface Metafile {
  outputs: Record<string, { imports: Array<{ path: string; kind: string; external?: boolean }> }>;
}

/** Packages a start must not load (docs/decisions.md "A start that compiles nothing"). */
const LOADED_WHEN_USED = [
  '@electric-sql/pglite',
  'drizzle-orm/pglite',
  'ioredis',
  'undici',
  '@ton/core',
  'qrcode',
  'file-type',
  '@node-rs/argon2',
  '@aws-sdk/client-s3',
  'ajv',
  'ajv-formats',
  '@fastify/fast-json-stringify-compiler',
  'rate-limiter-flexible',
];

// docs/decisions.md "A start that compiles nothing".
describe('dist/main.js, the bundle npm run build makes (built here in memory)', () => {
  it('imports at load none of the packages loaded when used; PGlite only dynamically', async () => {
    const meta = (await bundleMain({ write: false })) as Metafile;
    const output = Object.entries(meta.outputs).find(([name]) => name.endsWith('dist/main.js'))?.[1];
    assert.ok(output, Object.keys(meta.outputs).join(', '));
    const atLoad = output.imports.filter((i) => i.kind === 'import-statement').map((i) => i.path);
    for (const name of LOADED_WHEN_USED) {
      const found = atLoad.filter((p) => p === name || p.startsWith(`${name}/`));
      assert.deepEqual(found, [], `${name} is imported when the bundle loads`);
    }
    const dynamic = output.imports.filter((i) => i.kind === 'dynamic-import').map((i) => i.path);
    assert.ok(dynamic.includes('@electric-sql/pglite'), dynamic.join(', '));
    // The bundled packages are inside, not imported.
    assert.ok(
      !atLoad.some((p) => p.startsWith('@sinclair/typebox') || p === 'drizzle-orm'),
      atLoad.join(', '),
    );
  });
});
