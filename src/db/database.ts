/**
 * Opens the database: PostgreSQL through `pg` when a URL is given, else embedded PGlite under
 * DATA_DIR (guarded by a lock file: PGlite allows one process per data directory). Both are
 * driven through the same Drizzle schema; sessions run in UTC so timestamps read back in UTC.
 */
import fs from 'node:fs';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import type { PGlite } from '@electric-sql/pglite';
import type { SQL } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { PostgresListening } from './listen-postgres.ts';
import { databaseUnreachable } from './unreachable.ts';
import { createPgliteDirectory, PgliteThread } from './pglite-thread.ts';
import { upgradeOldPglite } from './pglite-upgrade.ts';
import * as schema from './schema.ts';

/** The Drizzle database, or a transaction on it: repositories take either as their first argument. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface Database {
  readonly db: Db;
  readonly kind: 'pglite' | 'postgres';
  /** Runs SQL text that may hold several statements (migrations). */
  exec(sqlText: string): Promise<void>;
  /** The pg pool (PostgreSQL only), for COPY streams. */
  readonly pool?: pg.Pool;
  /** The embedded database's thread (embedded only), for COPY from a blob. */
  readonly pglite?: PgliteThread;
  /**
   * LISTENs on `channel` (a lower-case identifier) until the returned function is called. On
   * PostgreSQL every channel and listener shares one connection of its own, outside the pool,
   * which reconnects when it is lost (listen-postgres.ts); the listener is told when it is
   * listening and when it may be missing notifications.
   */
  listen(channel: string, listener: Listener): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** What a LISTEN subscriber is told. */
export interface Listener {
  notify(payload: string): void;
  /** Listening (again): anything sent before this moment may have been missed. */
  up(): void;
  /** The connection is lost: notifications are missed until up() is called again. */
  down(reason: string): void;
}

export interface OpenOptions {
  /** PostgreSQL URL; when absent, PGlite in `dataDir` (or in memory when dataDir is 'memory'). */
  url?: string;
  dataDir?: string;
  /** How long to keep retrying a database that does not answer at start. */
  retryForMs?: number;
  log?: { info?(msg: string): void; warn(msg: string): void };
  poolSize?: number;
}

/** Runs a query and returns its rows, on either driver. */
export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

/**
 * The rows of `select` (SQL text without parameters) in PostgreSQL's binary COPY format, as one
 * Buffer (the format: the COPY page of PostgreSQL's manual); undefined on PGlite, which has no
 * COPY TO STDOUT stream. For rows read thousands a second (the event log's windows): numbers come
 * as numbers and text as bytes, where a query makes a string of every value.
 */
export async function copyOutBinary(db: Db, select: string): Promise<Buffer | undefined> {
  const pool = (db as unknown as { $client?: unknown }).$client;
  if (!(pool instanceof pg.Pool)) return undefined;
  const client = await pool.connect();
  let broken = false;
  try {
    const chunks: Buffer[] = [];
    const stream = client.query(copyTo(`copy (${select}) to stdout (format binary)`));
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    await finished(stream);
    return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  } catch (err) {
    // A COPY cut short may leave the connection in any state: drop it rather than reuse it.
    broken = true;
    throw err;
  } finally {
    client.release(broken);
  }
}

export async function openDatabase(options: OpenOptions): Promise<Database> {
  return options.url ? openPostgres(options.url, options) : openPglite(options.dataDir ?? 'memory', options);
}

async function openPostgres(url: string, options: OpenOptions): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    options: '-c TimeZone=UTC',
  });
  // An idle client that loses its server must not crash the process; the next query reconnects.
  // A restart ends every idle client at once: said once for them all.
  let lostAt = 0;
  pool.on('error', (err) => {
    if (Date.now() - lostAt > 1000) options.log?.warn(`database connection lost: ${err.message}`);
    lostAt = Date.now();
  });
  // Nor one lent out (a transaction, a COPY): pg-pool listens to a client's 'error' only while it
  // is idle, and a PostgreSQL restart under a transaction crashed the process (an unhandled
  // 'error' event). The error fails the client's query, which its caller sees; the client is
  // dropped when given back (no longer queryable).
  pool.on('connect', (client) => client.on('error', () => undefined));
  await waitForServer(pool, url, options);
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  db.transaction = transactionsOn(pool);
  const listening = new PostgresListening(url);
  return {
    db,
    kind: 'postgres',
    pool,
    async exec(sqlText) {
      await pool.query(sqlText);
    },
    listen: (channel, listener) => listening.add(channel, listener),
    async close() {
      await listening.close();
      await pool.end();
    },
  };
}

/**
 * Drizzle's transaction on a pool checks a client out and sends BEGIN before its try: a BEGIN
 * that fails (the connection lost between the checkout and it, as in a PostgreSQL restart)
 * never gives the client back. The pool then kept a slot for a dead client for good, and its
 * end() waited for it forever: a `serve` stopped after an outage could end with exit code 13
 * (nothing left to run, its stop still waiting), and each such loss took a slot for good. So a
 * transaction checks its client out here, runs Drizzle's transaction on that one client (a
 * Drizzle instance made once per client), and always gives it back; one whose connection was
 * lost is dropped.
 */
