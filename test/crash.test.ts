/**
 * Crash safety with the real process (issue 5 §11): `serve` is killed with SIGKILL while calls
 * are in flight, then started again on the same database. The calls that were CALLING must end
 * as FAILURE (ENGINE_RESTART) and be retried per policy, no subscriber may stay IN_PROCESS, and
 * no subscriber may be dialled twice in one attempt. On PostgreSQL, also two engine processes
 * (and an API process) sharing one campaign. Everything is set up through the CLI and the API.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { type SQL, sql } from 'drizzle-orm';
import { type Database, openDatabase, queryRows } from '../src/db/database.ts';
import { type Api, apiClient, createUsers, type Env, freshEnv, reminderCalendar, type Server, simulatorCampaign, startServe, stop } from './cli-process.ts';
import { startSmsc } from './smsc.ts';
import { basic, dbLabel, onPostgres, until } from './helpers.ts';
import { invitedCallIds, startTracedSipp } from './sip/peers.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-crash-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

const adminAuth = basic('boss', 'boss-pw');

/** A database of its own: DATA_DIR `name` under this file's directory, and on PostgreSQL a fresh database. */
const envOf = (name: string): Promise<Env> => freshEnv(path.join(root, name));

/** A simulator campaign of alice's (the gateway the admin's), started: simulatorCampaign in cli-process.ts. */
const setUpCampaign = (base: string, opts: Omit<Parameters<typeof simulatorCampaign>[2], 'name'>): Promise<number> =>
  simulatorCampaign(apiClient(base, adminAuth), apiClient(base, basic('alice', 'alice-pw')), { name: 'crash', ...opts });

/** The database the processes share, opened by the test (on PGlite: only while no process runs). */
const openShared = (env: Env): Promise<Database> =>
  openDatabase(env.DATABASE_URL ? { url: env.DATABASE_URL, poolSize: 2 } : { dataDir: env.DATA_DIR as string });

interface Row {
  subscriber_id: number;
  attempt: number;
  n: number;
}

/** Subscribers dialled more than once in one attempt (must be none). */
const dialledTwice = (db: Database['db'], campaignId: number) =>
  queryRows<Row>(
    db,
    sql`select subscriber_id, attempt, count(*)::int as n from callrequests where campaign_id = ${campaignId}
        group by subscriber_id, attempt having count(*) > 1`,
  );

