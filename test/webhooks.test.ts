/**
 * Events and webhooks (issue 14): a campaign's life written as events, delivered to a receiver
 * on loopback with a signature it verifies, in order, once each after de-duplication, also when
 * the receiver was down for a while; the log paged for pollers and streamed as Server-Sent
 * Events that resume from Last-Event-ID; the webhook resource's visibility, secret and SSRF rules.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { buildApp } from '../src/app.ts';
import { sign, verify } from '../src/webhooks/signature.ts';
import { WebhookDispatcher } from '../src/webhooks/dispatcher.ts';
import { sql } from 'drizzle-orm';
import { appendEvents, EventType, pruneEvents } from '../src/campaign/events.ts';
import { type Listener, queryRows } from '../src/db/database.ts';
import { makeGateway, makePhonebook, makeSurvey, makeUser, unique } from './factories.ts';
import { call, dbLabel, eventually, logCaughtUp, streamEvents, testConfig, testDatabase, testLogger } from './helpers.ts';
import { readmeSignatureCheck } from './readme.ts';

// Registered before the database's own after hook (they run in order): the dispatcher and the
// app, which LISTEN on the database, stop before it closes.
const stops: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const stop of stops) await stop();
});
const database = await testDatabase();
const config = testConfig({ webhookAllowPrivate: true });
const app = await buildApp({ logger: testLogger, database, config });
stops.push(() => app.close());
const { db } = database;
const alice = await makeUser(db);
const bob = await makeUser(db);
const gateway = (await makeGateway(db)).id;
const survey = await makeSurvey(db, alice.id);
/** The README's signature check, as an integrator copies it. */
const readmeVerified = await readmeSignatureCheck();

/** A loopback receiver: records what it is sent; `failFirst` answers 500 that many times. */
async function receiver(failFirst = 0) {
  const got: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  let failures = failFirst;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (failures > 0) {
        failures--;
        res.writeHead(500).end('down');
        return;
      }
      got.push({ headers: req.headers, body });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => server.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got };
}

let dispatcher = new WebhookDispatcher({ database, publicUrl: 'http://dialer.test', allowPrivate: true, log: console, retryBaseMs: 50 });
await dispatcher.start();
stops.unshift(() => dispatcher.stop());

/** A new dispatcher in place of the one stopped (the stop registered above stops whichever runs). */
async function restartDispatcher(): Promise<void> {
  dispatcher = new WebhookDispatcher({ database, publicUrl: 'http://dialer.test', allowPrivate: true, log: console, retryBaseMs: 50 });
  await dispatcher.start();
}

async function webhook(owner: { auth: string }, url: string, events?: string[]) {
  const res = await call(app, owner.auth, 'POST', '/rest-api/webhook/', { url, ...(events ? { events } : {}) });
  assert.equal(res.statusCode, 201, res.body);
  return res.data as { id: number; secret: string };
}

/** A campaign of alice's run through its life by the API: start, pause, resume, end. */
async function campaignLife(): Promise<number> {
  const book = await makePhonebook(db, alice.id, ['+12035550101']);
  const res = await call(app, alice.auth, 'POST', '/rest-api/campaigns/', {
    name: unique('camp'),
    aleg_gateway: `/rest-api/gateway/${gateway}/`,
    object_id: survey,
    phonebook: [`/rest-api/phonebook/${book}/`],
  });
  assert.equal(res.statusCode, 201, res.body);
  const id = res.data.id as number;
  for (const status of [1, 2, 1, 4]) {
    const changed = await call(app, alice.auth, 'PATCH', `/rest-api/campaigns/${id}/`, { status });
    assert.equal(changed.statusCode, 202, changed.body);
  }
  await logCaughtUp(database);
  return id;
}

/** The app listening on loopback (once, for the tests that need a real socket). */
let listening: Promise<string> | undefined;
const serverAddress = () => (listening ??= app.listen({ port: 0, host: '127.0.0.1' }));

const lifeTypes = ['campaign.started', 'campaign.paused', 'campaign.resumed', 'campaign.ended'];