function transactionsOn(pool: pg.Pool): Db['transaction'] {
  const onClient = new WeakMap<pg.PoolClient, Db>();
  return async (run, config) => {
    const client = await pool.connect();
    let failed: unknown;
    try {
      let bound = onClient.get(client);
      if (!bound) onClient.set(client, (bound = drizzlePg(client, { schema }) as unknown as Db));
      return await bound.transaction(run, config);
    } catch (err) {
      failed = err;
      throw err;
    } finally {
      client.release(databaseUnreachable(failed) ? (failed as Error) : undefined);
    }
  };
}

/** A database that is down at start: retry with backoff, and say so each time. */
async function waitForServer(pool: pg.Pool, url: string, options: OpenOptions): Promise<void> {
  const deadline = Date.now() + (options.retryForMs ?? 60_000);
  let delay = 250;
  for (;;) {
    try {
      await pool.query('select 1');
      return;
    } catch (err) {
      const message = (err as Error).message || String(err);
      if (Date.now() + delay > deadline) {
        await pool.end().catch(() => {});
        const seconds = Math.round((options.retryForMs ?? 60_000) / 1000);
        throw new Error(`gave up after ${seconds} s: database at ${redact(url)} is not reachable (${message})`);
      }
      options.log?.warn(`database at ${redact(url)} is not reachable (${message}); retrying in ${delay} ms`);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 5000);
    }
  }
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'DATABASE_URL';
  }
}

/**
 * PGlite's own default is 160 MB of shared buffers, all of it resident once touched: most of the
 * server's memory. One process with one session needs far less; the operating system's page
 * cache still holds the files (bench:api, bench:import measure both). Likewise PGlite has one
 * backend, not PostgreSQL's 100: the shared memory sized for the others (process slots, their
 * lock tables) is 3 MB spent on nobody.
 */
export const PGLITE_SETTINGS = ['shared_buffers=16MB', 'max_connections=4'];

async function openPglite(dataDir: string, options: OpenOptions): Promise<Database> {
  let release = () => {};
  let pglite: PgliteThread;
  if (dataDir === 'memory') {
    pglite = new PgliteThread(undefined, PGLITE_SETTINGS);
    await pglite.waitReady;
  } else {
    fs.mkdirSync(dataDir, { recursive: true });
    release = acquireLock(dataDir);
    try {
      await upgradeOldPglite(dataDir, options.log); // a directory made by PGlite 0.3 (PostgreSQL 17)
      const dir = path.join(dataDir, 'pglite');
      // The first start creates the database where its memory is given back (see there).
      if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) await createPgliteDirectory(dir, PGLITE_SETTINGS);
      pglite = new PgliteThread(dir, PGLITE_SETTINGS);
      await pglite.waitReady;
    } catch (err) {
      release();
      throw err;
    }
  }
  // PGlite is a single session, so this holds for every query.
  await pglite.exec("SET TIME ZONE 'UTC'");
  // Drizzle's PGlite driver calls query() and transaction(), which the thread provides.
  const db = drizzlePglite(pglite as unknown as PGlite, { schema }) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    pglite,
    async exec(sqlText) {
      await pglite.exec(sqlText);
    },
    async listen(channel, listener) {
      // One session: a notification is delivered when the change commits, to this same session.
      const unlisten = await pglite.listen(channel, (payload) => listener.notify(payload));
      listener.up();
      return async () => {
        await unlisten().catch(() => {}); // already closed with the database
      };
    },
    async close() {
      try {
        await pglite.close();
      } finally {
        release();
      }
    },
  };
}

/**
 * Takes DATA_DIR/campaign-dialer.lock for this process. A live holder makes us refuse with its
 * pid; a lock left by a dead process (kill -9) is taken over.
 */
export function acquireLock(dataDir: string): () => void {
  const lockPath = path.join(dataDir, 'campaign-dialer.lock');
  const content = JSON.stringify({ pid: process.pid, started: new Date().toISOString(), argv: process.argv.slice(1) });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockPath, content, { flag: 'wx' });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        try {
          const held = JSON.parse(fs.readFileSync(lockPath, 'utf8')) as { pid: number };
          if (held.pid === process.pid) fs.unlinkSync(lockPath);
        } catch {
          // Already gone: nothing to release.
        }
      };
      process.once('exit', release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readLock(lockPath);
      if (holder && holder.pid !== process.pid && isAlive(holder.pid)) {
        throw new Error(
          `the embedded database in ${dataDir} is in use by process ${holder.pid} (started ${holder.started}); ` +
            'stop that process, or give this one another DATA_DIR or a DATABASE_URL',
        );
      }
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`could not take the lock file ${lockPath}`);
}

function readLock(lockPath: string): { pid: number; started: string } | undefined {
  try {
    return JSON.parse(fs.readFileSync(lockPath, 'utf8')) as { pid: number; started: string };
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
