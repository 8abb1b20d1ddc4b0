/**
 * The fuzzer's target: the real application (buildApp, as `serve` builds it) on a fresh
 * database, listening on 127.0.0.1 at a random port, so that every request crosses real HTTP.
 * It also holds the three accounts the fuzzer acts as, and a digest of every table, which tells
 * whether a request changed anything.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { type Database, openDatabase, queryRows } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createToken, createUser } from '../../src/resources/users/users.service.ts';
import { basic, freshPostgresDatabase } from '../helpers.ts';

export const ACTORS = ['a', 'b', 'admin'] as const;
export type ActorName = (typeof ACTORS)[number];

export interface Actor {
  name: ActorName;
  id: number;
  username: string;
  admin: boolean;
  /** Authorization headers: HTTP Basic, and an API token. */
  basic: string;
  token: string;
}

export interface Target {
  base: string;
  kind: Database['kind'];
  actors: Record<ActorName, Actor>;
  /** table → md5 of its rows (volatile tables and columns left out). */
  digest(): Promise<Map<string, string>>;
  close(): Promise<void>;
}

/**
 * Tables whose rows may change on a rejected request by design: the migrations' bookkeeping,
 * engine heartbeats, and login-failure counters (a 401 is a rejected request that must count).
 */
const VOLATILE_TABLES = /^(schema_migrations|engine_heartbeats)$|throttl|login|auth_fail/;
/** Columns that change on reads (none today; add here, e.g. a last_login). */
const VOLATILE_COLUMNS = ['last_login'];

async function digestQuery(database: Database): Promise<ReturnType<typeof sql.raw>> {
  const tables = await queryRows<{ table_name: string }>(
    database.db,
    sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`,
  );
  const drop = `array[${VOLATILE_COLUMNS.map((c) => `'${c}'`).join(',')}]::text[]`;
  const parts = tables
    .map((t) => t.table_name)
    .filter((name) => !VOLATILE_TABLES.test(name))
    .map((name) => {
      const row = `(to_jsonb(x) - ${drop})::text`;
      return `select '${name}' as t, md5(coalesce(string_agg(${row}, ',' order by ${row}), '')) as d from "${name}" x`;
    });
  return sql.raw(parts.join('\nunion all\n'));
}

/** Opens a fresh, migrated database: PostgreSQL when `postgres` is true, else in-memory PGlite. */
export async function freshDatabase(postgres: boolean): Promise<{ database: Database; drop: () => Promise<void> }> {
  if (!postgres) {
    const database = await openDatabase({ dataDir: 'memory' });
    await migrate(database);
    return { database, drop: async () => {} };
  }
  const { url, drop } = await freshPostgresDatabase();
  const database = await openDatabase({ url, poolSize: 5 });
  await migrate(database);
  return { database, drop };
}

async function makeActor(database: Database, name: ActorName, suffix: string): Promise<Actor> {
  const username = `fuzz_${name}_${suffix}`;
  const password = `pw-${name}-${suffix}`;
  const row = await createUser(database.db, { username, password, is_admin: name === 'admin', balance: '100' });
  const key = await createToken(database.db, username);
  return { name, id: row.id, username, admin: row.is_admin, basic: basic(username, password), token: `Token ${key}` };
}

/**
 * Builds the app on `database` (already migrated), listens on 127.0.0.1:0, makes the accounts.
 * Its error log lines (one JSON object each, with the request id) go to `errorLog`.
 */
export async function startTarget(database: Database, suffix: string, errorLog: (line: string) => void): Promise<Target> {
  // Uploaded audio is stored under DATA_DIR: a directory of this run's own, removed at the end.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'campaign-dialer-fuzz-'));
  const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir });
  const app: FastifyInstance = await buildApp({ logger: { level: 'error', stream: { write: errorLog } }, database, config });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const actors = {} as Record<ActorName, Actor>;
  for (const name of ACTORS) actors[name] = await makeActor(database, name, suffix);
  const query = await digestQuery(database);
  return {
    base: `http://127.0.0.1:${port}`,
    kind: database.kind,
    actors,
    digest: async () => new Map((await queryRows<{ t: string; d: string }>(database.db, query)).map((r) => [r.t, r.d])),
    close: async () => {
      await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The tables whose digest differs between `before` and `after`. */
export function changedTables(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...after.keys()].filter((t) => before.get(t) !== after.get(t));
}
