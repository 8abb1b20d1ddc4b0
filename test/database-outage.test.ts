/**
 * PostgreSQL restarted under a running server (PostgreSQL only: PGlite is in the process, and has
 * no outage of its own). The database is a cluster of the test's own (test/postgres-cluster.ts),
 * stopped while calls or SMS are under way and started again seconds later, as an operator's
 * restart or a failover does. What ended meanwhile must be recorded once the database answers:
 * each call's outcome (one CDR, one `call.completed`), each message's, and every subscriber
 * final, with nobody dialled or texted twice. Before, what ended during the outage was dropped:
 * its calls stayed CALLING and its subscribers IN_PROCESS for as long as the engine ran, and the
 * campaign never ended.
 *
 * The last two tests cut the connection instead (test/pg-cut-proxy.ts, a proxy in front of the
 * real cluster): just after a claim's commit, before its answer. The engine never learns it
 * claimed those calls or messages, so never places them; it must close them itself (CLAIM_LOST)
 * and retry them, where before they stayed claimed until the engine's next start.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { type Api, apiClient, createUsers, reminderCalendar, type Server, simulatorCampaign, startServe, stop } from './cli-process.ts';
import { basic, freePort, onPostgres, settledWithin, until } from './helpers.ts';
import { type PostgresCluster, startPostgresCluster } from './postgres-cluster.ts';
import { cutAfterCommit } from './pg-cut-proxy.ts';
import { startSmsc } from './smsc.ts';
import { makeWav } from './audio-fixtures.ts';
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
  await createUsers(env, 'admin');
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

/** An API read that answers undefined while the database is down (the API then answers 5xx). */
const reading = (api: Api) => (url: string) => api('GET', url).catch(() => undefined);

/** The end of an SMS outage test: every one of the campaign's 6 subscribers COMPLETE, and the server stops cleanly. */
async function ended(server: Server, query: (text: string) => Promise<any[]>, campaignId: number): Promise<void> {
  const subscribers = await query(`select status, count(*)::int as n from sms_subscribers where sms_campaign_id = ${campaignId} group by status`);
  assert.deepEqual(subscribers, [{ status: 5, n: 6 }], 'every subscriber COMPLETE');
  assert.equal(await stop(server), 0, `serve's output ends:\n${server.output().slice(-4000)}`);
}

