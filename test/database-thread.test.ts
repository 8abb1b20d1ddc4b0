/**
 * The embedded database runs in a thread of its own (src/db/pglite-thread.ts): a slow query does
 * not stop the server from answering, and transactions keep their meaning across the thread.
 * On PostgreSQL the same behaviour holds through the pool.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/database.ts';
import { payments } from '../src/db/schema.ts';
import { makeUser } from './factories.ts';
import { dbLabel, testApp } from './helpers.ts';

const t = await testApp();
const base = await t.app.listen({ host: '127.0.0.1', port: 0 });

describe(`the database beside the server (${dbLabel})`, () => {
  test('while a long query runs, the event loop keeps turning and the server answers', async () => {
    // The document is built on its first request (a few hundred ms for ~100 routes, more on a
    // loaded machine): built beforehand, so that what is timed below is the server answering.
    assert.equal((await fetch(`${base}/rest-api/openapi.json`)).status, 200);
    // The longest stretch between two ticks of a 10 ms timer, while the query runs.
    let last = performance.now();
    let worst = 0;
    const ticks = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
    }, 10);
    // Asked for 300 ms from now; timed from then, so a late timer counts too.
    const asked = performance.now() + 300;
    const health = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const res = await fetch(`${base}/rest-api/openapi.json`); // no database read
      return { status: res.status, took: performance.now() - asked };
    })();
    const began = performance.now();
    // Work, not a sleep: PostgreSQL's pg_sleep in PGlite gives the thread back while it waits.
    await t.database.db.execute(sql`select count(*) from generate_series(1, 1500000) g where md5(g::text) like 'a%'`);
    const ran = performance.now() - began;
    clearInterval(ticks);
    worst = Math.max(worst, performance.now() - last);
    const { status, took } = await health;
    assert.equal(status, 200);
    assert.ok(ran > 600, `the query ran ${ran.toFixed(0)} ms: too short to show anything`);
    // Blocked by the query, both would last as long as it; half of it leaves room for a loaded machine.
    assert.ok(worst < ran / 2, `the event loop stood still for ${worst.toFixed(0)} of the query's ${ran.toFixed(0)} ms`);
    assert.ok(took < ran / 2, `the OpenAPI document took ${took.toFixed(0)} ms while the database was busy for ${ran.toFixed(0)} ms`);
  });

  test('a transaction that throws leaves nothing; one that returns is seen whole; errors keep their SQLSTATE', async () => {
    const user = await makeUser(t.database.db);
    const count = async () =>
      Number((await queryRows<{ n: string }>(t.database.db, sql`select count(*) as n from payments where user_id = ${user.id}`))[0].n);
    await assert.rejects(
      t.database.db.transaction(async (tx) => {
        await tx.insert(payments).values({ user_id: user.id, amount: '1.00', description: 'rolled back' });
        throw new Error('changed my mind');
      }),
      /changed my mind/,
    );
    assert.equal(await count(), 0);
    await t.database.db.transaction(async (tx) => {
      await tx.insert(payments).values({ user_id: user.id, amount: '1.00', description: 'one' });
      await tx.insert(payments).values({ user_id: user.id, amount: '2.00', description: 'two' });
    });
    assert.equal(await count(), 2);
    await assert.rejects(t.database.db.execute(sql`insert into users (id, username, password_hash) values (${user.id}, 'dup', 'x')`), (err: unknown) => {
      const e = err as { code?: string; cause?: { code?: string } };
      assert.equal(e.code ?? e.cause?.code, '23505');
      return true;
    });
  });
});
