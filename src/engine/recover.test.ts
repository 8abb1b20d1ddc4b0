import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { type Database, openDatabase, queryRows } from '../db/database.ts';
import { callrequests, campaignPhonebooks, contacts, phonebooks, subscribers } from '../db/schema.ts';
import { dbLabel, eventually, onPostgres, testDatabase } from '../../test/helpers.ts';
import { makeEngine } from '../../test/factories.ts';
import { pass, scenario } from './engine.fixtures.ts';
import { ScriptedDriver } from '../drivers/voice/scripted.ts';
import { ManualClock } from '../clock.ts';
import type { Call, Hangup, OriginateRequest, TelephonyDriver } from '../drivers/voice/driver.ts';

const database = await testDatabase();
const db = database.db;

test(`recover() closes calls left CALLING by a dead engine as ENGINE_RESTART failures, retried per policy (${dbLabel})`, async () => {
  const s = await scenario(db, { campaign: { maxretry: 1, frequency: 6 }, numbers: ['+15550001', '+15550002'] });
  const [a, b] = s.subscriberIds;
  await db.update(subscribers).set({ status: 6, count_attempt: 1 }).where(eq(subscribers.id, a));
  await db.update(subscribers).set({ status: 6, count_attempt: 2 }).where(eq(subscribers.id, b));
  await db.insert(callrequests).values(
    [a, b].map((id, i) => ({ campaign_id: s.campaignId, subscriber_id: id, status: 7, call_uuid: `dead-${id}`, phone_number: `+1555000${i + 1}`, phone_key: `1555000${i + 1}`, engine_id: 'dead-engine' })),
  );
  assert.equal(await s.engine.recover(), 2);
  const subs = await db.select().from(subscribers).where(eq(subscribers.campaign_id, s.campaignId)).orderBy(subscribers.id);
  assert.deepEqual(subs.map((x) => x.status), [1, 4], JSON.stringify(subs));
  const reqs = await queryRows<{ status: number; hangup_cause: string }>(
    db,
    sql`select status, hangup_cause from callrequests where campaign_id = ${s.campaignId} order by id`,
  );
  assert.deepEqual(reqs, [
    { status: 2, hangup_cause: 'ENGINE_RESTART' },
    { status: 2, hangup_cause: 'ENGINE_RESTART' },
  ]);
  const cdrs = await queryRows<{ billsec: number; leg_type: number }>(db, sql`select billsec, leg_type from cdrs where campaign_id = ${s.campaignId}`);
  assert.deepEqual(cdrs, [{ billsec: 0, leg_type: 1 }, { billsec: 0, leg_type: 1 }]);
  await s.clock.advance(300_000);
  assert.equal(await pass(s), 1, 'the retry is dialled once, intervalretry later');
});

test(`recover() puts back PENDING a subscriber left IN_PROCESS with no call in flight (a hand-edited row) (${dbLabel})`, async () => {
  const s = await scenario(db, { numbers: ['+15550011', '+15550012'] });
  const [a, b] = s.subscriberIds;
  await db.update(subscribers).set({ status: 6 }).where(eq(subscribers.id, a));
  await db.update(subscribers).set({ status: 8 }).where(eq(subscribers.id, b));
  assert.equal(await s.engine.recover(), 0, 'no call was in flight');
  const subs = await db.select().from(subscribers).where(eq(subscribers.campaign_id, s.campaignId)).orderBy(subscribers.id);
  assert.deepEqual(subs.map((x) => x.status), [1, 8], JSON.stringify(subs));
});

test(`a contact added to a phonebook of a running campaign joins it and is called (${dbLabel})`, async () => {
  // Spooling stamps next_attempt_at with the database's now(): the test clock runs ahead of it.
  const s = await scenario(db, { numbers: ['+15550001'], clockAt: '2099-01-05T09:00:00Z', campaign: { expirationdate: '2099-12-31T00:00:00Z' } });
  const [book] = await db.insert(phonebooks).values({ name: 'pb', user_id: s.userId }).returning();
  await db.insert(campaignPhonebooks).values({ campaign_id: s.campaignId, phonebook_id: book.id });
  assert.equal(await pass(s), 1);
  await db.insert(contacts).values({ phonebook_id: book.id, contact: '+15550777', phone_key: '15550777' });
  await s.clock.advance(1000);
  const r = await s.engine.runOnce();
  await s.engine.settle();
  assert.equal(r.joined, 1);
  assert.equal(r.started, 1);
  assert.equal(s.driver.calls.at(-1)?.request.to, '+15550777');
});