describe(`webhooks (${dbLabel})`, () => {
  // First: it needs a database without webhooks, and the only dispatcher its own.
  test('with no webhook, commits to the log start no rounds (the tick does); a webhook leased, they do again', async () => {
    // Not listening to the log then: its notifications reach nothing of this dispatcher.
    await dispatcher.stop();
    const counted = new WebhookDispatcher({ database, publicUrl: 'http://dialer.test', allowPrivate: true, log: console });
    let rounds = 0;
    const round = counted.round.bind(counted);
    counted.round = () => {
      rounds++;
      return round();
    };
    /** Rounds started over ten commits to the log, 150 ms apart (each one a notification). */
    const roundsOverCommits = async () => {
      const before = rounds;
      for (let i = 0; i < 10; i++) {
        await appendEvents(db, [{ type: EventType.ImportFinished, userId: alice.id, data: { n: i } }]);
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      return rounds - before;
    };
    let hookId: number | undefined;
    await counted.start();
    try {
      assert.ok(await eventually(async () => rounds >= 1), 'the first round, at start');
      const idle = await roundsOverCommits();
      assert.ok(idle <= 3, `${idle} rounds in 1.5 s of commits with no webhook: only the tick's (one a second)`);

      const r = await receiver();
      hookId = (await webhook(alice, r.url, ['import.finished'])).id;
      await appendEvents(db, [{ type: EventType.ImportFinished, userId: alice.id, data: { n: 'after' } }]);
      assert.ok(await eventually(async () => r.got.some((g) => g.body.includes('"after"')), 5000), 'the tick found the new webhook');
      const busy = await roundsOverCommits();
      assert.ok(busy >= 5, `${busy} rounds in 1.5 s of commits with a webhook leased: the notifications start them again`);
      assert.ok(await eventually(async () => r.got.length >= 11, 5000), `received ${r.got.length} of 11`);
    } finally {
      await counted.stop();
      // Quiet for the tests after this one.
      if (hookId !== undefined) await call(app, alice.auth, 'PATCH', `/rest-api/webhook/${hookId}/`, { active: false });
      await restartDispatcher();
    }
  });

  test('a campaign life reaches the receiver signed, in order, each event once after de-duplication', async () => {
    const r = await receiver();
    const hook = await webhook(alice, r.url, ['campaign.*']);
    const campaign = await campaignLife();
    assert.ok(await eventually(async () => r.got.length >= 4, 10_000), `received ${r.got.length}`);
    const seen = new Map<string, { type: string; data: { campaign: string; why?: string } }>();
    for (const { headers, body } of r.got) {
      assert.ok(verify(hook.secret, body, String(headers['dialer-signature'])), 'signature verifies');
      assert.ok(readmeVerified(hook.secret, body, String(headers['dialer-signature'])), "the README's check verifies it too");
      const event = JSON.parse(body);
      assert.equal(headers['dialer-event-id'], event.id);
      if (!seen.has(event.id)) seen.set(event.id, event);
    }
    const mine = [...seen.values()].filter((e) => e.data.campaign === `http://dialer.test/rest-api/campaigns/${campaign}/`);
    assert.deepEqual(
      mine.map((e) => e.type),
      lifeTypes,
    );
    assert.equal(mine[3].data.why, 'by user');
    assert.ok(!verify('whsec_other', r.got[0].body, String(r.got[0].headers['dialer-signature'])), 'another secret does not verify');
    const [first] = r.got;
    const header = String(first.headers['dialer-signature']);
    assert.ok(!readmeVerified('whsec_other', first.body, header), "the README's check refuses another secret");
    assert.ok(!readmeVerified(hook.secret, first.body.replace('campaign.', 'campaign_'), header), "the README's check refuses a changed body");
    // A true signature made 301 s ago: a replay, refused for its age alone.
    const old = sign(hook.secret, first.body, Math.floor(Date.now() / 1000) - 301);
    assert.ok(readmeVerified(hook.secret, first.body, old, 600), "the README's check takes it within a longer tolerance");
    assert.ok(!readmeVerified(hook.secret, first.body, old), "the README's check refuses it at its default 300 s");
  });

  test('a receiver down for a while then up receives everything, in order', async () => {
    const r = await receiver(3);
    await webhook(alice, r.url, ['campaign.*']);
    const campaign = await campaignLife();
    assert.ok(await eventually(async () => r.got.length >= 4, 15_000), `received ${r.got.length}`);
    const types = r.got.map((g) => JSON.parse(g.body)).filter((e) => e.data.id === campaign).map((e) => e.type);
    assert.deepEqual([...new Set(types)], lifeTypes);
  });

  test('a webhook that is not ordered gets every event once, failures retried on their own', async () => {
    const r = await receiver(2);
    const res = await call(app, alice.auth, 'POST', '/rest-api/webhook/', { url: r.url, events: ['campaign.*'], ordered: false });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.data.ordered, false);
    const campaign = await campaignLife();
    assert.ok(await eventually(async () => r.got.filter((g) => JSON.parse(g.body).data.id === campaign).length >= 4, 15_000), `received ${r.got.length}`);
    const mine = r.got.map((g) => JSON.parse(g.body)).filter((e) => e.data.id === campaign);
    assert.deepEqual([...new Set(mine.map((e) => e.type))].sort(), [...lifeTypes].sort());
    const sorted = [...new Set(mine.map((e) => e.id))].sort();
    assert.equal(sorted.length, 4);
  });

  test('batch_size: arrays of up to that many events, signed, in order; a failed array is retried whole', async () => {
    const r = await receiver(1);
    const res = await call(app, alice.auth, 'POST', '/rest-api/webhook/', { url: r.url, events: ['campaign.*'], batch_size: 3 });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.data.batch_size, 3);
    const { id, secret } = res.data as { id: number; secret: string };
    // The four events of a campaign's life written while no dispatcher runs: they wait together.
    await dispatcher.stop();
    const campaign = await campaignLife();
    await restartDispatcher();
    assert.ok(await eventually(async () => r.got.length >= 2, 15_000), `received ${r.got.length}`);
    const arrays = r.got.map(({ headers, body }) => {
      assert.ok(verify(secret, body, String(headers['dialer-signature'])), 'signature verifies');
      assert.equal(headers['dialer-event-id'], undefined, 'no single id on an array');
      const events = JSON.parse(body) as { id: string; type: string; data: { id: number } }[];
      assert.ok(Array.isArray(events), body);
      assert.equal(headers['dialer-event-count'], String(events.length));
      return events;
    });
    // The first array (three events) was refused once and sent again whole, then the fourth.
    assert.deepEqual(
      arrays.map((a) => a.length),
      [3, 1],
    );
    const events = arrays.flat();
    assert.deepEqual(
      events.map((e) => e.type),
      lifeTypes,
    );
    assert.ok(events.every((e) => e.data.id === campaign));
    // The outcome is written after the receiver answers: read the history once both are in. A
    // delivery is a request: one row for the array of three (two attempts), one for the fourth.
    let rows: { id: number; event_id: string; event_ids: string[]; event_count: number; status: string; attempts: number }[] = [];
    const recorded = await eventually(async () => {
      const history = await call(app, alice.auth, 'GET', `/rest-api/webhook/${id}/deliveries/`);
      assert.equal(history.statusCode, 200, history.body);
      rows = history.data.results;
      return rows.length === 2 && rows.every((d) => d.status === 'delivered');
    }, 10_000);
    assert.ok(recorded, JSON.stringify(rows));
    const [fourth, three] = rows; // newest first
    assert.deepEqual(
      [three.event_ids, fourth.event_ids],
      arrays.map((a) => a.map((e) => e.id)),
    );
    assert.deepEqual([three.event_id, three.event_count, three.attempts], [arrays[0][0].id, 3, 2]);
    assert.deepEqual([fourth.event_id, fourth.event_count, fourth.attempts], [arrays[1][0].id, 1, 1]);
    // Redelivered, the array goes again whole, as it was sent.
    const again = await call(app, alice.auth, 'POST', `/rest-api/webhook/${id}/deliveries/${three.id}/redeliver/`);
    assert.equal(again.statusCode, 202, again.body);
    assert.ok(await eventually(async () => r.got.length >= 3, 10_000), `received ${r.got.length}`);
    const resent = r.got[2];
    assert.ok(verify(secret, resent.body, String(resent.headers['dialer-signature'])));
    assert.deepEqual(
      (JSON.parse(resent.body) as { id: string }[]).map((e) => e.id),
      three.event_ids,
    );
    for (const batch_size of [0, 501, 'many']) {
      const bad = await call(app, alice.auth, 'PATCH', `/rest-api/webhook/${id}/`, { batch_size });
      assert.equal(bad.statusCode, 400, `${batch_size}: ${bad.body}`);
    }
    assert.equal((await call(app, alice.auth, 'GET', `/rest-api/webhook/${id}/`)).data.batch_size, 3, 'a refused change changes nothing');
  });

  test("another user's webhook hears nothing of alice's campaigns; patterns filter types", async () => {
    const bobs = await receiver();
    await webhook(bob, bobs.url);
    const pausesOnly = await receiver();
    await webhook(alice, pausesOnly.url, ['campaign.paused']);
    await campaignLife();
    assert.ok(await eventually(async () => pausesOnly.got.length >= 1, 10_000));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(bobs.got.length, 0);
    assert.deepEqual(
      pausesOnly.got.map((g) => JSON.parse(g.body).type),
      ['campaign.paused'],
    );
  });

  test('the secret is shown once; rotate-secret makes a new one; deliveries are listed and redelivered', async () => {
    const r = await receiver();
    const hook = await webhook(alice, r.url, ['campaign.started']);
    const read = await call(app, alice.auth, 'GET', `/rest-api/webhook/${hook.id}/`);
    assert.equal(read.statusCode, 200);
    assert.equal(read.data.secret, undefined);
    assert.equal(read.data.url, r.url);
    assert.equal((await call(app, bob.auth, 'GET', `/rest-api/webhook/${hook.id}/`)).statusCode, 404);
    const rotated = await call(app, alice.auth, 'POST', `/rest-api/webhook/${hook.id}/rotate-secret/`);
    assert.equal(rotated.statusCode, 200);
    assert.notEqual(rotated.data.secret, hook.secret);
    await campaignLife();
    assert.ok(await eventually(async () => r.got.length >= 1, 10_000));
    assert.ok(verify(rotated.data.secret, r.got[0].body, String(r.got[0].headers['dialer-signature'])));
    // The outcome is written after the receiver answers: read the history until it is there.
    let deliveries = await call(app, alice.auth, 'GET', `/rest-api/webhook/${hook.id}/deliveries/`);
    assert.ok(
      await eventually(async () => {
        deliveries = await call(app, alice.auth, 'GET', `/rest-api/webhook/${hook.id}/deliveries/`);
        return deliveries.statusCode === 200 && deliveries.data.count === 1;
      }, 10_000),
      deliveries.body,
    );
    const [d] = deliveries.data.results;
    assert.equal(d.status, 'delivered');
    assert.equal(d.response_status, 200);
    assert.equal(d.event_type, 'campaign.started');
    assert.deepEqual([d.event_count, d.event_ids], [1, [d.event_id]]);
    const again = await call(app, alice.auth, 'POST', `/rest-api/webhook/${hook.id}/deliveries/${d.id}/redeliver/`);
    assert.equal(again.statusCode, 202);
    assert.ok(await eventually(async () => r.got.length >= 2, 10_000));
    assert.equal(JSON.parse(r.got[1].body).id, d.event_id);
    assert.equal((await call(app, bob.auth, 'POST', `/rest-api/webhook/${hook.id}/deliveries/${d.id}/redeliver/`)).statusCode, 404);
  });

  test('bad input is a 400 and creates nothing', async () => {
    for (const body of [{}, { url: 'ftp://example.com/' }, { url: 'not a url' }, { url: 'http://127.0.0.1:1/', events: ['nope.*'] }]) {
      const res = await call(app, alice.auth, 'POST', '/rest-api/webhook/', body);
      assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
    }
  });
});

