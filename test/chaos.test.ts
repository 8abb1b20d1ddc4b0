/**
 * Kill -9, again and again, during a campaign (the guide: "a crash or restart loses nothing and
 * never places a call twice"; issue 14 §2 and §3: events an integrator can trust). Real
 * processes: on PostgreSQL two API processes and two engines, on PGlite the one `serve` it
 * allows; one of them is killed every few seconds, in turn, and started again at once, while a
 * simulator campaign with retries dials, two webhooks (one in order, one in batches) send to a
 * receiver that refuses every 20th request, and a stream client follows the log, reconnecting to
 * whichever server is up with Last-Event-ID. Then the campaign must have ended with every
 * subscriber final, nobody dialled twice in one attempt, a CDR for each call, one
 * subscriber.final each, and every event of the log at each reader, signed and in order.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { eventId } from '../src/campaign/event-id.ts';
import { openDatabase, queryRows } from '../src/db/database.ts';
import { verify } from '../src/webhooks/signature.ts';
import { type Env, freshEnv, logIds, type Server, simulatorCampaign, startServe, stop } from './cli-process.ts';
import { basic, dbLabel, eventually, onPostgres, streamEvents } from './helpers.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-chaos-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const admin = basic('admin', 'admin-pw');
const CONTACTS = 300;
/** How many kills, and how far apart. */
const KILLS = onPostgres ? 8 : 5;
const KILL_EVERY_MS = 4000;

/** The processes: each restarted in place (`server`) after its kill. */
interface Proc {
  role: 'all' | 'api' | 'engine';
  server: Server;
}

/** The receiver: records each webhook's events in the order first seen, refuses every 20th request. */
function startReceiver() {
  const secrets = new Map<string, string>();
  const seen = new Map<string, string[]>();
  let requests = 0;
  let badSignatures = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      requests++;
      const name = (req.url ?? '/').slice(1);
      const body = Buffer.concat(chunks);
      if (!verify(secrets.get(name) ?? '', body, String(req.headers['dialer-signature']))) badSignatures++;
      if (requests % 20 === 0) {
        res.writeHead(500).end('refused, to be retried');
        return;
      }
      const list = seen.get(name) ?? [];
      seen.set(name, list);
      const parsed = JSON.parse(body.toString());
      for (const event of Array.isArray(parsed) ? parsed : [parsed]) if (!list.includes(event.id)) list.push(event.id);
      res.writeHead(200).end();
    });
  });
  return { server, secrets, seen, requests: () => requests, badSignatures: () => badSignatures };
}

