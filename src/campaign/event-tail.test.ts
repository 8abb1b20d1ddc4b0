/**
 * The process's tail of the event log (event-tail.ts) answers every live reader as the database
 * would: each event once, in the log's order, none skipped, whatever the filter, wherever the
 * reader starts (behind the tail, inside it, at its end, ahead of it) and however transactions
 * interleave their commits. Writers commit out of order on PostgreSQL (several connections, each
 * holding its transaction open a while); PGlite runs them one after another.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'drizzle-orm';
import { dbLabel, logCaughtUp, testDatabase } from '../../test/helpers.ts';
import { appendEvents, type EventCursor, type EventFilter, EventType, type EventTypeName, endOfLog, eventJson, eventMessages, isoTime, readEvents, readLog, sentEvent, START } from './events.ts';
import { eventId } from './event-id.ts';
import { queryRows } from '../db/database.ts';
import { EventTail, tailOf } from './event-tail.ts';

const database = await testDatabase();
const db = database.db;
const types: EventTypeName[] = [EventType.CallCompleted, EventType.SubscriberFinal, EventType.CampaignStarted, EventType.SmsSent];

/** `count` transactions of 1 to 3 events each, several at once, each holding its transaction open a few ms before it commits. */
async function write(count: number, writers: number, seed: number): Promise<void> {
  let next = 0;
  let random = seed;
  const roll = (n: number) => {
    random = (Math.imul(random, 1103515245) + 12345) >>> 0;
    return (random >>> 16) % n;
  };
  const writer = async () => {
    while (next < count) {
      const n = next++;
      const events = Array.from({ length: 1 + roll(3) }, (_, i) => ({
        type: types[roll(types.length)],
        userId: 1 + roll(2),
        campaignId: 1 + roll(3),
        data: { n, i, campaign: `/rest-api/campaigns/${n}/` },
      }));
      const hold = roll(4);
      await db.transaction(async (tx) => {
        await appendEvents(tx, events);
        await tx.execute(sql`select pg_sleep(${hold / 1000})`);
      });
    }
  };
  await Promise.all(Array.from({ length: writers }, writer));
}