describe(`a webhook that keeps failing, and the log's retention (${dbLabel})`, () => {
  test('failing past the give-up time: deactivated, its waiting deliveries failed, a webhook.disabled event', async () => {
    const carol = await makeUser(db);
    const r = await receiver(1_000_000);
    const hook = await webhook(carol, r.url);
    // A second dispatcher that gives up at once: the first failure past the first is the last.
    const quick = new WebhookDispatcher({ database, publicUrl: 'http://dialer.test', allowPrivate: true, log: console, retryBaseMs: 10, giveUpMs: 0 });
    await dispatcher.stop();
    try {
      await appendEvents(db, [{ type: EventType.ImportFinished, userId: carol.id, data: { note: 'for the failing hook' } }]);
      await logCaughtUp(database);
      assert.ok(
        await eventually(async () => {
          await quick.round();
          return (await call(app, carol.auth, 'GET', `/rest-api/webhook/${hook.id}/`)).data.active === false;
        }, 15_000),
        'the webhook was not deactivated',
      );
    } finally {
      await quick.stop();
      await restartDispatcher();
    }
    const deliveries = await call(app, carol.auth, 'GET', `/rest-api/webhook/${hook.id}/deliveries/`);
    assert.deepEqual(deliveries.data.results.map((d: { status: string }) => d.status), ['failed'], deliveries.body);
    await logCaughtUp(database);
    const disabled = await call(app, carol.auth, 'GET', '/rest-api/events/?format=json&after=0&types=webhook.disabled');
    assert.equal(disabled.data.results.length, 1, disabled.body);
    assert.equal(disabled.data.results[0].data.id, hook.id);
    assert.match(disabled.data.results[0].data.last_error, /500/);
  });

  test('pruning deletes the events older than the retention and their deliveries, and keeps the rest', async () => {
    const dave = await makeUser(db);
    const r = await receiver();
    const hook = await webhook(dave, r.url);
    await appendEvents(db, [
      { type: EventType.ImportFinished, userId: dave.id, data: { n: 1 } },
      { type: EventType.ImportFinished, userId: dave.id, data: { n: 2 } },
    ]);
    // Received, and recorded (the batch's outcome is written after its sending).
    const recorded = async () =>
      (await queryRows<{ n: number }>(db, sql`select count(*)::int as n from webhook_deliveries where webhook_id = ${hook.id} and status = 'delivered'`))[0].n;
    assert.ok(await eventually(async () => (await recorded()) >= 2, 15_000), `received ${r.got.length}, recorded ${await recorded()}`);
    const mine = sql`select id from events where user_id = ${dave.id}`;
    await db.execute(sql`update events set created = now() - interval '40 days' where id = (select min(id) from (${mine}) m)`);
    await db.execute(sql`update webhook_deliveries set created = now() - interval '40 days'
      where webhook_id = ${hook.id} and event_id = (select min(id) from (${mine}) m)`);
    assert.ok((await pruneEvents(db, 30)) >= 1);
    const left = await queryRows<{ n: number; d: number }>(
      db,
      sql`select (select count(*)::int from events where user_id = ${dave.id}) as n,
                 (select count(*)::int from webhook_deliveries where webhook_id = ${hook.id}) as d`,
    );
    assert.deepEqual(left[0], { n: 1, d: 1 });
  });
});

