/**
 * Applies the numbered SQL files of migrations/ in order, each once, each in its own
 * transaction. On PostgreSQL an advisory lock lets several processes start at once safely.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { packageFile } from '../package-files.ts';
import { type Database, queryRows } from './database.ts';

const migrationsDir = packageFile('src/db/migrations');
const lockKey = 7_214_305_118; // any constant: the advisory lock that serialises migrations

/** The table that records which migrations a database has. */
export const createSchemaMigrations =
  'create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())';

/** The names of the migration files, in the order they apply. */
export function migrationFiles(): string[] {
  return fs
    .readdirSync(migrationsDir)
    .filter((name) => /^\d{4}_[\w-]+\.sql$/.test(name))
    .sort();
}

/** Returns the names of the migrations it applied. */
export async function migrate(database: Database): Promise<string[]> {
  const files = migrationFiles();
  await database.exec(createSchemaMigrations);
  if (database.pool) {
    const client = await database.pool.connect();
    try {
      await client.query('select pg_advisory_lock($1)', [lockKey]);
      try {
        // Everything on this one client: with a pool of one, a second connection would wait forever.
        const names = async () => (await client.query<{ name: string }>('select name from schema_migrations')).rows;
        return await applyPending(files, names, async (text) => void (await client.query(text)));
      } finally {
        await client.query('select pg_advisory_unlock($1)', [lockKey]);
      }
    } finally {
      client.release();
    }
  }
  const names = () => queryRows<{ name: string }>(database.db, sql`select name from schema_migrations`);
  return applyPending(files, names, (text) => database.exec(text));
}

async function applyPending(
  files: string[],
  names: () => Promise<Array<{ name: string }>>,
  exec: (text: string) => Promise<void>,
): Promise<string[]> {
  // Read under the lock: another process may have applied some while we waited for it.
  const done = new Set((await names()).map((r) => r.name));
  const pending = files.filter((f) => !done.has(f));
  await applyMigrations(pending, exec);
  return pending;
}

/**
 * Applies the named migration files in the order given, each in its own transaction with its
 * row in schema_migrations (which must exist). `exec` runs SQL text of several statements.
 */
export async function applyMigrations(names: string[], exec: (text: string) => Promise<void>): Promise<void> {
  for (const name of names) {
    const body = fs.readFileSync(path.join(migrationsDir, name), 'utf8');
    // One transaction: the migration and its record land together, or neither does.
    try {
      await exec(`begin;\n${body}\n;insert into schema_migrations (name) values ('${name}');\ncommit;`);
    } catch (err) {
      await exec('rollback').catch(() => {});
      throw new Error(`migration ${name} failed: ${(err as Error).message}`);
    }
  }
}
