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
import { verify } from '../src/webhooks/signature.ts';
import { WebhookDispatcher } from '../src/webhooks/dispatcher.ts';
import { makeGateway, makePhonebook, makeSurvey, makeUser, unique } from './factories.ts';
import { call, dbLabel, eventually, logCaughtUp, testConfig, testDatabase } from './helpers.ts';

// Registered before the database's own after hook (they run in order): the dispatcher and the
// app, which LISTEN on the database, stop before it closes.
const stops: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const stop of stops) await stop();
});
const database = await testDatabase();
const config = testConfig({ webhookAllowPrivate: true });
const app = await buildApp({ logger: false, database, config });
stops.push(() => app.close());
const { db } = database;
const alice = await makeUser(db);
const bob = await makeUser(db);
const gateway = (await makeGateway(db)).id;
const survey = await makeSurvey(db, alice.id);

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

const dispatcher = new WebhookDispatcher({ database, publicUrl: 'http://dialer.test', allowPrivate: true, log: console, retryBaseMs: 50 });
await dispatcher.start();
stops.unshift(() => dispatcher.stop());

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

const lifeTypes = ['campaign.started', 'campaign.paused', 'campaign.resumed', 'campaign.ended'];

describe(`webhooks (${dbLabel})`, () => {
  test('a campaign life reaches the receiver signed, in order, each event once after de-duplication', async () => {
    const r = await receiver();
    const hook = await webhook(alice, r.url, ['campaign.*']);
    const campaign = await campaignLife();
    assert.ok(await eventually(async () => r.got.length >= 4, 10_000), `received ${r.got.length}`);
    const seen = new Map<string, { type: string; data: { campaign: string; why?: string } }>();
    for (const { headers, body } of r.got) {
      assert.ok(verify(hook.secret, body, String(headers['dialer-signature'])), 'signature verifies');
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
  });

  test('a receiver down for a while then up receives everything, in order', async () => {
    const r = await receiver(3);
    await webhook(alice, r.url, ['campaign.*']);
    const campaign = await campaignLife();
    assert.ok(await eventually(async () => r.got.length >= 4, 15_000), `received ${r.got.length}`);
    const types = r.got.map((g) => JSON.parse(g.body)).filter((e) => e.data.id === campaign).map((e) => e.type);
    assert.deepEqual([...new Set(types)], lifeTypes);
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
    const deliveries = await call(app, alice.auth, 'GET', `/rest-api/webhook/${hook.id}/deliveries/`);
    assert.equal(deliveries.statusCode, 200, deliveries.body);
    assert.equal(deliveries.data.count, 1);
    const [d] = deliveries.data.results;
    assert.equal(d.status, 'delivered');
    assert.equal(d.response_status, 200);
    assert.equal(d.event_type, 'campaign.started');
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

describe(`webhook URLs are checked against SSRF (${dbLabel})`, () => {
  test('loopback, metadata, private and names resolving to loopback are refused unless allowed', async () => {
    const guarded = await buildApp({ logger: false, database, config: testConfig({ webhookAllowPrivate: false }) });
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

  test('the stream sends new events and resumes from Last-Event-ID without gaps', async () => {
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
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
});

interface StreamEvent {
  id: string;
  type: string;
  data: { id?: number };
}

/** Opens /rest-api/events/ and collects its events. */
async function openStream(address: string, auth: string, headers: Record<string, string> = {}, query = '') {
  const controller = new AbortController();
  const res = await fetch(`${address}/rest-api/events/?${query}`, { headers: { authorization: auth, ...headers }, signal: controller.signal });
  assert.equal(res.status, 200);
  assert.match(String(res.headers.get('content-type')), /text\/event-stream/);
  const events: StreamEvent[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const pump = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.split('\n').find((l) => l.startsWith('data: '));
          if (data) events.push(JSON.parse(data.slice(6)));
        }
      }
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