describe(`webhook URLs are checked against SSRF (${dbLabel})`, () => {
  test('loopback, metadata, private and names resolving to loopback are refused unless allowed', async () => {
    const guarded = await buildApp({ logger: testLogger, database, config: testConfig({ webhookAllowPrivate: false }) });
    after(() => guarded.close());
    for (const url of ['http://127.0.0.1:8080/', 'http://169.254.169.254/latest/meta-data/', 'http://10.1.2.3/', 'http://[::1]/', 'http://localhost/hook']) {
      const res = await call(guarded, alice.auth, 'POST', '/rest-api/webhook/', { url });
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      assert.match(JSON.stringify(res.data.url), /private or local|not allowed/);
    }
  });
});

describe(`the event log for pollers and as a stream (${dbLabel})`, () => {
  test('?format=json pages the log after an id; others see none of it', async () => {
    const campaign = await campaignLife();
    const all = await call(app, alice.auth, 'GET', `/rest-api/events/?format=json&after=0&campaign_id=${campaign}`);
    assert.equal(all.statusCode, 200, all.body);
    assert.deepEqual(
      all.data.results.map((e: { type: string }) => e.type),
      lifeTypes,
    );
    const rest = await call(app, alice.auth, 'GET', `/rest-api/events/?format=json&after=${all.data.results[1].id}&campaign_id=${campaign}`);
    assert.deepEqual(
      rest.data.results.map((e: { type: string }) => e.type),
      lifeTypes.slice(2),
    );
    const paged = await call(app, alice.auth, 'GET', `/rest-api/events/?format=json&after=0&campaign_id=${campaign}&limit=3`);
    assert.equal(paged.data.results.length, 3);
    assert.match(paged.data.next, /after=evt_/);
    const bobs = await call(app, bob.auth, 'GET', `/rest-api/events/?format=json&after=0&campaign_id=${campaign}`);
    assert.deepEqual(bobs.data.results, []);
    assert.equal((await call(app, alice.auth, 'GET', '/rest-api/events/?format=json&after=garbage')).statusCode, 400);
    assert.equal((await call(app, alice.auth, 'GET', '/rest-api/events/?format=json&types=bogus')).statusCode, 400);
  });

  test('HEAD of the stream answers its headers at once, and ends', async () => {
    const address = await serverAddress();
    const res = await fetch(`${address}/rest-api/events/`, { method: 'HEAD', headers: { authorization: alice.auth }, signal: AbortSignal.timeout(5000) });
    assert.equal(res.status, 200);
    assert.match(String(res.headers.get('content-type')), /^text\/event-stream/);
    assert.equal(await res.text(), '');
  });

  test('the stream sends new events and resumes from Last-Event-ID without gaps', async () => {
    const address = await serverAddress();
    const first = await openStream(address, alice.auth);
    const campaign = await campaignLife();
    const got = await first.until((events) => events.filter((e) => e.data.id === campaign).length >= 4);
    first.close();
    const mine = got.filter((e) => e.data.id === campaign);
    assert.deepEqual(
      mine.map((e) => e.type),
      lifeTypes,
    );
    // Reconnect from the second event: the last two come again, nothing is skipped.
    const resumed = await openStream(address, alice.auth, { 'last-event-id': mine[1].id }, `campaign_id=${campaign}`);
    const again = await resumed.until((events) => events.length >= 2);
    resumed.close();
    assert.deepEqual(
      again.map((e) => e.id),
      mine.slice(2).map((e) => e.id),
    );
  });
  test('the process listens to the log only while streams are open, and 10 s after the last', async () => {
    // Its own app on a database whose 'events' LISTENs are counted (the dispatcher's are not among them).
    const counted = countingListens();
    const own = await buildApp({ logger: testLogger, database: counted.database, config });
    try {
      const address = await own.listen({ port: 0, host: '127.0.0.1' });
      const a = await openStream(address, alice.auth);
      const b = await openStream(address, alice.auth);
      assert.ok(await eventually(async () => counted.listening === 1), `one LISTEN for both streams (${counted.listening})`);
      a.close();
      b.close();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.equal(counted.listening, 1, 'still listening for a client that reconnects');
      assert.ok(await eventually(async () => counted.listening === 0, 15_000), `not listening 10 s after the last stream closed (${counted.listening})`);
      const c = await openStream(address, alice.auth);
      assert.ok(await eventually(async () => counted.listening === 1), 'listening again for a new stream');
      const campaign = await campaignLife();
      await c.until((events) => events.filter((e) => e.data.id === campaign).length >= 4);
      c.close();
    } finally {
      await own.close();
    }
    assert.equal(counted.listening, 0, 'the app closed: not listening');
  });

  test('while the log moves its readers read it on their own clock, not listening; once it is still they listen again; nothing is missed', async () => {
    // Its own app and dispatcher, whose 'events' LISTENs are counted; the file's dispatcher would lease the webhook.
    await dispatcher.stop();
    const counted = countingListens();
    const own = await buildApp({ logger: testLogger, database: counted.database, config });
    const hooks = new WebhookDispatcher({ database: counted.database, publicUrl: 'http://dialer.test', allowPrivate: true, log: console });
    await hooks.start();
    let hookId: number | undefined;
    try {
      const address = await own.listen({ port: 0, host: '127.0.0.1' });
      const r = await receiver();
      hookId = (await webhook(alice, r.url, ['import.finished'])).id;
      const s = await openStream(address, alice.auth, {}, 'types=import.finished');
      assert.ok(await eventually(async () => counted.listening === 2), `the stream and the dispatcher listen (${counted.listening})`);

      // A commit every ~20 ms for 2 s: notifications far faster than the readers read (every 100 and 200 ms).
      const flow = unique('flow');
      const samples: number[] = [];
      for (let n = 0; n < 100; n++) {
        await appendEvents(db, [{ type: EventType.ImportFinished, userId: alice.id, data: { flow, n } }]);
        samples.push(counted.listening);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const late = samples.slice(50);
      const quiet = late.filter((n) => n === 0).length;
      assert.ok(quiet >= late.length / 2, `not listening for most of the flow's second second: ${samples.join('')}`);
      assert.ok(await eventually(async () => counted.listening === 2, 5000), `both listen again once the log is still (${counted.listening})`);

      const ns = (events: { data: { flow?: string; n?: number | string } }[]) => events.filter((e) => e.data.flow === flow).map((e) => e.data.n);
      const streamed = await s.until((events) => ns(events).length >= 100);
      assert.deepEqual(ns(streamed), [...Array(100).keys()], 'the stream: every event once, in order');
      assert.ok(await eventually(async () => ns(r.got.map((g) => JSON.parse(g.body))).length >= 100, 10_000), 'the webhook: every event');
      assert.deepEqual(ns(r.got.map((g) => JSON.parse(g.body))), [...Array(100).keys()], 'the webhook: every event once, in order');

      // Listening again: a lone event wakes the stream (nothing else would: it has no clock of its own when the log is still).
      await appendEvents(db, [{ type: EventType.ImportFinished, userId: alice.id, data: { flow, n: 'lone' } }]);
      await s.until((events) => ns(events).includes('lone'));
      s.close();
    } finally {
      await hooks.stop();
      await own.close();
      if (hookId !== undefined) await call(app, alice.auth, 'PATCH', `/rest-api/webhook/${hookId}/`, { active: false });
      await restartDispatcher();
    }
    assert.equal(counted.listening, 0, 'stopped: not listening');
  });
});

/** The test database, its 'events' LISTENs counted (those made through it: not the file's dispatcher's). */
function countingListens() {
  const counted = { listening: 0, database };
  counted.database = new Proxy(database, {
    get: (target, prop) =>
      prop !== 'listen'
        ? Reflect.get(target, prop)
        : async (channel: string, listener: Listener) => {
            const unlisten = await target.listen(channel, listener);
            if (channel !== 'events') return unlisten;
            counted.listening++;
            return async () => {
              counted.listening--;
              await unlisten();
            };
          },
  });
  return counted;
}

interface StreamEvent {
  id: string;
  type: string;
  data: { id?: number; flow?: string; n?: number | string };
}

/** Opens /rest-api/events/ and collects its events. */
async function openStream(address: string, auth: string, headers: Record<string, string> = {}, query = '') {
  const controller = new AbortController();
  const res = await fetch(`${address}/rest-api/events/?${query}`, { headers: { authorization: auth, ...headers }, signal: controller.signal });
  assert.equal(res.status, 200);
  assert.match(String(res.headers.get('content-type')), /text\/event-stream/);
  const events: StreamEvent[] = [];
  const pump = (async () => {
    try {
      for await (const event of streamEvents<StreamEvent>(res.body!)) events.push(event);
    } catch {
      // aborted
    }
  })();
  return {
    until: async (enough: (events: StreamEvent[]) => boolean) => {
      assert.ok(await eventually(async () => enough(events), 10_000), `stream got ${events.length} events`);
      return events;
    },
    close: () => {
      controller.abort();
      void pump;
    },
  };
}
