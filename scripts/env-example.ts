// `npm run env:example`: writes .env.example from the configuration schema (src/config-example.ts).
import { writeFileSync } from 'node:fs';
import { envExample } from '../src/config-example.js';

writeFileSync(new URL('../.env.example', import.meta.url), envExample());
console.log('wrote .env.example');