/** A live reader: reads through the tail until told to stop, then to the end of the log. */
function follow(tail: EventTail, from: EventCursor, filter: EventFilter, window: number) {
  const seen: string[] = [];
  let cursor = from;
  let stopping = false;
  const drain = async () => {
    for (;;) {
      const read = await tail.read(cursor, filter, window);
      for (const row of read.events) seen.push(`${row.txid}:${row.id}`);
      assert.ok(read.end.txid > cursor.txid || (read.end.txid === cursor.txid && read.end.id >= cursor.id), 'a read never goes back');
      cursor = read.end;
      if (!read.full) return;
    }
  };
  const done = (async () => {
    while (!stopping) {
      await drain();
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    await drain();
  })();
  return {
    stop: async () => {
      stopping = true;
      await done;
      return seen;
    },
  };
}

/** What the database itself gives a reader of `filter` after `from`. */
async function expected(from: EventCursor, filter: EventFilter): Promise<string[]> {
  const rows = await readEvents(db, from, filter, 1_000_000);
  return rows.map((row) => `${row.txid}:${row.id}`);
}

test(`readers of the tail see what the database gives them, once each, in order, while writers commit out of order (${dbLabel})`, async () => {
  await write(20, 2, 1);
  await logCaughtUp(database);
  const early = await endOfLog(db);
  // A small tail, so that it is cut while readers follow it and the slow ones fall behind it.
  const tail = new EventTail(db, { maxRows: 40 });
  const readers = [
    { from: START, filter: {}, window: 7 }, // behind the tail from the start: reads the database, then joins it
    { from: early, filter: {}, window: 500 },
    { from: early, filter: { types: ['call.*'] }, window: 5 },
    { from: early, filter: { userId: 2, types: [EventType.SubscriberFinal, EventType.SmsSent] }, window: 50 },
    { from: early, filter: { campaignId: 3 }, window: 1 },
  ];
  const following = readers.map((r) => ({ ...r, reader: follow(tail, r.from, r.filter, r.window) }));
  await write(150, 4, 7);
  await logCaughtUp(database);
  for (const { from, filter, reader } of following) {
    const seen = await reader.stop();
    const want = await expected(from, filter);
    assert.ok(want.length > 0, 'the filter matches some events');
    assert.deepEqual(seen, want, `reader ${JSON.stringify(filter)} from ${from.txid}:${from.id}`);
  }
});

test(`a reader ahead of the tail moves it; one left behind reads the database and misses nothing (${dbLabel})`, async () => {
  const tail = new EventTail(db, { window: 2 });
  const from = await endOfLog(db);
  await write(10, 1, 3);
  await logCaughtUp(database);
  const behind = await tail.read(from, {}, 3); // the tail starts here
  const ahead = await endOfLog(db);
  await write(10, 1, 5);
  await logCaughtUp(database);
  const first = await tail.read(ahead, {}, 1000); // moves the tail to its position
  assert.ok(first.events.length > 0);
  const rest: string[] = behind.events.map((row) => `${row.txid}:${row.id}`);
  let cursor = behind.end;
  for (;;) {
    const read = await tail.read(cursor, {}, 4);
    rest.push(...read.events.map((row) => `${row.txid}:${row.id}`));
    cursor = read.end;
    if (!read.full) break;
  }
  assert.deepEqual(rest, await expected(from, {}));
});

test(`tailOf is one tail per database handle; a row's JSON is rendered once for a base (${dbLabel})`, async () => {
  assert.equal(tailOf(db), tailOf(db));
  const from = await endOfLog(db);
  await write(1, 1, 9);
  await logCaughtUp(database);
  const [a] = (await tailOf(db).read(from, {}, 10)).events;
  const [b] = (await tailOf(db).read(from, {}, 10)).events;
  assert.equal(a, b, 'two readers get the same row');
  const [first, again] = [sentEvent(a, 'http://dialer.example').json, sentEvent(b, 'http://dialer.example').json];
  assert.ok(first.buffer === again.buffer && first.byteOffset === again.byteOffset && first.length === again.length, 'the same bytes, rendered once');
  const json = eventJson(a, 'http://dialer.example');
  assert.match(json, /"campaign":\s*"http:\/\/dialer\.example\/rest-api\/campaigns\/\d+\/"/);
  assert.match(eventJson(a, 'https://other.example'), /"campaign":\s*"https:\/\/other\.example\/rest-api\/campaigns\/\d+\/"/);
});

test(`a window of the log reads back every field as written, and payloads of any characters (${dbLabel})`, async () => {
  const from = await endOfLog(db);
  const texts = ['plain', 'é', '名前', '😀 two 😀', 'a quote " and a backslash \\', 'a line\nbreak', 'text /rest-api/campaigns/1/', '"/rest-api/x/"', '', ',\n'];
  const written = texts.map((text, i) => ({
    type: types[i % types.length],
    userId: i % 3 === 0 ? null : i,
    campaignId: i % 2 ? null : 100 + i,
    data: { text, link: `/rest-api/campaigns/${i}/`, nested: { [text || 'k']: [text, `/rest-api/x/${i}/`] } },
  }));
  // Two transactions: two times; and one row from before 1970, with microseconds, whose id
  // needs more than 32 bits (PostgreSQL sends the window in binary: an int8 is two halves).
  await appendEvents(db, written.slice(0, 4));
  await appendEvents(db, written.slice(4, -1));
  await db.execute(sql`insert into events (id, type, user_id, campaign_id, data, created)
    values ((select max(id) from events) + 4294967296, ${written.at(-1)?.type}, null, ${written.at(-1)?.campaignId},
      ${JSON.stringify(written.at(-1)?.data)}::json, '1969-07-20 20:17:40.123456+00')`);
  await logCaughtUp(database);
  const read = await readLog(db, from, {}, 100);
  const stored = await queryRows<{ id: string; txid: string; created: string }>(
    db,
    sql`select id, txid, created::text as created from events where (txid, id) > (${from.txid}::bigint, ${from.id}::bigint) order by txid, id`,
  );
  assert.equal(read.events.length, written.length);
  assert.equal(read.full, false);
  assert.deepEqual(read.end, { txid: Number(stored.at(-1)?.txid), id: Number(stored.at(-1)?.id) });
  const base = 'http://h:8000';
  const link = (value: string) => (value.startsWith('/rest-api/') ? base + value : value);
  read.events.forEach((row, i) => {
    const w = written[i];
    assert.deepEqual([row.id, row.txid, row.type, row.user_id, row.campaign_id], [Number(stored[i].id), Number(stored[i].txid), w.type, w.userId, w.campaignId]);
    const event = JSON.parse(eventJson(row, base)) as unknown;
    assert.deepEqual(event, {
      id: eventId(row),
      type: w.type,
      created: isoTime(stored[i].created),
      data: { text: w.data.text, link: link(w.data.link), nested: { [w.data.text || 'k']: [w.data.text, link(`/rest-api/x/${i}/`)] } },
    });
  });
  const messages = eventMessages(read.events, base).toString('utf8').split('\n\n').slice(0, -1);
  assert.deepEqual(
    messages,
    read.events.map((row) => `id: ${eventId(row)}\nevent: ${row.type}\ndata: ${eventJson(row, base)}`),
    'the stream: each event a message',
  );
});