/** An SMS campaign of alice's to 6 numbers through `gatewayUrl`, started, ending when done. */
async function smsCampaign(alice: Api, gatewayUrl: string): Promise<{ id: number }> {
  const book = await alice('POST', '/rest-api/phonebook/', { name: 'sms' });
  await alice('POST', '/rest-api/bulkcontact/', { phonebook_id: String(book.id), phoneno_list: Array.from({ length: 6 }, (_, i) => `+1203555${String(i).padStart(4, '0')}`).join(',') });
  return alice('POST', '/rest-api/sms-campaigns/', {
    name: 'sms', sms_gateway: gatewayUrl, text_message: 'Hello', phonebook: [book.url], status: 1, frequency: 6000, maxretry: 1, intervalretry: 1, end_when_done: true,
  });
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

  test('PostgreSQL restarted while calls are up: each call that ended meanwhile is recorded once it is back, and the campaign ends', { timeout: 240_000 }, async (t) => {
    const { cluster, env, query } = await setUp('outage_calls');
    const server = await startServe({ ...env, WEBHOOK_ALLOW_PRIVATE: 'true' });
    const alice = apiClient(server.base, basic('alice', 'alice-pw'));
    const read = reading(alice);
    // A webhook receiver on loopback: the call.completed events of the calls that ended during the outage reach it too.
    const completed = new Set<string>();
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const event = JSON.parse(body);
        if (event.type === 'call.completed') completed.add(String(event.data.callrequest));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    after(() => receiver.close());
    await alice('POST', '/rest-api/webhook/', { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, events: ['call.completed'] });
    // And a live stream open across the outage: it gets them too, with no gap.
    const streamed = new Set<string>();
    const stream = new AbortController();
    after(() => stream.abort());
    const sse = await fetch(`${server.base}/rest-api/events/?types=call.completed`, { headers: { authorization: basic('alice', 'alice-pw') }, signal: stream.signal });
    void (async () => {
      let rest = '';
      for await (const chunk of sse.body as AsyncIterable<Uint8Array>) {
        const lines = (rest + Buffer.from(chunk).toString()).split('\n');
        rest = lines.pop() ?? ''; // a line not yet whole
        for (const line of lines) if (line.startsWith('data: ')) streamed.add(String(JSON.parse(line.slice(6)).data.callrequest));
      }
    })().catch(() => undefined);
    // 30 calls, 5 a second, each ringing 1 s and talking 5 s: ~10 up at once.
    const campaignId = await simulatorCampaign(apiClient(server.base, basic('admin', 'admin-pw')), alice, {
      name: 'outage',
      contacts: 30,
      gateway: { answer_rate: 1, busy_rate: 0, noanswer_rate: 0, machine_rate: 0, ring_seconds: [1, 1], talk_seconds: [5, 5] },
      campaign: { frequency: 300, maxretry: 1, intervalretry: 3600, end_when_done: true },
    });
    let up = 0;
    await until(async () => server.output().slice(-3000), 60_000, async () => {
      up = (await alice('GET', `/rest-api/callrequest/?campaign_id=${campaignId}&status=7`)).count;
      return up >= 8;
    });
    // Down for 8 s: longer than any call still has to run, so every call up now ends meanwhile.
    cluster.stop();
    await new Promise((resolve) => setTimeout(resolve, 8000));
    cluster.start();
    t.diagnostic(`${up} calls up when PostgreSQL stopped for 8 s`);

    await until(
      async () => `campaign ${JSON.stringify(await read(`/rest-api/campaigns/${campaignId}/`))}, subscribers ${JSON.stringify(await read(`/rest-api/subscriber-list/?campaign_id=${campaignId}`))}\n${server.output().slice(-3000)}`,
      90_000,
      async () => (await alice('GET', `/rest-api/campaigns/${campaignId}/`)).status === 4,
    );
    const output = server.output();
    assert.match(output, /outcomes: the database is out of reach \(/, 'an outcome came while the database was down');
    assert.match(output, /outcomes: the database answers again/);
    assert.match(output, /engine: the database is out of reach \(/, 'the engine says it waits for the database');
    assert.match(output, /engine: the database answers again; passes go on/);
    assert.doesNotMatch(output, /engine pass failed/, 'the outage is said once, not once a failed pass');
    assert.equal(output.match(/webhooks: the database is out of reach \(/g)?.length, 1, 'the webhook dispatcher says the outage once, not once a round');
    assert.match(output, /webhooks: the database answers again; deliveries go on/);
    assert.doesNotMatch(output, /webhooks: Failed query/);
    // The LISTEN connection fails each reconnect while the server is down; the cache says so once.
    assert.equal(output.match(/user cache off until the database connection is back/g)?.length, 1, 'the user cache says the outage once');
    assert.equal(output.match(/user cache on again/g)?.length, 1);
    assert.ok((output.match(/database connection lost: /g)?.length ?? 0) <= 1, 'the idle connections a restart ends are said once');
    const [calls] = await query(`select count(*)::int as n, count(*) filter (where status = 4 and hangup_cause = 'NORMAL_CLEARING')::int as answered,
        count(distinct (subscriber_id, attempt))::int as once from callrequests where campaign_id = ${campaignId}`);
    assert.deepEqual(calls, { n: 30, answered: 30, once: 30 }, 'each subscriber dialled once, every call recorded answered');
    const [cdrs] = await query(`select count(*)::int as n, count(distinct callrequest_id)::int as calls from cdrs where campaign_id = ${campaignId} and leg_type = 1`);
    assert.deepEqual(cdrs, { n: 30, calls: 30 }, 'one A-leg CDR a call');
    const subscribers = await query(`select status, count(*)::int as n from subscribers where campaign_id = ${campaignId} group by status`);
    assert.deepEqual(subscribers, [{ status: 5, n: 30 }], 'every subscriber COMPLETE');
    const [events] = await query(`select count(*)::int as n, count(distinct data->>'callrequest')::int as calls from events where campaign_id = ${campaignId} and type = 'call.completed'`);
    assert.deepEqual(events, { n: 30, calls: 30 }, 'one call.completed a call');
    await until(async () => `the webhook received ${completed.size} call.completed, the stream ${streamed.size}`, 30_000, async () => completed.size === 30 && streamed.size === 30);
    stream.abort();
    assert.equal(await stop(server), 0, `serve's output ends:\n${server.output().slice(-4000)}`);
  });

  /** A cluster of the test's own, and a server whose database connections go through a proxy that cuts the first transaction matching `marker` just after its commit. */
  async function setUpCut(name: string, marker: RegExp) {
    const { env, query } = await setUp(name);
    const url = new URL(env.DATABASE_URL);
    const proxy = await cutAfterCommit(Number(url.port), marker);
    after(() => proxy.close());
    let cut = false;
    void proxy.cut.then(() => (cut = true));
    url.port = String(proxy.port);
    return { wasCut: () => cut, env: { ...env, DATABASE_URL: url.toString() }, query };
  }

  test('a transaction whose BEGIN loses its connection gives its client back: the pool goes on, and closes', { timeout: 120_000 }, async () => {
    const { env } = await setUpCut('lost_begin', /^\s*begin\b/i);
    const database = await openDatabase({ url: env.DATABASE_URL, poolSize: 1 });
    const failed = await database.db.transaction(async (tx) => tx.execute(sql`select 1`)).then(
      () => 'committed',
      (err: Error) => rootMessage(err),
    );
    assert.match(failed, /Connection terminated/);
    // One client in the pool. Drizzle's own transaction never gave back a client whose BEGIN
    // failed: this waited for good, and so did the close.
    const next = await settledWithin(database.db.transaction(async (tx) => queryRows<{ n: number }>(tx, sql`select 2 as n`)), 10_000);
    assert.deepEqual(next, [{ n: 2 }], 'the next transaction has a client');
    assert.notEqual(await settledWithin(database.close(), 10_000), 'late', 'the pool closes');
  });

  test('a claim whose commit went through and whose answer was lost: its calls are closed CLAIM_LOST and retried, never placed twice, and the campaign ends', { timeout: 180_000 }, async (t) => {
    const { wasCut, env, query } = await setUpCut('lost_claim', /insert into callrequests/);
    const server = await startServe(env);
    const alice = apiClient(server.base, basic('alice', 'alice-pw'));
    const campaignId = await simulatorCampaign(apiClient(server.base, basic('admin', 'admin-pw')), alice, {
      name: 'lost claim',
      contacts: 12,
      gateway: { answer_rate: 1, busy_rate: 0, noanswer_rate: 0, machine_rate: 0, ring_seconds: [1, 1], talk_seconds: [1, 1] },
      campaign: { frequency: 600, maxretry: 1, intervalretry: 1, end_when_done: true },
    });
    await until(async () => `the first claim was not cut\n${server.output().slice(-3000)}`, 60_000, async () => wasCut());
    const [lost] = await query(`select count(*)::int as n from callrequests where campaign_id = ${campaignId}`);
    t.diagnostic(`${lost.n} call(s) claimed by the commit whose answer was lost`);
    assert.ok(lost.n > 0, 'the cut claim committed its calls');

    await until(
      async () => `campaign ${JSON.stringify(await alice('GET', `/rest-api/campaigns/${campaignId}/`))}, calls ${JSON.stringify(await query(`select id, subscriber_id, status, hangup_cause from callrequests where campaign_id = ${campaignId} order by id`))}\n${server.output().slice(-3000)}`,
      60_000,
      async () => (await alice('GET', `/rest-api/campaigns/${campaignId}/`)).status === 4,
    );
    const output = server.output();
    assert.match(output, new RegExp(`closed ${lost.n} call\\(s\\) this engine claimed and never placed: the claim's answer was lost with its connection \\(CLAIM_LOST\\)`));
    assert.doesNotMatch(output, /already closed/, 'no outcome came for a lost claim: none of its calls was placed');
    const calls = await query(`select subscriber_id, count(*) filter (where hangup_cause = 'CLAIM_LOST')::int as lost,
        count(*) filter (where status = 4 and hangup_cause = 'NORMAL_CLEARING')::int as answered from callrequests where campaign_id = ${campaignId}
        group by subscriber_id order by subscriber_id`);
    assert.equal(calls.length, 12);
    assert.equal(calls.reduce((n, c) => n + c.lost, 0), lost.n, 'the lost claim\'s calls closed CLAIM_LOST');
    assert.ok(calls.every((c) => c.answered === 1), `each subscriber placed and answered once: ${JSON.stringify(calls)}`);
    const subscribers = await query(`select status, count(*)::int as n from subscribers where campaign_id = ${campaignId} group by status`);
    assert.deepEqual(subscribers, [{ status: 5, n: 12 }], 'every subscriber COMPLETE');
    assert.equal(await stop(server), 0, `serve's output ends:\n${server.output().slice(-4000)}`);
  });

  test('an opt-out whose commit went through and whose answer was lost: tried again, the number on the DNC list once, and the survey\'s answers kept', { timeout: 180_000 }, async () => {
    const { wasCut, env, query } = await setUpCut('lost_opt_out', /insert into dnc_contacts/);
    const server = await startServe(env);
    const alice = apiClient(server.base, basic('alice', 'alice-pw'));
    const list = await alice('POST', '/rest-api/dnc-list/', { name: 'Opt-outs', is_global: 'True' });
    const campaignId = await simulatorCampaign(apiClient(server.base, basic('admin', 'admin-pw')), alice, {
      name: 'opt-out',
      contacts: 6,
      gateway: { answer_rate: 1, busy_rate: 0, noanswer_rate: 0, machine_rate: 0, ring_seconds: [1, 1], talk_seconds: [5, 5] },
      campaign: { frequency: 600, maxretry: 0, end_when_done: true },
      sections: [
        { type: 1, question: 'Hello', script: 'Hello' },
        { type: 9, question: 'Removing you', script: 'You will not be called again' },
        { type: 1, question: 'Goodbye', script: 'Goodbye' },
      ],
    });
    await until(
      async () => `campaign ${JSON.stringify(await alice('GET', `/rest-api/campaigns/${campaignId}/`))}, cut: ${wasCut()}\n${server.output().slice(-3000)}`,
      60_000,
      async () => (await alice('GET', `/rest-api/campaigns/${campaignId}/`)).status === 4,
    );
    assert.ok(wasCut(), 'an opt-out was cut after its commit');
    const output = server.output();
    assert.match(output, /opt-out of \+1203555\d{4}: the database is out of reach \(Connection terminated/);
    assert.doesNotMatch(output, /IVR stopped/);
    const results = await query(`select r.id, string_agg(cr.response, ' | ' order by cr.section_order) as answers
        from callrequests r left join call_results cr on cr.callrequest_id = r.id where r.campaign_id = ${campaignId} group by r.id order by r.id`);
    assert.equal(results.length, 6);
    assert.ok(results.every((r) => r.answers === `added to DNC list ${list.id}`), `each call's opt-out answered and recorded: ${JSON.stringify(results)}`);
    const dnc = await query(`select count(*)::int as n, count(distinct phone_key)::int as numbers from dnc_contacts where dnc_id = ${list.id}`);
    assert.deepEqual(dnc, [{ n: 6, numbers: 6 }], 'each number on the list once: the try again added no second row');
    assert.equal(await stop(server), 0, `serve's output ends:\n${server.output().slice(-4000)}`);
  });

  test('a voicemail whose audio read lost its answer: read again, the message left on every machine, no IVR stopped', { timeout: 180_000 }, async () => {
    const { wasCut, env } = await setUpCut('lost_voicemail_read', /select audio_file from audio_files/);
    const server = await startServe(env);
    const admin = apiClient(server.base, basic('admin', 'admin-pw'));
    const alice = apiClient(server.base, basic('alice', 'alice-pw'));
    const form = new FormData();
    form.append('name', 'voicemail');
    form.append('audio_file', new Blob([new Uint8Array(makeWav(1))], { type: 'audio/wav' }), 'voicemail.wav');
    const upload = await fetch(`${server.base}/rest-api/audio-files/`, { method: 'POST', headers: { authorization: basic('alice', 'alice-pw') }, body: form });
    assert.equal(upload.status, 201, await upload.clone().text());
    const audio = (await upload.json()) as { id: number };
    const campaignId = await simulatorCampaign(admin, alice, {
      name: 'voicemail read',
      contacts: 3,
      gateway: { answer_rate: 1, busy_rate: 0, noanswer_rate: 0, machine_rate: 1, ring_seconds: [1, 1], talk_seconds: [2, 2] },
      campaign: { frequency: 600, maxretry: 0, end_when_done: true, voicemail: true, amd_behavior: 1, voicemail_audiofile: `${server.base}/rest-api/audio-files/${audio.id}/` },
    });
    await until(
      async () => `campaign ${JSON.stringify(await alice('GET', `/rest-api/campaigns/${campaignId}/`))}, cut: ${wasCut()}\n${server.output().slice(-3000)}`,
      60_000,
      async () => (await alice('GET', `/rest-api/campaigns/${campaignId}/`)).status === 4,
    );
    assert.ok(wasCut(), 'a voicemail audio read was cut');
    assert.match(server.output(), /call \d+: the voicemail audio: the database is out of reach \(Connection terminated/);
    assert.doesNotMatch(server.output(), /IVR stopped/, 'the voicemail was left, not given up');
    const campaign = await alice('GET', `/rest-api/campaigns/${campaignId}/`);
    assert.equal(campaign.voicemail_audiofile, `${server.base}/rest-api/audio-files/${audio.id}/`);
    assert.equal(campaign.progress.subscribers.sent, 3, `every machine got the message: ${JSON.stringify(campaign.progress)}`);
    assert.equal(await stop(server), 0, `serve's output ends:\n${server.output().slice(-4000)}`);
  });

  const texting = { type: 10, question: 'Texting you', script: 'Texting you your code', sms_text: 'Your code is 1234' };

  /**
   * A serve behind a cut at `marker` (setUpCut, on database `name`), alice's sms_rate 0.05, and
   * her campaign of 4 calls, all answered, whose survey is `sections`, its SMS gateway the smpp
   * package's server; `check` runs, then the SMSC closes (and the server is killed if it runs).
   */
  async function callSmsCampaign(
    name: string,
    marker: RegExp,
    sections: object[],
    check: (w: { smsc: Awaited<ReturnType<typeof startSmsc>>; server: Server; campaignId: number; query: (text: string) => Promise<any[]>; wasCut: () => boolean; alice: Api }) => Promise<void>,
  ): Promise<void> {
    const smsc = await startSmsc();
    let server: Server | undefined;
    try {
      const { wasCut, env, query } = await setUpCut(name, marker);
      await query(`update users set sms_rate = 0.05 where username = 'alice'`);
      server = await startServe(env);
      const alice = apiClient(server.base, basic('alice', 'alice-pw'));
      const admin = apiClient(server.base, basic('admin', 'admin-pw'));
      const gateway = await smsc.gateway(admin);
      const campaignId = await simulatorCampaign(admin, alice, {
        name,
        contacts: 4,
        gateway: { answer_rate: 1, busy_rate: 0, noanswer_rate: 0, machine_rate: 0, ring_seconds: [1, 1], talk_seconds: [5, 5] },
        campaign: { frequency: 600, maxretry: 0, end_when_done: true, sms_gateway: gateway.url },
        sections,
      });
      await check({ smsc, server, campaignId, query, wasCut, alice });
    } finally {
      await smsc.close(server);
    }
  }

  test('a call\'s SMS whose record committed and whose answer was lost: recorded once, charged once, and the survey goes on (the smpp package\'s server)', { timeout: 180_000 }, async () => {
    await callSmsCampaign('lost_call_sms', /update sms_messages m set/, [texting, { type: 9, question: 'Removing you', script: 'You will not be called again' }], async ({ smsc, server, campaignId, query, wasCut, alice }) => {
      const output = server.output;
      await until(
        async () => `campaign ${JSON.stringify(await alice('GET', `/rest-api/campaigns/${campaignId}/`))}, cut: ${wasCut()}\n${output().slice(-3000)}`,
        60_000,
        async () => (await alice('GET', `/rest-api/campaigns/${campaignId}/`)).status === 4,
      );
      assert.ok(wasCut(), 'a call\'s SMS record was cut after its commit');
      assert.match(output(), /sms message \d+ \(call \d+\): the database is out of reach \(Connection terminated/);
      assert.doesNotMatch(output(), /IVR stopped/);
      assert.deepEqual([...smsc.to.values()], [1, 1, 1, 1], 'the SMSC got one message for each of the 4 numbers');
      const messages = await query(`select m.status, count(*)::int as n from sms_messages m join callrequests r on r.id = m.callrequest_id where r.campaign_id = ${campaignId} group by m.status`);
      assert.deepEqual(messages, [{ status: 'sent', n: 4 }]);
      const [billed] = await query(`select (select sum(m.cost) from sms_messages m join callrequests r on r.id = m.callrequest_id where r.campaign_id = ${campaignId})::text as texts,
          u.balance = 100 - (select coalesce(sum(call_cost), 0) from cdrs where campaign_id = ${campaignId}) - 0.20 as once from users u where u.username = 'alice'`);
      assert.deepEqual(billed, { texts: '0.20000', once: true }, 'each text charged once (4 × 0.05), beside the calls');
      const results = await query(`select r.id, string_agg(cr.response, ' | ' order by cr.section_order) as answers
          from callrequests r left join call_results cr on cr.callrequest_id = r.id where r.campaign_id = ${campaignId} group by r.id order by r.id`);
      assert.equal(results.length, 4);
      assert.ok(results.every((r) => /^sms sent: message \d+ \| (added to DNC list \d+|not added: no DNC list)$/.test(r.answers)), `each call's SMS answered, and the survey went on: ${JSON.stringify(results)}`);
      assert.equal(await stop(server), 0, `serve's output ends:\n${output().slice(-4000)}`);
    });
  });

  test('a call\'s SMS whose insert committed and whose answer was lost: inserted again and sent once, the lost row failed CLAIM_LOST and free, and the survey goes on (the smpp package\'s server)', { timeout: 180_000 }, async () => {
    await callSmsCampaign('lost_call_sms_insert', /insert into sms_messages \(callrequest_id/, [texting], async ({ smsc, server, campaignId, query, wasCut, alice }) => {
      const output = server.output;
      const messages = () =>
        query(`select m.status, m.error, m.cost::text, count(*)::int as n from sms_messages m join callrequests r on r.id = m.callrequest_id
            where r.campaign_id = ${campaignId} group by m.status, m.error, m.cost order by m.status`);
      // The engine's recovery (every 10 s) settles it once its call is no longer up.
      await until(
        async () => `messages ${JSON.stringify(await messages())}, cut: ${wasCut()}\n${output().slice(-3000)}`,
        60_000,
        async () => (await alice('GET', `/rest-api/campaigns/${campaignId}/`)).status === 4 && !(await messages()).some((m) => m.status === 'unsent'),
      );
      assert.ok(wasCut(), 'a call\'s SMS insert was cut after its commit');
      assert.match(output(), /sms \(call \d+\): the database is out of reach \(Connection terminated/);
      assert.deepEqual(await messages(), [
        { status: 'failed', error: 'CLAIM_LOST', cost: '0.00000', n: 1 },
        { status: 'sent', error: '', cost: '0.05000', n: 4 },
      ]);
      assert.match(output(), /settled 1 SMS message\(s\) of a call or a reminder this engine inserted and never sent/);
      assert.deepEqual([...smsc.to.values()], [1, 1, 1, 1], 'the SMSC got one message for each of the 4 numbers');
      const [billed] = await query(`select u.balance = 100 - (select coalesce(sum(call_cost), 0) from cdrs where campaign_id = ${campaignId}) - 0.20 as once from users u where u.username = 'alice'`);
      assert.equal(billed.once, true, 'the 4 texts sent are charged, the lost row is not');
      const results = await query(`select string_agg(cr.response, ' | ') as answers from callrequests r left join call_results cr on cr.callrequest_id = r.id
          where r.campaign_id = ${campaignId} group by r.id`);
      assert.ok(results.length === 4 && results.every((r) => /^sms sent: message \d+$/.test(r.answers)), `each call's text sent: ${JSON.stringify(results)}`);
      assert.doesNotMatch(output(), /IVR stopped/);
      assert.equal(await stop(server), 0, `serve's output ends:\n${output().slice(-4000)}`);
    });
  });

  /**
   * A serve behind a cut at `marker` (setUpCut, on database `name`) and alice's calendar: a
   * setting whose calls go through a simulator gateway (`simulator`, its settings) and whose SMS
   * go to the smpp package's server. `check` is given `alarm(body)`, which makes an event two
   * hours on and an alarm of it due now; then the SMSC closes (and the server is killed if it runs).
   */
  async function withReminders(
    name: string,
    marker: RegExp,
    simulator: object,
    check: (w: { smsc: Awaited<ReturnType<typeof startSmsc>>; server: Server; query: (text: string) => Promise<any[]>; wasCut: () => boolean; alice: Api; alarm: (body: object) => Promise<{ id: number }> }) => Promise<void>,
  ): Promise<void> {
    const smsc = await startSmsc();
    let server: Server | undefined;
    try {
      const { wasCut, env, query } = await setUpCut(name, marker);
      server = await startServe(env);
      const admin = apiClient(server.base, basic('admin', 'admin-pw'));
      const alice = apiClient(server.base, basic('alice', 'alice-pw'));
      const smsGateway = await smsc.gateway(admin);
      const gateway = await admin('POST', '/rest-api/gateway/', { name: 'reminder calls', driver: 'simulator', settings: simulator });
      const survey = await alice('POST', '/rest-api/survey-template/', { name: 'Reminder' });
      await alice('POST', '/rest-api/section-template/', { survey: survey.url, type: 1, question: 'Reminder', script: 'You have an appointment tomorrow' });
      const alarm = await reminderCalendar(alice, { survey: survey.id, aleg_gateway: gateway.id, sms_gateway: smsGateway.id });
      await check({ smsc, server, query, wasCut, alice, alarm });
    } finally {
      await smsc.close(server);
    }
  }

  /** Waits for alarm `id` to have `status`; a timeout says the alarm, its requests, the reminder campaigns and their subscribers. */
  const alarmIs = async (w: { alice: Api; server: Server; wasCut: () => boolean; query: (text: string) => Promise<any[]> }, id: number, status: number) =>
    until(
      async () =>
        `alarm ${JSON.stringify(await w.alice('GET', `/rest-api/alarm/${id}/`))}, requests ${JSON.stringify(await w.alice('GET', `/rest-api/alarm-request/?alarm=${id}`))}, ` +
        `campaigns ${JSON.stringify(await w.query('select id, status, engine_state from campaigns'))}, subscribers ${JSON.stringify(await w.query('select id, status, next_attempt_at, tz_code, count_attempt, reason from subscribers'))}, ` +
        `cut: ${w.wasCut()}\n${w.server.output().slice(-3000)}`,
      60_000,
      async () => (await w.alice('GET', `/rest-api/alarm/${id}/`)).status === status,
    );

  test('an appointment reminder SMS whose record lost its answer: recorded once the database answers, the alarm SUCCESS, the reminder sent once (the smpp package\'s server)', { timeout: 180_000 }, async () => {
    await withReminders('lost_reminder_record', /update sms_messages m set/, {}, async (w) => {
      const { smsc, server, query, wasCut, alice, alarm } = w;
      const reminder = await alarm({ method: 2, alarm_phonenumber: '+12035550100' });
      await alarmIs(w, reminder.id, 5);
      assert.ok(wasCut(), 'the reminder\'s record was cut after its commit');
      assert.match(server.output(), /sms message \d+ \(reminder to \+12035550100\): the database is out of reach \(Connection terminated/);
      const requests = (await alice('GET', `/rest-api/alarm-request/?alarm=${reminder.id}`)).results as { status: number; detail: string }[];
      assert.equal(requests.length, 1, JSON.stringify(requests));
      assert.equal(requests[0].status, 5);
      assert.match(requests[0].detail, /^sms sent: message \d+$/);
      assert.deepEqual([...smsc.to.entries()], [['12035550100', 1]], 'the SMSC got the reminder once');
      assert.deepEqual(await query(`select status, count(*)::int as n from sms_messages group by status`), [{ status: 'sent', n: 1 }]);
      assert.equal(await stop(server), 0, `serve's output ends:\n${server.output().slice(-4000)}`);
    });
  });

  test('an appointment reminder SMS whose insert lost its answer: inserted again and sent once, the alarm SUCCESS from the message sent, the lost row failed CLAIM_LOST (the smpp package\'s server)', { timeout: 180_000 }, async () => {
    await withReminders('lost_reminder_insert', /insert into sms_messages/, {}, async (w) => {
      const { smsc, server, query, wasCut, alice, alarm } = w;
      const reminder = await alarm({ method: 2, alarm_phonenumber: '+12035550100' });
      await alarmIs(w, reminder.id, 5);
      assert.ok(wasCut(), 'the reminder\'s insert was cut after its commit');
      const requests = (await alice('GET', `/rest-api/alarm-request/?alarm=${reminder.id}`)).results as { status: number; detail: string }[];
      assert.equal(requests.length, 1, JSON.stringify(requests));
      const sent = /^sms sent: message (\d+)$/.exec(requests[0].detail);
      assert.ok(sent, requests[0].detail);
      assert.deepEqual([...smsc.to.entries()], [['12035550100', 1]], 'the SMSC got the reminder once');
      await until(async () => `messages ${JSON.stringify(await query('select id, status, error from sms_messages order by id'))}`, 30_000, async () =>
        (await query(`select count(*)::int as n from sms_messages where status = 'unsent'`))[0].n === 0);
      const messages = await query('select id, status, error, cost::float as cost from sms_messages order by id');
      assert.deepEqual(messages.map((m) => [m.status, m.error]), [['failed', 'CLAIM_LOST'], ['sent', '']], 'the lost row failed, the second sent');
      assert.equal(Number(messages[1].id), Number(sent[1]), 'the attempt names the message sent');
      assert.equal(messages[0].cost, 0, 'the lost row is free');
      assert.equal(await stop(server), 0, `serve's output ends:\n${server.output().slice(-4000)}`);
    });
  });

  test('a call alarm failed for good whose settle lost its answer: its SMS fallback is still sent, once (the smpp package\'s server)', { timeout: 180_000 }, async () => {
    // Busy: a call not answered would ring until the setting's call timeout.
    const busy = { answer_rate: 0, busy_rate: 1, noanswer_rate: 0, machine_rate: 0, ring_seconds: [1, 1] };
    await withReminders('lost_alarm_settle', /update alarm_requests r set status/, busy, async (w) => {
      const { smsc, server, wasCut, alice, alarm } = w;
      const reminder = await alarm({ method: 1, alarm_phonenumber: '+12035550100', phonenumber_sms_failure: '+12035550199', maxretry: 0 });
      await alarmIs(w, reminder.id, 3);
      await until(
        async () => `requests ${JSON.stringify(await alice('GET', `/rest-api/alarm-request/?alarm=${reminder.id}`))}, cut: ${wasCut()}\n${server.output().slice(-3000)}`,
        60_000,
        async () => (await alice('GET', `/rest-api/alarm-request/?alarm=${reminder.id}`)).results.some((r: { method: number; status: number }) => r.method === 2 && r.status === 5),
      );
      assert.ok(wasCut(), 'the call attempt\'s settle was cut after its commit');
      const requests = (await alice('GET', `/rest-api/alarm-request/?alarm=${reminder.id}`)).results as { method: number; status: number; detail: string }[];
      assert.deepEqual(requests.map((r) => [r.method, r.status]).sort(), [[1, 3], [2, 5]], 'the call failed, then the SMS fallback was sent');
      assert.match(requests.find((r) => r.method === 1)?.detail ?? '', /busy/i, 'the call was placed, and busy');
      assert.deepEqual([...smsc.to.entries()], [['12035550199', 1]], 'the SMSC got the fallback once');
      assert.equal(await stop(server), 0, `serve's output ends:\n${server.output().slice(-4000)}`);
    });
  });

  test('an SMS claim whose commit went through and whose answer was lost: its messages are failed CLAIM_LOST and retried, each sent once, and the campaign ends (the smpp package\'s server)', { timeout: 180_000 }, async (t) => {
    const smsc = await startSmsc();
    let server: Server | undefined;
    try {
      const { wasCut, env, query } = await setUpCut('lost_sms_claim', /insert into sms_messages/);
      server = await startServe(env);
      const output = server.output;
      const alice = apiClient(server.base, basic('alice', 'alice-pw'));
      const admin = apiClient(server.base, basic('admin', 'admin-pw'));
      const campaign = await smsCampaign(alice, (await smsc.gateway(admin)).url);
      await until(async () => `the first claim was not cut\n${output().slice(-3000)}`, 60_000, async () => wasCut());
      const [lost] = await query(`select count(*)::int as n from sms_messages where sms_campaign_id = ${campaign.id}`);
      t.diagnostic(`${lost.n} message(s) claimed by the commit whose answer was lost`);
      assert.ok(lost.n > 0, 'the cut claim committed its messages');

      await until(
        async () => `campaign ${JSON.stringify(await alice('GET', `/rest-api/sms-campaigns/${campaign.id}/`))}, messages ${JSON.stringify(await query(`select id, recipient_number, status, error from sms_messages where sms_campaign_id = ${campaign.id} order by id`))}\n${output().slice(-3000)}`,
        60_000,
        async () => (await alice('GET', `/rest-api/sms-campaigns/${campaign.id}/`)).status === 4,
      );
      assert.match(output(), new RegExp(`settled ${lost.n} SMS message\\(s\\) this engine claimed and never sent: the claim's answer was lost with its connection \\(CLAIM_LOST\\)`));
      assert.deepEqual([...smsc.to.values()], [1, 1, 1, 1, 1, 1], `the SMSC got one message for each of the 6 numbers: ${JSON.stringify([...smsc.to])}`);
      const messages = await query(`select status, error, count(*)::int as n from sms_messages where sms_campaign_id = ${campaign.id} group by status, error order by status`);
      assert.deepEqual(messages, [{ status: 'failed', error: 'CLAIM_LOST', n: lost.n }, { status: 'sent', error: '', n: 6 }]);
      await ended(server, query, campaign.id);
    } finally {
      await smsc.close(server);
    }
  });

  test('PostgreSQL restarted while an SMSC holds its answer: the messages it then accepts are recorded sent once it is back, none sent twice (the smpp package\'s server)', { timeout: 240_000 }, async (t) => {
    // The SMSC holds its submit_sm answers until let go.
    let holding = true;
    const smsc = await startSmsc(() => holding);
    let server: Server | undefined;
    try {
      const { cluster, env, query } = await setUp('outage_sms');
      server = await startServe(env);
      const output = server.output;
      const alice = apiClient(server.base, basic('alice', 'alice-pw'));
      const admin = apiClient(server.base, basic('admin', 'admin-pw'));
      const campaign = await smsCampaign(alice, (await smsc.gateway(admin)).url);
      // The driver submits a batch's messages one after the other: the first is at the SMSC, unanswered.
      await until(async () => `no submit_sm came\n${output().slice(-3000)}`, 60_000, async () => smsc.held.length > 0);

      // The database goes down; the SMSC then accepts that message and the rest of the batch.
      cluster.stop();
      holding = false;
      for (const answer of smsc.held.splice(0)) answer();
      await new Promise((resolve) => setTimeout(resolve, 6000));
      cluster.start();
      t.diagnostic(`PostgreSQL stopped for 6 s; the SMSC accepted ${smsc.submits()} message(s) meanwhile`);

      await until(
        async () => `campaign ${JSON.stringify(await alice('GET', `/rest-api/sms-campaigns/${campaign.id}/`).catch(String))}\n${output().slice(-3000)}`,
        90_000,
        async () => (await alice('GET', `/rest-api/sms-campaigns/${campaign.id}/`)).status === 4,
      );
      assert.match(output(), /recording \d+ SMS result\(s\): the database is out of reach \(/, 'the results came while the database was down');
      assert.equal(smsc.submits(), 6, 'the SMSC got each message once');
      const messages = await query(`select status, error, count(*)::int as n from sms_messages where sms_campaign_id = ${campaign.id} group by status, error`);
      assert.deepEqual(messages, [{ status: 'sent', error: '', n: 6 }], 'every message recorded sent, none failed ENGINE_RESTART');
      await ended(server, query, campaign.id);
    } finally {
      await smsc.close(server);
    }
  });
}
