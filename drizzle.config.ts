// Used only to print the SQL of the schema (`npx drizzle-kit export`) when writing a migration.
import { defineConfig } from 'drizzle-kit';

export default defineConfig({ dialect: 'postgresql', schema: './src/db/schema.ts' });