test(`after kill -9 mid-campaign and a restart, calls in flight end as ENGINE_RESTART failures and nobody is dialled twice (${dbLabel})`, async (t) => {
  const env = await envOf('kill');
  await createUsers(env);
  const first = await startServe(env);
  const campaignId = await setUpCampaign(first.base, {
    contacts: 20,
    // Every call rings 4 s then plays a 1 s message: calls are in flight when the process dies.
    gateway: { answer_rate: 1, busy_rate: 0, noanswer_rate: 0, machine_rate: 0, ring_seconds: [4, 4], talk_seconds: [30, 30] },
    campaign: { frequency: 300, maxretry: 1, intervalretry: 3600 },
  });
  const api = apiClient(first.base, basic('alice', 'alice-pw'));
  let calling: number[] = [];
  await until(first.output, 30_000, async () => {
    const page = await api('GET', `/rest-api/callrequest/?campaign_id=${campaignId}&status=7&page_size=1000`);
    calling = (page.results as { id: number }[]).map((r) => r.id);
    return page.count >= 3;
  });
  first.child.kill('SIGKILL');
  await first.exited;
  if (!onPostgres) {
    const lock = JSON.parse(fs.readFileSync(path.join(env.DATA_DIR as string, 'campaign-dialer.lock'), 'utf8')) as { pid: number };
    assert.equal(lock.pid, first.child.pid, 'the killed process left its lock file behind');
  }

  // The restart takes over the dead process's lock (PGlite) and recovers its calls.
  const restartedAt = Date.now();
  const second = await startServe(env);
  const api2 = apiClient(second.base, basic('alice', 'alice-pw'));
  // PGlite recovers at start; PostgreSQL once the dead engine's heartbeat is stale (15 s).
  // Settled: every subscriber dialled once, none IN_PROCESS, no call CALLING.
  type Sub = { status: number; count_attempt: number };
  const subscribersOf = (): Promise<Sub[]> => api2('GET', `/rest-api/subscriber-list/?campaign_id=${campaignId}`);
  const settling = async () => `${second.output().slice(-3000)}\nsubscribers: ${JSON.stringify((await subscribersOf()).map((s) => [s.status, s.count_attempt]))}`;
  await until(settling, 90_000, async () => {
    const subs = await subscribersOf();
    const open = await api2('GET', `/rest-api/callrequest/?campaign_id=${campaignId}&status=7`);
    return subs.length === 20 && open.count === 0 && subs.every((s) => s.status !== 6 && s.count_attempt > 0);
  });
  t.diagnostic(`${calling.length} calls CALLING at the kill; settled ${Date.now() - restartedAt} ms after the restart`);
  // The retries (due an hour later) keep the killed calls' subscribers PENDING: stop and read.
  await stop(second);
  assert.match(second.output(), /closed \d+ call\(s\) left in flight/, second.output());

  const database = await openShared(env);
  try {
    const db = database.db;
    const requests = await queryRows<{ id: number; subscriber_id: number; status: number; hangup_cause: string; attempt: number }>(
      db,
      sql`select id, subscriber_id, status, hangup_cause, attempt from callrequests where campaign_id = ${campaignId} order by id`,
    );
    const byId = new Map(requests.map((r) => [Number(r.id), r]));
    for (const id of calling) {
      assert.deepEqual([byId.get(id)?.status, byId.get(id)?.hangup_cause], [2, 'ENGINE_RESTART'], `callrequest ${id} was CALLING at the kill`);
    }
    const restarted = requests.filter((r) => r.hangup_cause === 'ENGINE_RESTART');
    assert.ok(restarted.every((r) => r.status === 2), JSON.stringify(restarted));
    assert.deepEqual(requests.filter((r) => r.status !== 2 && r.status !== 4), [], 'every call is closed');
    assert.deepEqual(await dialledTwice(db, campaignId), []);
    assert.equal(new Set(requests.map((r) => r.subscriber_id)).size, 20, 'every subscriber was dialled');
    assert.equal(requests.length, 20, 'once each: the retries are due an hour later');

    const subs = await queryRows<{ id: number; status: number; count_attempt: number; reason: string }>(
      db,
      sql`select id, status, count_attempt, reason from subscribers where campaign_id = ${campaignId} order by id`,
    );
    const restartedSubs = new Set(restarted.map((r) => Number(r.subscriber_id)));
    for (const s of subs) {
      const expected = restartedSubs.has(Number(s.id)) ? [1, 1, 'ENGINE_RESTART'] : [5, 1, ''];
      assert.deepEqual([s.status, s.count_attempt, s.reason], expected, `subscriber ${s.id}`);
    }
    const cdrs = await queryRows<{ n: number }>(
      db,
      sql`select count(*)::int as n from cdrs where campaign_id = ${campaignId} and leg_type = 1 and billsec = 0 and disposition = 'FAILED'`,
    );
    assert.equal(cdrs[0].n, restarted.length, 'each closed call leaves an A-leg CDR');
  } finally {
    await database.close();
  }
});

