/**
 * The Drizzle schema and the SQL migrations agree (src/db/schema.ts): every table and column the
 * schema declares exists in a migrated database, with the same nullability, and no migrated
 * column is missing from the schema. Migrations apply once.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { is, sql } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { queryRows } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import * as schema from '../src/db/schema.ts';
import { dbLabel, testDatabase } from './helpers.ts';

const database = await testDatabase();
const tables = (Object.values(schema) as unknown[])
  .filter((value): value is PgTable => is(value, PgTable))
  .map((table) => getTableConfig(table));

interface ColumnInfo {
  table_name: string;
  column_name: string;
  is_nullable: 'YES' | 'NO';
}

describe(`schema and migrations (${dbLabel})`, () => {
  test('the schema declares tables', () => {
    assert.ok(tables.length >= 3, `only ${tables.length} tables found in src/db/schema.ts`);
    assert.ok(tables.some((t) => t.name === 'users'));
  });

  test('every column of every schema table can be selected on a migrated database', async () => {
    const failures: string[] = [];
    for (const table of tables) {
      const columns = table.columns.map((c) => `"${c.name}"`).join(', ');
      try {
        await database.db.execute(sql.raw(`select ${columns} from "${table.schema ?? 'public'}"."${table.name}" limit 0`));
      } catch (err) {
        const cause = (err as { cause?: Error }).cause ?? (err as Error);
        failures.push(`${table.name}: ${cause.message}`);
      }
    }
    assert.deepEqual(failures, []);
  });

  test('nullability agrees, and no migrated column is missing from the schema', async () => {
    const rows = await queryRows<ColumnInfo>(
      database.db,
      sql`select table_name, column_name, is_nullable from information_schema.columns where table_schema = 'public'`,
    );
    const migrated = new Map(rows.map((r) => [`${r.table_name}.${r.column_name}`, r.is_nullable === 'NO']));
    const mismatches: string[] = [];
    for (const table of tables) {
      for (const column of table.columns) {
        const key = `${table.name}.${column.name}`;
        const notNull = migrated.get(key);
        if (notNull !== undefined && notNull !== column.notNull) {
          mismatches.push(`${key}: schema ${column.notNull ? 'not null' : 'nullable'}, migration ${notNull ? 'not null' : 'nullable'}`);
        }
      }
      const declared = new Set(table.columns.map((c) => c.name));
      for (const row of rows.filter((r) => r.table_name === table.name && !declared.has(r.column_name))) {
        mismatches.push(`${table.name}.${row.column_name}: in the migrations, not in the schema`);
      }
    }
    assert.deepEqual(mismatches, []);
  });

  test('migrate() a second time applies nothing', async () => {
    assert.deepEqual(await migrate(database), []);
    const [{ count }] = await queryRows<{ count: number | string }>(database.db, sql`select count(*) as count from schema_migrations`);
    assert.ok(Number(count) >= 4, `schema_migrations holds ${count} rows`);
  });
});
