/**
 * Per-test-file application and database: call testApp() / testDatabase() at the top level of a
 * test file (top-level await), so that they are closed when the file's tests are done. Every test file runs on in-memory PGlite; when
 * TEST_DATABASE_URL is set, on a fresh PostgreSQL database made for that file (and dropped
 * after), so counts and lists see only what the file made.
 */
import crypto from 'node:crypto';
import net from 'node:net';
import { after } from 'node:test';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { type Config, loadConfig } from '../src/config.ts';
import { sql } from 'drizzle-orm';
import { type Database, openDatabase, queryRows } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import type { AppDeps } from '../src/http/api.ts';

export const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
export const dbLabel = onPostgres ? 'PostgreSQL' : 'PGlite';

/** A fresh PostgreSQL database for this file; returns its URL and a function that drops it. */
export async function freshPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = new URL(process.env.TEST_DATABASE_URL as string);
  const name = `cd_test_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base.toString() });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(base.toString());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: base.toString() });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** Opens (and migrates) a database for this test file; it is closed and dropped after the file. */
export async function testDatabase(): Promise<Database & { url?: string }> {
  if (!onPostgres) {
    const database = await openDatabase({ dataDir: 'memory' });
    await migrate(database);
    after(() => database.close());
    return database;
  }
  const { url, drop } = await freshPostgresDatabase();
  const database = await openDatabase({ url, poolSize: 5 });
  await migrate(database);
  after(async () => {
    await database.close();
    await drop();
  });
  return Object.assign(Object.create(Object.getPrototypeOf(database)), database, { url });
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: '/tmp/campaign-dialer-test', WEBHOOK_ALLOW_PRIVATE: 'true' }), ...overrides };
}

export interface TestContext {
  app: FastifyInstance;
  database: Database & { url?: string };
  config: Config;
}

/**
 * The apps' logger in tests: errors only, on stderr. A test that meets an unexpected 500 then
 * shows its cause in the run's output (a flake seen once in CI is explained, not guessed at).
 */
export const testLogger = { level: 'error', stream: process.stderr };

/** The app on a fresh database, closed after the file. */
export async function testApp(deps: Partial<AppDeps> = {}): Promise<TestContext> {
  const database = (deps.database as TestContext['database']) ?? (await testDatabase());
  const config = deps.config ?? testConfig();
  const app = await buildApp({ logger: testLogger, ...deps, database, config });
  after(() => app.close());
  return { app, database, config };
}

export function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

/** app.inject with credentials and a JSON body; returns the response with `json` parsed. */
export async function call(
  app: FastifyInstance,
  auth: string | undefined,
  method: InjectOptions['method'],
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse & { body: string; data: any }> {
  const response = await app.inject({
    method,
    url,
    headers: { ...(auth ? { authorization: auth } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  let data: unknown;
  try {
    data = response.body ? JSON.parse(response.body) : undefined;
  } catch {
    data = undefined;
  }
  return Object.assign(response, { data });
}

/** The id at the end of a record URL ("http://h/rest-api/phonebook/3/" → 3). */
export function idOf(url: string): number {
  const m = /\/(\d+)\/?$/.exec(url);
  if (!m) throw new Error(`not a record URL: ${url}`);
  return Number(m[1]);
}

/** What `promise` settles to, or 'late' when it has not within `ms`. */
export async function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * Polls `probe` every `everyMs` until it returns true, for up to `ms`; returns whether it did.
 * (A probe that asks a real server something costly wants a longer pause than the default.)
 */
export async function eventually(probe: () => Promise<boolean>, ms = 3000, everyMs = 20): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * Polls `check` every 200 ms (eventually; a check that throws, as reads do while the database is
 * down, is false) until it holds, or fails after `ms` with what `what` says.
 */
export async function until(what: () => string | Promise<string>, ms: number, check: () => Promise<boolean>): Promise<void> {
  if (!(await eventually(() => check().catch(() => false), ms, 200))) throw new Error(`timed out after ${ms} ms: ${await what()}`);
}

/**
 * The events of a Server-Sent Events body (/rest-api/events/) as they arrive: each block's
 * `data:` line, parsed. Ends with the body; throws when it is cut (aborted, its server killed).
 */
export async function* streamEvents<T>(body: ReadableStream<Uint8Array>): AsyncGenerator<T> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const data = buffer
        .slice(0, end)
        .split('\n')
        .find((line) => line.startsWith('data: '));
      buffer = buffer.slice(end + 2);
      if (data) yield JSON.parse(data.slice(6)) as T;
    }
  }
}

/**
 * Waits until every transaction begun before this call has ended: from then on the event log
 * shows every event committed before it. Readers only go below the oldest running transaction
 * (src/campaign/events.ts), and on PostgreSQL transaction ids are the whole server's, so a long
 * transaction of another test file's database holds a freshly written event back for a while.
 */
export async function logCaughtUp(database: Pick<Database, 'db'>, ms = 60_000): Promise<void> {
  const [mark] = await queryRows<{ xid: string }>(database.db, sql`select (pg_current_xact_id()::text)::bigint as xid`);
  const caughtUp = await eventually(async () => {
    const [now] = await queryRows<{ xmin: string }>(database.db, sql`select (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint as xmin`);
    return BigInt(now.xmin) > BigInt(mark.xid);
  }, ms);
  if (!caughtUp) throw new Error(`the event log did not catch up in ${ms / 1000} s: a transaction older than ${mark.xid} is still running`);
}

/**
 * A loopback TCP port nothing listens on, for a server that a test (or a program it runs) starts
 * on it later. Picked below Linux's ephemeral range (32768–60999), from which the kernel takes
 * the local port of every outgoing connection and of a listen on port 0: a port from that range
 * can be taken between this check and its use while the suite opens connections by the hundred.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + crypto.randomInt(12_000);
    const probe = net.createServer();
    const free = await new Promise<boolean>((resolve) => {
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!free) continue;
    await new Promise((resolve) => probe.close(resolve));
    return port;
  }
}