test(`after kill -9 while an appointment reminder SMS waits for the SMSC's answer, the restart fails it for good and never sends it again (${dbLabel}, the smpp package's server)`, async (t) => {
  // The SMSC holds its answer to the first submit_sm (the server is killed meanwhile), and
  // answers any later one at once.
  let holding = true;
  const smsc = await startSmsc(() => holding);
  try {
    const env = await envOf('reminder');
    await createUsers(env);
    const first = await startServe(env);
    const gateway = await smsc.gateway(apiClient(first.base, adminAuth));
    // One retry, a second after a failure: a reminder taken for not sent would go again at once.
    const alarm = await (await reminderCalendar(apiClient(first.base, basic('alice', 'alice-pw')), { sms_gateway: gateway.id }))({
      method: 2,
      alarm_phonenumber: '+12035550100',
      maxretry: 1,
      retry_delay: 1,
    });
    await until(first.output, 30_000, async () => smsc.held.length === 1);
    first.child.kill('SIGKILL');
    await first.exited;
    holding = false;

    const restartedAt = Date.now();
    const second = await startServe(env);
    const alice2 = apiClient(second.base, basic('alice', 'alice-pw'));
    const requests = async () => (await alice2('GET', `/rest-api/alarm-request/?alarm=${alarm.id}`)).results as { status: number; detail: string }[];
    // PGlite recovers at start; PostgreSQL once the dead engine's heartbeat is stale (15 s).
    await until(
      () => `${second.output().slice(-3000)}\nsubmits: ${JSON.stringify([...smsc.to])}`,
      90_000,
      async () => (await requests())[0]?.status === 3,
    );
    t.diagnostic(`the reminder's attempt settled ${Date.now() - restartedAt} ms after the restart`);
    const [attempt, ...more] = await requests();
    assert.deepEqual(more, [], 'one attempt');
    const m = /^sms not sent again: message (\d+) may have reached the gateway before its engine lost it \(ENGINE_RESTART\)$/.exec(attempt.detail);
    assert.ok(m, attempt.detail);
    const message = await alice2('GET', `/rest-api/sms-message/${m[1]}/`);
    assert.deepEqual([message.status, message.error, Number(message.cost)], ['failed', 'ENGINE_RESTART', 0], 'the message failed, free');
    assert.equal((await alice2('GET', `/rest-api/alarm/${alarm.id}/`)).status, 3, 'the alarm FAILURE, its retry not used');
    // A retry would be due a second after the failure: give it three.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    assert.deepEqual([...smsc.to.entries()], [['12035550100', 1]], 'the SMSC got the reminder once');
    assert.equal((await requests()).length, 1, 'no attempt since');
    await stop(second);
  } finally {
    await smsc.close(undefined);
  }
});

