// `npm run env:example`: writes .env.example and the README's configuration table from the
// configuration schema (src/config-schema.ts), the one place a setting is described.
import { readFileSync, writeFileSync } from 'node:fs';
import { envExample, readmeWithTable } from '../src/config-example.js';

writeFileSync(new URL('../.env.example', import.meta.url), envExample());
const readme = new URL('../README.md', import.meta.url);
writeFileSync(readme, readmeWithTable(readFileSync(readme, 'utf8')));
