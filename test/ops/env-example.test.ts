import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { EnvSchema } from '../../src/config.js';
import { ENV_DESCRIPTIONS, envExample } from '../../src/config-example.js';

// Issue 18 item 9: .env.example is generated from the configuration schema and kept current.
describe('.env.example follows the configuration schema', () => {
  it('every variable of the schema is described', () => {
    for (const name of Object.keys(EnvSchema.properties)) {
      assert.ok((ENV_DESCRIPTIONS as Record<string, string>)[name]?.length, `${name} has no description`);
    }
  });
  it('the committed file is what `npm run env:example` writes', () => {
    const file = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');
    assert.equal(file, envExample(), 'run npm run env:example and commit .env.example');
    for (const name of Object.keys(EnvSchema.properties)) assert.match(file, new RegExp(`^# ${name}=`, 'm'));
  });
});