if (onPostgres) {
  test('two engine processes and an API process on one PostgreSQL share a campaign without dialling anyone twice (PostgreSQL)', async () => {
    const env = await envOf('pair');
    await createUsers(env);
    const apiProc = await startServe(env, 'api');
    const engines = await Promise.all([startServe(env, 'engine'), startServe(env, 'engine')]);
    const database = await openShared(env);
    try {
      const db = database.db;
      await until(() => engines.map((e) => e.output()).join('\n'), 30_000, async () => {
        const [n] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from engine_heartbeats`);
        return n.n >= 2;
      });
      const campaignId = await setUpCampaign(apiProc.base, {
        contacts: 120,
        gateway: { answer_rate: 0.6, busy_rate: 0.2, noanswer_rate: 0.1, ring_seconds: [0, 1], talk_seconds: [1, 2] },
        campaign: { frequency: 6000, maxretry: 1, intervalretry: 1, calltimeout: 2, end_when_done: true },
      });
      const api = apiClient(apiProc.base, basic('alice', 'alice-pw'));
      await until(() => engines.map((e) => e.output()).join('\n'), 90_000, async () => {
        const campaign = await api('GET', `/rest-api/campaigns/${campaignId}/`);
        return campaign.status === 4;
      });
      assert.deepEqual(await dialledTwice(db, campaignId), []);
      const byEngine = await queryRows<{ engine_id: string; n: number }>(
        db,
        sql`select engine_id, count(*)::int as n from callrequests where campaign_id = ${campaignId} group by engine_id`,
      );
      assert.equal(byEngine.length, 2, `both engines dialled: ${JSON.stringify(byEngine)}`);
      const open = await queryRows<{ status: number; n: number }>(
        db,
        sql`select status, count(*)::int as n from subscribers where campaign_id = ${campaignId} and status not in (4, 5, 8) group by status`,
      );
      assert.deepEqual(open, [], 'every subscriber is final');
      const attempts = await queryRows<{ bad: number }>(
        db,
        sql`select count(*)::int as bad from subscribers s where s.campaign_id = ${campaignId}
            and s.count_attempt <> (select count(*) from callrequests r where r.subscriber_id = s.id)`,
      );
      assert.equal(attempts[0].bad, 0, 'count_attempt counts the calls placed');
    } finally {
      await database.close();
      for (const p of [apiProc, ...engines]) p.child.kill('SIGTERM');
      await Promise.all([apiProc, ...engines].map((p) => p.exited));
    }
  });

  /**
   * Two engine processes (and an API process) with long calls in flight on both; `stall` stops
   * and continues them (SIGSTOP, SIGCONT: a process that stalls without dying, as a paused VM or
   * a database out of reach makes it). Then the campaign must end with every subscriber final,
   * count_attempt the calls placed, and each call written once: one A-leg CDR and one
   * call.completed. Returns the calls closed as ENGINE_RESTART.
   */
  const stalledPair = async (name: string, stall: (engines: Server[]) => Promise<void>, log?: RegExp, settings: Env = {}): Promise<{ restarted: number; output: string }> => {
    const env = { ...(await envOf(name)), ...settings };
    await createUsers(env);
    const apiProc = await startServe(env, 'api');
    const engines = await Promise.all([startServe(env, 'engine'), startServe(env, 'engine')]);
    const output = () => engines.map((e) => e.output()).join('\n');
    const database = await openShared(env);
    try {
      const db = database.db;
      await until(output, 30_000, async () => (await queryRows<{ n: number }>(db, sql`select count(*)::int as n from engine_heartbeats`))[0].n >= 2);
      const campaignId = await setUpCampaign(apiProc.base, {
        contacts: 20,
        // Ten calls a second, each ringing 3 s then playing a 1 s message: the claims spread over
        // two seconds of passes, so both engines claim some and have them up at once.
        gateway: { answer_rate: 1, ring_seconds: [3, 3], talk_seconds: [30, 30] },
        campaign: { frequency: 600, maxretry: 1, intervalretry: 1, end_when_done: true },
      });
      // Both engines have calls up.
      await until(output, 30_000, async () => {
        const rows = await queryRows<{ engine_id: string }>(db, sql`select distinct engine_id from callrequests where campaign_id = ${campaignId} and status = 7`);
        return engines.every((e) => rows.some((r) => r.engine_id.includes(`-${e.child.pid}-`)));
      });
      await stall(engines);
      const api = apiClient(apiProc.base, basic('alice', 'alice-pw'));
      await until(output, 120_000, async () => (await api('GET', `/rest-api/campaigns/${campaignId}/`)).status === 4);
      const count = async (query: ReturnType<typeof sql>) => (await queryRows<{ n: number }>(db, query))[0].n;
      const calls = await count(sql`select count(*)::int as n from callrequests where campaign_id = ${campaignId}`);
      assert.equal(await count(sql`select count(*)::int as n from subscribers where campaign_id = ${campaignId} and status not in (4, 5, 8)`), 0, 'every subscriber final');
      assert.equal(
        await count(sql`select count(*)::int as n from subscribers s where campaign_id = ${campaignId} and count_attempt <> (select count(*) from callrequests r where r.subscriber_id = s.id)`),
        0,
        'count_attempt counts the calls placed',
      );
      assert.deepEqual(await dialledTwice(db, campaignId), []);
      assert.equal(await count(sql`select count(*)::int as n from cdrs where campaign_id = ${campaignId} and leg_type = 1`), calls, `one A-leg CDR a call (${calls} calls)`);
      assert.equal(await count(sql`select count(distinct callrequest_id)::int as n from cdrs where campaign_id = ${campaignId}`), calls, 'a CDR for each call');
      assert.equal(await count(sql`select count(*)::int as n from events where type = 'call.completed' and campaign_id = ${campaignId}`), calls, 'one call.completed a call');
      const restarted = await count(sql`select count(*)::int as n from callrequests where campaign_id = ${campaignId} and hangup_cause = 'ENGINE_RESTART'`);
      // A line an engine logs at its next heartbeat, which may come after the campaign's end.
      if (log) await until(output, 15_000, async () => log.test(output()));
      return { restarted, output: output() };
    } finally {
      await database.close();
      for (const p of [apiProc, ...engines]) p.child.kill('SIGCONT');
      for (const p of [apiProc, ...engines]) p.child.kill('SIGTERM');
      await Promise.all([apiProc, ...engines].map((p) => p.exited));
    }
  };

  test('an engine stalled past its heartbeat: another closes its calls and retries them; its late outcomes are not written again (PostgreSQL)', { timeout: 240_000 }, async () => {
    const { restarted, output } = await stalledPair('stalled-one', async ([a]) => {
      a.child.kill('SIGSTOP');
      // The other engine takes it for dead (12 s silent, ENGINE_STALE_SECONDS, at its next recovery) and closes its calls.
      await new Promise((resolve) => setTimeout(resolve, 30_000));
      a.child.kill('SIGCONT');
    }, /no heartbeat for \d+ s/, { ENGINE_STALE_SECONDS: '12' });
    assert.ok(restarted > 0, 'the stalled engine\'s calls were closed as ENGINE_RESTART');
    assert.ok(/no heartbeat for \d+ s/.test(output), `the stalled engine said it had been silent:\n${output.slice(-3000)}`);
    assert.match(output, /it takes no other engine for dead for 12 s/, 'ENGINE_STALE_SECONDS reached the engines');
    assert.doesNotMatch(output, /hung up its \d+ call\(s\) in flight/, 'a stall of the process itself does not fence: its heartbeat after it decides');
  });

  test('two engines stalled together, one back before the other: neither takes the other for dead (PostgreSQL)', { timeout: 240_000 }, async () => {
    const { restarted, output } = await stalledPair('stalled-both', async ([a, b]) => {
      a.child.kill('SIGSTOP');
      b.child.kill('SIGSTOP');
      await new Promise((resolve) => setTimeout(resolve, 20_000));
      b.child.kill('SIGCONT');
      await new Promise((resolve) => setTimeout(resolve, 3000));
      a.child.kill('SIGCONT');
    });
    assert.equal(restarted, 0, 'no call closed as ENGINE_RESTART');
    assert.doesNotMatch(output, /hung up its \d+ call\(s\) in flight/, 'nor hung up by a fence: the stall was the processes\' own');
  });

  /** What a stalled-queue test reads: the shared database, engine A (the one stopped), and what every process printed. */
  interface Queued {
    db: Database['db'];
    count: (query: SQL) => Promise<number>;
    a: Server;
    output: () => string;
  }

  /**
   * An API process and one engine (A) on a fresh database. `start` makes a started campaign
   * through the API. Once `queued` holds (A has claimed work still waiting in its driver), A is
   * stopped (SIGSTOP) and `atStop` runs; another engine is started, takes A for dead (15 s
   * silent) and settles what A had claimed (`claimedByA` counts it, until none is left). Then A
   * continues; the campaign runs to its end (`ended`), and 3 s more, since A's queue was due at
   * once; then `check`.
   */
  const stalledWithQueue = async <T,>(
    name: string,
    steps: {
      start: (admin: Api, alice: Api) => Promise<{ ended: () => Promise<boolean> }>;
      queued: (q: Queued) => Promise<boolean>;
      claimedByA: (q: Queued) => SQL;
      atStop: (q: Queued) => Promise<T>;
      check: (q: Queued, atStop: T) => Promise<void>;
    },
  ): Promise<void> => {
    const env = await envOf(name);
    await createUsers(env);
    const apiProc = await startServe(env, 'api');
    const a = await startServe(env, 'engine');
    const procs = [apiProc, a];
    const output = () => procs.map((p) => p.output()).join('\n');
    const database = await openShared(env);
    try {
      const db = database.db;
      const q: Queued = { db, a, output, count: async (query) => (await queryRows<{ n: number }>(db, query))[0].n };
      const { ended } = await steps.start(apiClient(apiProc.base, adminAuth), apiClient(apiProc.base, basic('alice', 'alice-pw')));
      await until(output, 30_000, () => steps.queued(q));
      a.child.kill('SIGSTOP');
      await new Promise((resolve) => setTimeout(resolve, 500));
      const atStop = await steps.atStop(q);
      procs.push(await startServe(env, 'engine'));
      await until(output, 60_000, async () => (await q.count(steps.claimedByA(q))) === 0);
      a.child.kill('SIGCONT');
      await until(output, 120_000, ended);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      await steps.check(q, atStop);
    } finally {
      await database.close();
      for (const p of procs) p.child.kill('SIGCONT');
      for (const p of procs) p.child.kill('SIGTERM');
      await Promise.all(procs.map((p) => p.exited));
    }
  };

  /** A's pid as it appears in its engine id (host-pid-random). */
  const engineOf = (a: Server) => `%-${a.child.pid}-%`;

  test('an engine stalled with calls waiting in its sip driver\'s CPS queue sends none of those another engine closed meanwhile (PostgreSQL, sipp)', { timeout: 240_000 }, async () => {
    const { sipp, messages, trace } = await startTracedSipp('carrier.xml', root, path.join(root, 'stalled-queue-sipp.log'));
    let campaignId = 0;
    try {
      await stalledWithQueue('stalled-queue', {
        async start(admin, alice) {
          // Eight calls claimed at once, sent one a second (cps 1); the numbers (…X000) all answer and wait for our BYE.
          campaignId = await simulatorCampaign(admin, alice, {
            name: 'crash',
            contacts: 8,
            numbers: Array.from({ length: 8 }, (_, i) => `+1203555${i}000`),
            driver: 'sip',
            gateway: { proxy: `127.0.0.1:${sipp.port}`, cps: 1, bind_address: '127.0.0.1', bind_port: 0 },
            campaign: { frequency: 6000, maxretry: 1, intervalretry: 1, calltimeout: 10, end_when_done: true },
          });
          return { ended: async () => (await alice('GET', `/rest-api/campaigns/${campaignId}/`)).status === 4 };
        },
        queued: async ({ count }) => (await count(sql`select count(*)::int as n from callrequests where campaign_id = ${campaignId} and status = 7`)) === 8 && invitedCallIds(messages()).size >= 2,
        claimedByA: ({ a }) => sql`select count(*)::int as n from callrequests where campaign_id = ${campaignId} and status = 7 and engine_id like ${engineOf(a)}`,
        // What sipp got by the stop was sent before it.
        async atStop() {
          const before = invitedCallIds(messages());
          assert.ok(before.size < 8, `calls still queued at the stop (${before.size} of 8 sent)`);
          return before;
        },
        async check({ db, count, a, output }, before) {
          const calls = await queryRows<{ call_uuid: string; hangup_cause: string }>(db, sql`select call_uuid, hangup_cause from callrequests where campaign_id = ${campaignId}`);
          const closed = calls.filter((r) => r.hangup_cause === 'ENGINE_RESTART').map((r) => r.call_uuid);
          assert.ok(closed.length >= 8 - before.size, `the stopped engine's queued calls were closed as ENGINE_RESTART (${closed.length})`);
          const invited = invitedCallIds(messages());
          const sentLate = closed.filter((id) => invited.has(id) && !before.has(id));
          assert.deepEqual(sentLate, [], `INVITEs sent for calls another engine had closed:\n${output().slice(-3000)}\n${trace().slice(-2000)}`);
          assert.match(a.output(), /were closed by another engine while this one was silent; not placed/);
          // The retries were placed (by either engine): every subscriber final, each call once.
          assert.equal(await count(sql`select count(*)::int as n from subscribers where campaign_id = ${campaignId} and status not in (4, 5, 8)`), 0, 'every subscriber final');
          assert.deepEqual(await dialledTwice(db, campaignId), []);
          const retries = calls.filter((r) => r.hangup_cause !== 'ENGINE_RESTART').map((r) => r.call_uuid);
          assert.deepEqual([...invited].sort(), [...before, ...retries].sort(), 'sipp got the INVITEs sent before the stop and the retries, no more');
        },
      });
    } finally {
      await sipp.stop();
    }
  });

  test('an engine stalled with SMS waiting for its SMPP throughput sends none of those another engine settled meanwhile (PostgreSQL, the smpp package\'s server)', { timeout: 240_000 }, async () => {
    // The SMSC answers every bind and submit_sm at once.
    const smsc = await startSmsc();
    let campaignId = 0;
    const sentMessages = () => sql`select count(*)::int as n from sms_messages where sms_campaign_id = ${campaignId} and status in ('sent', 'delivered')`;
    const claimedByA = ({ a }: Queued) => sql`select count(*)::int as n from sms_messages where engine_id like ${engineOf(a)} and status = 'unsent'`;
    try {
      await stalledWithQueue('stalled-sms', {
        async start(admin, alice) {
          // One submit_sm a second: the messages claimed wait their turn in the driver.
          const gateway = await smsc.gateway(admin, { throughput: 1 });
          const book = await alice('POST', '/rest-api/phonebook/', { name: 'sms' });
          await alice('POST', '/rest-api/bulkcontact/', { phonebook_id: String(book.id), phoneno_list: Array.from({ length: 8 }, (_, i) => `+1203555${String(i).padStart(4, '0')}`).join(',') });
          const campaign = await alice('POST', '/rest-api/sms-campaigns/', {
            name: 'sms', sms_gateway: gateway.url, text_message: 'Hello', phonebook: [book.url], status: 1, frequency: 6000, maxretry: 1, intervalretry: 1, end_when_done: true,
          });
          campaignId = campaign.id;
          return { ended: async () => (await alice('GET', `/rest-api/sms-campaigns/${campaignId}/`)).status === 4 };
        },
        claimedByA,
        queued: async (q) => smsc.submits() >= 2 && (await q.count(claimedByA(q))) >= 3,
        atStop: async ({ count }) => ({ before: smsc.submits(), sentBefore: await count(sentMessages()) }),
        async check({ count, a, output }, { before, sentBefore }) {
          const settled = await count(sql`select count(*)::int as n from sms_messages where sms_campaign_id = ${campaignId} and error = 'ENGINE_RESTART'`);
          assert.ok(settled > 0, 'the stopped engine\'s messages were settled as ENGINE_RESTART');
          assert.equal(await count(sql`select count(*)::int as n from sms_subscribers where sms_campaign_id = ${campaignId} and status not in (4, 5, 8)`), 0, 'every subscriber final');
          const sentSince = (await count(sentMessages())) - sentBefore;
          assert.equal(smsc.submits(), before + sentSince, `the SMSC got the messages submitted before the stop and those sent since, no more:\n${output().slice(-3000)}`);
          assert.match(a.output(), /was settled by another engine while this one was silent; not sent/);
        },
      });
    } finally {
      await smsc.close(undefined);
    }
  });
}
