// `npm run sdk:openapi`: writes packages/sdk/src/openapi.ts from the service's OpenAPI document.
import { writeFileSync } from 'node:fs';
import { merchantOpenApiTypes, serviceOpenApi } from './sdk-openapi-types.js';

const text = await merchantOpenApiTypes(await serviceOpenApi());
writeFileSync(new URL('../packages/sdk/src/openapi.ts', import.meta.url), text);
console.log('wrote packages/sdk/src/openapi.ts');