test(`two engines sharing a campaign never dial a subscriber twice (${dbLabel})`, async () => {
  const numbers = Array.from({ length: 30 }, (_, i) => `+1555100${String(i).padStart(2, '0')}`);
  const s = await scenario(db, { numbers });
  // On PostgreSQL the second engine has its own connection pool, as a second process would.
  let second: Database | undefined;
  if (onPostgres) second = await openDatabase({ url: (database as { url?: string }).url, poolSize: 3 });
  const driverB = new ScriptedDriver(s.clock);
  const other = makeEngine(second?.db ?? db, s.clock, { driver: driverB, engineId: 'engine-b' });
  try {
    for (let i = 0; i < 40; i++) {
      await Promise.all([s.engine.runOnce(), other.runOnce()]);
      await Promise.all([s.engine.settle(), other.settle()]);
      await s.clock.advance(50);
    }
  } finally {
    await second?.close();
  }
  const dialled = [...s.driver.calls, ...driverB.calls].map((c) => c.request.to).sort();
  assert.deepEqual(dialled, numbers);
  const twice = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from callrequests where campaign_id = ${s.campaignId} group by subscriber_id having count(*) > 1`,
  );
  assert.deepEqual(twice, []);
});

test(`engines judge heartbeats on the database's clock: a live engine whose clock is years behind is not taken for dead, a silent one is (${dbLabel})`, async () => {
  // The scenario's engine (B) keeps its test clock, eleven months or more behind the database's;
  // A's clock is years further behind; the silent and the quiet engines never ran here. On each
  // engine's own clock, B took A for dead (its beat years old) and the silent one for alive (its
  // beat "in B's future").
  const s = await scenario(db, { numbers: ['+15550031', '+15550032', '+15550033'] });
  const tag = Math.random().toString(36).slice(2, 8);
  const ids = { live: `engine-behind-${tag}`, silent: `engine-silent-${tag}`, quiet: `engine-quiet-${tag}` };
  const a = makeEngine(db, new ManualClock('2020-01-01T00:00:00Z'), { driver: new ScriptedDriver(s.clock), engineId: ids.live });
  await a.recover(); // beats
  await db.execute(sql`insert into engine_heartbeats (engine_id, heartbeat_at) values
    (${ids.silent}, now() - interval '20 seconds'), (${ids.quiet}, now() - interval '5 seconds')`);
  const owners = [ids.live, ids.silent, ids.quiet];
  await db.update(subscribers).set({ status: 6, count_attempt: 1 }).where(eq(subscribers.campaign_id, s.campaignId));
  await db.insert(callrequests).values(
    s.subscriberIds.map((id, i) => ({ campaign_id: s.campaignId, subscriber_id: id, status: 7, call_uuid: `${owners[i]}-call`, phone_number: `+1555003${i + 1}`, phone_key: `1555003${i + 1}`, engine_id: owners[i] })),
  );
  try {
    assert.equal(await s.engine.recover(), 1, 'only the silent engine is dead');
    const reqs = await queryRows<{ engine_id: string; status: number; hangup_cause: string }>(
      db,
      sql`select engine_id, status, hangup_cause from callrequests where campaign_id = ${s.campaignId} order by subscriber_id`,
    );
    assert.deepEqual(reqs, [
      { engine_id: ids.live, status: 7, hangup_cause: '' },
      { engine_id: ids.silent, status: 2, hangup_cause: 'ENGINE_RESTART' },
      { engine_id: ids.quiet, status: 7, hangup_cause: '' },
    ]);
  } finally {
    // The live and quiet engines' calls would be another test's orphans once their beats are stale.
    await db.execute(sql`delete from callrequests where campaign_id = ${s.campaignId} and status = 7`);
    await db.execute(sql`delete from engine_heartbeats where engine_id in (${ids.live}, ${ids.silent}, ${ids.quiet})`);
  }
});

/**
 * A carrier line that holds every call until `open()`, as FreeSWITCH's driver holds them while
 * its connection is re-made, and then asks the engine whether each may still go out
 * (OriginateRequest.mayDial). A call let through is busy; one refused ends ORIGINATOR_CANCEL.
 */
class HeldLine implements TelephonyDriver {
  readonly name = 'held';
  readonly placed: string[] = [];
  readonly refused: string[] = [];
  open!: () => void;
  private readonly back = new Promise<void>((resolve) => (this.open = resolve));

  originate(request: OriginateRequest): Call {
    const at = new Date();
    const hangup = (cause: number, causeName: string): Hangup => ({ cause, causeName, startedAt: at, answeredAt: null, endedAt: at, duration: 0, billsec: 0 });
    const ended = this.back.then(async () => {
      const may = request.mayDial?.() ?? true;
      if (may === true || (await may)) {
        this.placed.push(request.to);
        return hangup(17, 'USER_BUSY');
      }
      this.refused.push(request.to);
      return hangup(487, 'ORIGINATOR_CANCEL');
    });
    const none = async () => {
      throw new Error('never answered');
    };
    return { callId: request.callId, answered: ended.then((h) => ({ answered: false, hangup: h })), ended, play: none, collect: none, record: none, listen: none, transfer: none, bridge: none, hangup: async () => {} };
  }

