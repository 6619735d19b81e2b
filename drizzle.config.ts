import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  // The tables, one file per owning module (docs/architecture.md).
  schema: './src/db/tables/*.ts',
  out: './drizzle',
});
