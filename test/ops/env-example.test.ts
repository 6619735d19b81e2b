import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EnvSchema } from '../../src/config.js';
import { envExample, readmeWithTable } from '../../src/config-example.js';

const root = new URL('../../', import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

// README "Configuration": every setting is described once, in the schema; the rest is generated.
describe('settings: one schema describes each variable, everything else follows it', () => {
  it('every variable of the schema has a description', () => {
    for (const [name, schema] of Object.entries(EnvSchema.properties)) {
      const description = (schema as { description?: string }).description;
      assert.ok(description && description.length > 5, `${name} has no description`);
    }
  });

  it('the committed .env.example is what `npm run env:example` writes', () => {
    const file = readFileSync(join(root, '.env.example'), 'utf8');
    assert.equal(file, envExample(), 'run npm run env:example and commit .env.example');
    for (const name of Object.keys(EnvSchema.properties)) assert.match(file, new RegExp(`^# ${name}=`, 'm'));
  });

  it("the README's configuration table is what `npm run env:example` writes", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    assert.equal(readme, readmeWithTable(readme), 'run npm run env:example and commit README.md');
    for (const name of Object.keys(EnvSchema.properties).filter((n) => !n.startsWith('CHAIN_')))
      assert.ok(readme.includes(`| \`${name}\` |`), `${name} is missing from the README table`);
  });

  it('the service and its CLI read the environment only through the schema', () => {
    // A line that is a string (a code sample shown to merchants) is text, not a read.
    const reads = (file: string) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => /process\.env\.[A-Z_]/.test(line) && !/^\s*[`'"]/.test(line))
        .map((line) => `${file.slice(root.length)}: ${line.trim()}`);
    const outside = sourceFiles(join(root, 'src'))
      .filter((f) => !/src\/config[^/]*\.ts$/.test(f))
      .flatMap(reads);
    assert.deepEqual(outside, [], 'read these through loadConfig or parseEnv (src/config.ts)');
  });
});
