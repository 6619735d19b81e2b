import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { merchantOpenApiTypes, serviceOpenApi } from '../../scripts/sdk-openapi-types.js';
import { needsEmbedded, pgliteSnapshot } from '../helpers/database.js';

// The SDK's types come from the service's OpenAPI document: packages/sdk/src/openapi.ts is generated
// from it, and packages/sdk/src/openapi-conformance.ts checks the SDK's own types against it when
// `npm run typecheck` compiles the SDK.
// The document is built over an in-memory embedded database of its own, never the test database:
// it runs in the embedded pass only, where it starts from the run's migrated dump.
describe("the SDK's types follow the service's OpenAPI document", {
  skip: needsEmbedded('the document is built over an embedded database whatever the pass'),
}, () => {
  it('packages/sdk/src/openapi.ts is what `npm run sdk:openapi` writes from the document now', async () => {
    const committed = readFileSync(new URL('../../packages/sdk/src/openapi.ts', import.meta.url), 'utf8');
    const fresh = await merchantOpenApiTypes(await serviceOpenApi({ pgliteSnapshot: pgliteSnapshot() }));
    assert.equal(committed, fresh, 'the route schemas changed: run npm run sdk:openapi and commit the file');
    assert.match(fresh, /"\/merchant\/createOrder"/);
    assert.match(fresh, /orderSuccess/);
  });
});