  async close(): Promise<void> {}
}

test(`after a silence, the calls a driver lets through at once share one check: those another engine closed are not placed, the others are (${dbLabel})`, async () => {
  const numbers = Array.from({ length: 20 }, (_, i) => `+1555004${String(i).padStart(2, '0')}`);
  const s = await scenario(db, { numbers, campaign: { frequency: 1_000_000, next_call_at: '2026-01-05T08:59:59Z' } });
  const line = new HeldLine();
  const warnings: string[] = [];
  // Fresh for 200 ms after each heartbeat: the calls below wait longer than that.
  const engine = makeEngine(db, s.clock, { driver: line, staleMs: 600, warn: (m) => warnings.push(m) });
  assert.equal((await engine.runOnce()).started, 20);
  await new Promise((resolve) => setTimeout(resolve, 400));
  // Meanwhile another engine took this one for dead and closed five of its calls (recover.ts).
  const closed = await queryRows<{ id: number; phone_number: string }>(
    db,
    sql`update callrequests set status = 2, hangup_cause = 'ENGINE_RESTART' where id in
      (select id from callrequests where campaign_id = ${s.campaignId} order by id limit 5) returning id, phone_number`,
  );
  line.open();
  await engine.settle();
  assert.deepEqual(line.refused.sort(), closed.map((c) => c.phone_number).sort());
  assert.equal(line.placed.length, 15);
  const said = warnings.filter((w) => w.includes('were closed by another engine while this one was silent; not placed'));
  assert.equal(said.length, 1, `one check for the calls let through together:\n${said.join('\n')}`);
  for (const c of closed) assert.ok(said[0].includes(String(c.id)), said[0]);
});

if (onPostgres) {
  test(`an engine back from a silence while another closes its calls: each call is either closed or placed, never both (PostgreSQL)`, async () => {
    // Three handles, as three processes would have: engine A (back from a silence), engine B
    // (recovering A's calls), and a session that holds a lock on A's first call, so that B's
    // close of it is under way (begun, not committed) while A's heartbeat goes through and A
    // asks which calls are still its own: the window that used to let a call be both.
    const url = (database as { url?: string }).url as string;
    const [dbA, dbHold] = await Promise.all([openDatabase({ url, poolSize: 3 }), openDatabase({ url, poolSize: 1 })]);
    const numbers = ['+15550051', '+15550052', '+15550053'];
    const s = await scenario(db, { numbers, campaign: { frequency: 1_000_000, next_call_at: '2026-01-05T08:59:59Z' } });
    const line = new HeldLine();
    const engineA = `engine-a-${Math.random().toString(36).slice(2, 8)}`;
    const a = makeEngine(dbA.db, s.clock, { driver: line, engineId: engineA, staleMs: 600 });
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const waiting = (like: string) => async () =>
      (await queryRows<{ n: number }>(db, sql`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like ${like}`))[0].n > 0;
    try {
      assert.equal((await a.runOnce()).started, 3);
      const calls = await queryRows<{ id: number; phone_number: string }>(db, sql`select id, phone_number from callrequests where campaign_id = ${s.campaignId} order by id`);
      // A silent 20 s as B sees it; for A itself its heartbeat is no longer fresh (400 ms > 600 / 3).
      await db.execute(sql`update engine_heartbeats set heartbeat_at = now() - interval '20 seconds' where engine_id = ${engineA}`);
      await new Promise((resolve) => setTimeout(resolve, 400));
      let held!: () => void;
      const holding = new Promise<void>((resolve) => (held = resolve));
      const hold = dbHold.db.transaction(async (tx) => {
        await tx.execute(sql`select id from callrequests where id = ${calls[0].id} for update`);
        held();
        await released;
      });
      await holding;
      const recovering = s.engine.recover();
      assert.ok(await eventually(waiting('%update callrequests r set%'), 10_000), 'B is closing A\'s first call');
      line.open();
      // A's heartbeat waits for B's close (or, on the code as it was, went through at once).
      await eventually(waiting('%insert into engine_heartbeats%'), 2000);
      release();
      await hold;
      await recovering;
      await a.settle();
      const closed = (await queryRows<{ phone_number: string }>(db, sql`select phone_number from callrequests where campaign_id = ${s.campaignId} and hangup_cause = 'ENGINE_RESTART'`)).map((r) => r.phone_number);
      assert.ok(closed.includes(calls[0].phone_number), `B closed the call it had begun to close: ${closed}`);
      const both = line.placed.filter((n) => closed.includes(n));
      assert.deepEqual(both, [], `placed by A and closed by B (B retries them): ${both}`);
      assert.deepEqual([...line.placed, ...closed].sort(), numbers, 'every call placed by A or closed by B');
    } finally {
      release();
      line.open();
      await a.settle();
      await Promise.all([dbA.close(), dbHold.close()]);
    }
  });
}
