/**
 * PostgreSQL restarted under a running process (PostgreSQL only: PGlite is in the process, and
 * has no outage of its own). The database is a cluster of the test's own
 * (test/postgres-cluster.ts), stopped and started again, as an operator's restart or a failover
 * does.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { run } from './cli-process.ts';
import { freePort, onPostgres } from './helpers.ts';
import { type PostgresCluster, startPostgresCluster } from './postgres-cluster.ts';
import { openDatabase, queryRows } from '../src/db/database.ts';
import { rootMessage } from '../src/db/unreachable.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-outage-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** A cluster of the test's own with a database for one server; an admin and alice made through the CLI. */
async function setUp(name: string): Promise<{ cluster: PostgresCluster; env: Record<string, string>; query: (text: string) => Promise<any[]> }> {
  const cluster = startPostgresCluster(await freePort(), { fsync: 'off' });
  after(() => cluster.remove());
  const admin = new pg.Client({ connectionString: cluster.adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = cluster.adminUrl.replace(/\/postgres$/, `/${name}`);
  const env = { DATABASE_URL: url, DATA_DIR: path.join(root, name) };
  for (const args of [
    ['--username', 'admin', '--password', 'admin-pw', '--admin'],
    ['--username', 'alice', '--password', 'alice-pw', '--balance', '100'],
  ]) {
    const made = await run(['user', 'create', ...args], env);
    assert.equal(made.code, 0, made.stderr);
  }
  const query = async (text: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(text)).rows;
    } finally {
      await client.end();
    }
  };
  return { cluster, env, query };
}

/** Polls `check` every 200 ms until it holds, or fails after `ms` with what `what` says. */
async function until(what: () => Promise<string>, ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms: ${await what()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

if (onPostgres) {
  test('PostgreSQL stopped under a transaction: the transaction fails, the process lives on, and the first query after the restart goes through', { timeout: 120_000 }, async () => {
    const { cluster, env } = await setUp('outage_transaction');
    const database = await openDatabase({ url: env.DATABASE_URL, poolSize: 2 });
    try {
      let inside!: () => void;
      const entered = new Promise<void>((resolve) => (inside = resolve));
      const transaction = database.db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        inside();
        await tx.execute(sql`select pg_sleep(30)`); // under way when the server stops
      });
      const failed = transaction.then(
        () => 'committed',
        (err: Error) => rootMessage(err),
      );
      await entered;
      cluster.stop();
      // Before the fix, the lent client's 'error' event was unhandled: this process crashed here.
      assert.match(await failed, /terminating connection|Connection terminated/);
      cluster.start();
      await until(async () => 'no answer after the restart', 30_000, async () => (await queryRows<{ n: number }>(database.db, sql`select 1 as n`))[0].n === 1);
    } finally {
      await database.close();
    }
  });
}
