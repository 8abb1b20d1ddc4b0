/**
 * Database.listen on both databases: each listener hears its own channel and is told when it is
 * listening; on PostgreSQL every channel and listener of a process shares one session, which
 * comes back on its own when it is cut, and ends with the last listener.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { dbLabel, eventually, onPostgres, testDatabase } from '../../test/helpers.ts';
import { appendEvents, EventType } from '../campaign/events.ts';
import { type Listener, queryRows } from './database.ts';
import { LISTEN_APPLICATION_NAME } from './listen-postgres.ts';

const database = await testDatabase();

/** A listener that records what it is told. */
function recorder(): Listener & { heard: string[]; ups: number; downs: string[] } {
  const r = {
    heard: [] as string[],
    ups: 0,
    downs: [] as string[],
    notify: (payload: string) => void r.heard.push(payload),
    up: () => void r.ups++,
    down: (reason: string) => void r.downs.push(reason),
  };
  return r;
}

const notify = (channel: string, payload: string) => database.db.execute(sql`select pg_notify(${channel}, ${payload})`);

/** The sessions this database's listening holds. */
const sessions = async () =>
  (
    await queryRows<{ pid: number }>(
      database.db,
      sql`select pid from pg_stat_activity where datname = current_database() and application_name = ${LISTEN_APPLICATION_NAME}`,
    )
  ).map((r) => r.pid);

describe(`LISTEN (${dbLabel})`, () => {
  test('each listener hears its own channel, once it has been told it is listening', async () => {
    const [a, b, c] = [recorder(), recorder(), recorder()];
    const stops = [await database.listen('test_one', a), await database.listen('test_two', b), await database.listen('test_one', c)];
    assert.deepEqual([a.ups, b.ups, c.ups], [1, 1, 1]);
    await notify('test_one', 'x');
    await notify('test_two', 'y');
    await notify('test_three', 'z');
    assert.ok(await eventually(async () => a.heard.length === 1 && b.heard.length === 1 && c.heard.length === 1));
    assert.deepEqual([a.heard, b.heard, c.heard], [['x'], ['y'], ['x']]);
    await stops[0]();
    await notify('test_one', 'after');
    assert.ok(await eventually(async () => c.heard.length === 2), 'the channel still has a listener');
    assert.deepEqual(a.heard, ['x'], 'a listener stopped hears nothing more');
    for (const stop of stops.slice(1)) await stop();
  });

  test('a statement writing events wakes the events channel; with the log off it writes none and wakes nobody', async () => {
    const readers = recorder();
    const stop = await database.listen('events', readers);
    const count = async () => Number((await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from events where type = 'import.finished'`))[0].n);
    const before = await count();
    const event = { type: EventType.ImportFinished, userId: null, data: { imported: 1 } } as const;
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`set local dialer.events = 'off'`);
      await appendEvents(tx, [event]);
    });
    await appendEvents(database.db, [event]);
    assert.equal(await count(), before + 1, 'the log off wrote nothing');
    assert.ok(await eventually(async () => readers.heard.length > 0), 'the write with the log on woke the listener');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(readers.heard.length, 1, 'the statement with the log off woke it too');
    await stop();
  });

  if (onPostgres) {
    test('one session for every channel; cut, it comes back and says so; it ends with the last listener', async () => {
      const [users, events, stream] = [recorder(), recorder(), recorder()];
      const stops = [await database.listen('test_users', users), await database.listen('test_events', events), await database.listen('test_events', stream)];
      const [pid, ...others] = await sessions();
      assert.ok(pid, 'no listening session');
      assert.deepEqual(others, [], 'one session for every channel and listener');

      await database.db.execute(sql`select pg_terminate_backend(${pid})`);
      assert.ok(await eventually(async () => [users, events, stream].every((r) => r.downs.length === 1 && r.ups === 2), 10_000), 'each listener told down, then up');
      const [again, ...more] = await sessions();
      assert.ok(again && again !== pid, 'a new session');
      assert.deepEqual(more, []);
      await notify('test_users', '7');
      await notify('test_events', '');
      assert.ok(await eventually(async () => users.heard.length === 1 && events.heard.length === 1 && stream.heard.length === 1), 'heard after coming back');

      for (const stop of stops) await stop();
      assert.ok(await eventually(async () => (await sessions()).length === 0), 'the session ends with the last listener');
      const late = recorder();
      const stop = await database.listen('test_users', late);
      assert.equal(late.ups, 1);
      await notify('test_users', 'again');
      assert.ok(await eventually(async () => late.heard.length === 1), 'a listener after the last one left connects again');
      await stop();
    });
  }
});