/** A stream client that reconnects to any live server with Last-Event-ID until stopped. */
function follow(bases: () => string[]) {
  const ids: string[] = [];
  let reconnects = 0;
  const controller = new AbortController();
  const done = (async () => {
    for (let n = 0; !controller.signal.aborted; n++) {
      const live = bases();
      try {
        // The first connection from the log's start, the next ones from the last event received.
        const res = await fetch(`${live[n % live.length]}/rest-api/events/${ids.length ? '' : '?after=0'}`, {
          headers: { authorization: admin, accept: 'text/event-stream', ...(ids.length ? { 'last-event-id': ids.at(-1) as string } : {}) },
          signal: controller.signal,
        });
        assert.equal(res.status, 200);
        for await (const event of streamEvents<{ id: string }>(res.body!)) ids.push(event.id);
      } catch {
        // its server was killed (or the client stopped): connect again
      }
      reconnects++;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  return { ids, reconnects: () => reconnects, stop: () => (controller.abort(), done) };
}

test(`a campaign through repeated kill -9 of every process loses nothing and dials nobody twice (${dbLabel})`, { timeout: 600_000 }, async () => {
  const env: Env = { ...(await freshEnv(path.join(root, 'data'))), WEBHOOK_ALLOW_PRIVATE: 'true' };
  const roles: Proc['role'][] = onPostgres ? ['api', 'engine', 'api', 'engine'] : ['all'];
  const procs: Proc[] = [];
  for (const role of roles) procs.push({ role, server: await startServe(env, role) });
  const bases = () => procs.filter((p) => p.role !== 'engine' && p.server.child.exitCode === null && p.server.child.signalCode === null).map((p) => p.server.base);
  /** A request to any live server, tried again while none answers (one may be down). */
  const api = async (method: string, url: string, body?: unknown): Promise<any> => {
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await fetch(`${bases()[attempt % Math.max(1, bases().length)]}${url}`, {
          method,
          headers: { authorization: admin, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        assert.ok(res.ok, `${method} ${url} → ${res.status}: ${text}`);
        return text ? JSON.parse(text) : undefined;
      } catch (err) {
        if (err instanceof assert.AssertionError || attempt >= 100) throw err;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  };

  const receiver = startReceiver();
  await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
  after(() => receiver.server.close());
  const port = (receiver.server.address() as AddressInfo).port;
  for (const [name, settings] of [
    ['ordered', { ordered: true, batch_size: 1 }],
    ['batched', { ordered: false, batch_size: 20 }],
  ] as const) {
    const hook = await api('POST', '/rest-api/webhook/', { url: `http://127.0.0.1:${port}/${name}`, ...settings });
    receiver.secrets.set(name, hook.secret);
  }
  const stream = follow(bases);

  const id = await simulatorCampaign(api, api, {
    name: 'chaos',
    contacts: CONTACTS,
    gateway: { answer_rate: 0.6, busy_rate: 0.2, noanswer_rate: 0.1, ring_seconds: [0, 1], talk_seconds: [1, 3] },
    campaign: { frequency: 1200, maxretry: 2, intervalretry: 1, calltimeout: 2, end_when_done: true },
  });

  // Each process in turn: killed without a word, started again at once on the same database.
  for (let kill = 0; kill < KILLS; kill++) {
    await new Promise((resolve) => setTimeout(resolve, KILL_EVERY_MS));
    const proc = procs[kill % procs.length];
    proc.server.child.kill('SIGKILL');
    await proc.server.exited;
    proc.server = await startServe(env, proc.role);
  }
  // Asked every 250 ms: every 20 ms would keep a server busy answering.
  const ended = await eventually(async () => (await api('GET', `/rest-api/campaigns/${id}/`)).status === 4, 240_000, 250);
  assert.ok(ended, 'the campaign ended');

  // Every reader catches up with the log (a delivery under way at a kill waits out its lease, 15 s).
  let log: string[] = [];
  const caughtUp = await eventually(async () => {
    log = await logIds(api);
    const all = (ids: string[]) => log.every((id) => ids.includes(id));
    return all(receiver.seen.get('ordered') ?? []) && all(receiver.seen.get('batched') ?? []) && all(stream.ids);
  }, 200_000, 250);
  await stream.stop();
  for (const proc of procs) await stop(proc.server);

  const database = await openDatabase(env.DATABASE_URL ? { url: env.DATABASE_URL, poolSize: 2 } : { dataDir: env.DATA_DIR as string });
  try {
    const db = database.db;
    const count = async (query: ReturnType<typeof sql>) => (await queryRows<{ n: number }>(db, query))[0].n;
    // The log as the database holds it: the readers were compared against the API's pages of it.
    const stored = (await queryRows<{ id: number; txid: number }>(db, sql`select id::float8 as id, txid::float8 as txid from events order by txid, id`)).map(eventId);
    assert.deepEqual(log, stored, 'the API pages the whole log, in order');
    assert.equal(await count(sql`select count(*)::int as n from subscribers where campaign_id = ${id}`), CONTACTS);
    assert.equal(await count(sql`select count(*)::int as n from subscribers where campaign_id = ${id} and status not in (4, 5, 8)`), 0, 'every subscriber final');
    assert.equal(
      await count(sql`select count(*)::int as n from (select 1 from callrequests where campaign_id = ${id} group by subscriber_id, attempt having count(*) > 1) x`),
      0,
      'nobody dialled twice in one attempt',
    );
    assert.equal(
      await count(sql`select count(*)::int as n from subscribers s where campaign_id = ${id} and count_attempt <> (select count(*) from callrequests r where r.subscriber_id = s.id)`),
      0,
      'count_attempt counts the calls placed',
    );
    assert.equal(await count(sql`select count(*)::int as n from subscribers where campaign_id = ${id} and count_attempt > 3`), 0, 'at most maxretry + 1 calls each');
    const calls = await count(sql`select count(*)::int as n from callrequests where campaign_id = ${id}`);
    assert.ok(calls >= CONTACTS, `${calls} calls`);
    assert.equal(await count(sql`select count(distinct callrequest_id)::int as n from cdrs where campaign_id = ${id}`), calls, 'a CDR for each call');
    assert.equal(await count(sql`select count(*)::int as n from cdrs where campaign_id = ${id}`), calls, 'one CDR for each call');
    assert.equal(await count(sql`select count(*)::int as n from events where type = 'call.completed' and campaign_id = ${id}`), calls, 'a call.completed for each call');
    assert.equal(
      await count(sql`select count(distinct data->>'id')::int as n from events where type = 'subscriber.final' and campaign_id = ${id}`),
      CONTACTS,
      'a subscriber.final for each subscriber',
    );
    assert.equal(await count(sql`select count(*)::int as n from events where type = 'subscriber.final' and campaign_id = ${id}`), CONTACTS, 'only one each');
    assert.equal(await count(sql`select count(*)::int as n from events where type = 'campaign.ended' and campaign_id = ${id}`), 1, 'one campaign.ended');
  } finally {
    await database.close();
  }

  assert.ok(caughtUp, `every reader caught up: log ${log.length}, ordered ${receiver.seen.get('ordered')?.length}, batched ${receiver.seen.get('batched')?.length}, stream ${stream.ids.length}`);
  const at = new Map(log.map((id, i) => [id, i]));
  for (const name of ['ordered', 'batched']) {
    const got = receiver.seen.get(name) ?? [];
    assert.deepEqual([...got].sort(), [...log].sort(), `webhook ${name}: every event of the log, once each after de-duplication`);
  }
  assert.deepEqual(receiver.seen.get('ordered'), log, 'the ordered webhook: first receipts in the log order');
  assert.deepEqual(stream.ids, log, `the stream: every event once, in order, through ${stream.reconnects()} reconnections`);
  assert.ok(stream.reconnects() >= 1, 'the stream lost its server at least once');
  assert.ok(receiver.requests() > 0 && receiver.badSignatures() === 0, `${receiver.badSignatures()} bad signatures of ${receiver.requests()} requests`);
  assert.ok(at.size === log.length, 'event ids are unique');
});
