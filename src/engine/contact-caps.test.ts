/**
 * Contact caps across campaigns and legal calling hours (issue 16, items 3–4), through the
 * engine (scripted driver, fake clock) and the API (the account's settings, the campaign read).
 */
import { phoneKey } from '../http/phone.ts';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { queryRows } from '../db/database.ts';
import type { Config } from '../config.ts';
import { CampaignStatus, campaigns, subscribers } from '../db/schema.ts';
import { makeUser, unique } from '../../test/factories.ts';
import { call, dbLabel, testApp } from '../../test/helpers.ts';
import { Engine } from './engine.ts';
import { pass, type Scenario, scenario, type ScenarioOptions } from './engine.fixtures.ts';

const t = await testApp();
const db = t.database.db;
const admin = await makeUser(db, { admin: true });

const busy = () => ({ failCause: 17 });

/** Sets the account's caps and hours as an admin does (PATCH /rest-api/accounts/<id>/). */
async function setPolicy(userId: number, body: Record<string, unknown>) {
  const res = await call(t.app, admin.auth, 'PATCH', `/rest-api/accounts/${userId}/`, body);
  assert.equal(res.statusCode, 202, res.body);
}

async function subscriberRow(id: number) {
  return (await db.select().from(subscribers).where(eq(subscribers.id, id)))[0];
}

/** The campaign as its owner reads it through the API. */
async function campaignRead(s: Scenario) {
  const res = await call(t.app, s.user.auth, 'GET', `/rest-api/campaigns/${s.campaignId}/`);
  assert.equal(res.statusCode, 200, res.body);
  return res.data as { dialing_state: string; progress: { waiting: Record<string, number>; subscribers: Record<string, number> } };
}

/** The scenario's first subscriber as its owner reads it through the API: status, and why it ended or waits. */
async function subscriberRead(s: Scenario) {
  const res = await call(t.app, s.user.auth, 'GET', `/rest-api/subscriber-list/${s.subscriberIds[0]}/`);
  assert.equal(res.statusCode, 200, res.body);
  const { status, reason, wait_reason } = res.data as { status: number; reason: string; wait_reason: string | null };
  return { status, reason, wait_reason };
}

/** Another START campaign of the scenario's owner (or of `userId`), on its gateway, with `numbers` (read in `country`). */
async function anotherCampaign(
  s: Scenario,
  numbers: string[],
  over: Partial<typeof campaigns.$inferInsert> = {},
  country?: string,
): Promise<{ campaignId: number; subscriberIds: number[] }> {
  const [base] = await db.select().from(campaigns).where(eq(campaigns.id, s.campaignId));
  const { id: _id, campaign_code: _code, ...copy } = base;
  const [c] = await db
    .insert(campaigns)
    .values({ ...copy, campaign_code: unique('X').toUpperCase(), name: unique('camp'), status: CampaignStatus.Start, next_call_at: null, engine_state: null, ...over })
    .returning();
  const subs = await db
    .insert(subscribers)
    .values(numbers.map((n) => ({ campaign_id: c.id, duplicate_contact: n, phone_key: phoneKey(n, country), next_attempt_at: '2026-01-01T00:00:00Z' })))
    .returning({ id: subscribers.id });
  return { campaignId: c.id, subscriberIds: subs.map((r) => r.id) };
}

/** An engine like the scenario's, with instance-wide settings. */
function engineWith(s: Scenario, config: Partial<Pick<Config, 'contactCaps' | 'callingHours'>>): Pick<Scenario, 'engine'> {
  const engine = new Engine({
    db,
    log: { info: () => {}, warn: () => {}, error: (m) => console.error(m) },
    clock: s.clock,
    drivers: () => s.driver,
    config: { timeZone: 'UTC', billingIncrement: 6, ...config },
    databaseKind: 'postgres',
  });
  return { engine };
}

/** A pass, then two more a second apart (a pass's first claim has one slot of pace; a held subscriber uses it up). */
async function passes(s: Pick<Scenario, 'engine' | 'clock'>): Promise<number> {
  let started = 0;
  for (let i = 0; i < 3; i++) {
    if (i) await s.clock.advance(1000);
    started += await pass(s);
  }
  return started;
}

const capped = (opts: ScenarioOptions) => scenario(db, { script: busy, ...opts });

test(`the 8th attempt in 7 days waits PENDING (not FAIL), is counted in the campaign read, and is dialled when the window allows (${dbLabel})`, async () => {
  const s = await capped({ campaign: { maxretry: 20, intervalretry: 3600 }, numbers: ['+12025550101'] });
  await setPolicy(s.userId, { contact_caps: 'regulation_f' });
  for (let i = 0; i < 7; i++) {
    assert.equal(await pass(s), 1, `attempt ${i + 1}`);
    await s.clock.advance(3600_000);
  }
  assert.equal(await pass(s), 0, 'the 8th attempt in 7 days was dialled');
  const row = await subscriberRow(s.subscriberIds[0]);
  assert.equal(row.status, 1, JSON.stringify(row));
  assert.equal(row.count_attempt, 7);
  assert.equal(row.wait_reason, 'attempts');
  assert.equal(new Date(row.next_attempt_at).toISOString(), '2026-01-12T09:00:00.000Z', 'allowed when the first attempt leaves the window');
  assert.deepEqual(await subscriberRead(s), { status: 1, reason: 'USER_BUSY', wait_reason: 'attempts' }, 'the subscriber-list says why it waits and why its last call failed');
  const read = await campaignRead(s);
  assert.deepEqual(read.progress.waiting, { total: 1, attempts: 1, daily: 0, quiet: 0, hours: 0 });
  assert.equal(read.dialing_state, 'waiting: 1 subscriber held (attempts cap 1)');
  await s.clock.set('2026-01-12T08:59:00Z');
  assert.equal(await pass(s), 0);
  await s.clock.set('2026-01-12T09:00:01Z');
  assert.equal(await pass(s), 1, 'not dialled once allowed');
  assert.equal(s.driver.calls.length, 8);
  assert.equal((await subscriberRow(s.subscriberIds[0])).wait_reason, null);
  assert.equal((await subscriberRead(s)).wait_reason, null);
  assert.equal((await campaignRead(s)).progress.waiting.total, 0);
});

test(`attempts are counted across the owner's campaigns, not another owner's; the instance-wide cap counts every owner's (${dbLabel})`, async () => {
  const s = await capped({ numbers: ['+12025550102'] });
  await setPolicy(s.userId, { contact_caps: { attempts: 2, window_days: 7 } });
  assert.equal(await pass(s), 1);
  const second = await anotherCampaign(s, ['+12025550102']);
  assert.equal(await pass(s), 1, 'the second campaign of the owner dials the number (2nd attempt)');
  const third = await anotherCampaign(s, ['+12025550102']);
  assert.equal(await pass(s), 0, 'a third attempt in 7 days across the owner\'s campaigns');
  assert.equal((await subscriberRow(third.subscriberIds[0])).wait_reason, 'attempts');
  assert.ok(second.subscriberIds.length);
  // Another owner, no caps of their own: their campaign dials the number …
  const other = await makeUser(db);
  const foreign = await anotherCampaign(s, ['+12025550102'], { user_id: other.id });
  assert.equal(await pass(s), 1, 'another owner\'s campaign is not held by this owner\'s caps');
  // … unless the instance caps every owner's attempts together (3 so far).
  const fourth = await anotherCampaign(s, ['+12025550102'], { user_id: other.id });
  const instance = engineWith(s, { contactCaps: { attempts: 3, window_days: 7, quiet_days: null, daily: null } });
  assert.equal(await pass(instance), 0);
  assert.equal((await subscriberRow(fourth.subscriberIds[0])).wait_reason, 'attempts');
  assert.ok(foreign.subscriberIds.length);
});

test(`a number counts as one whatever its form: +1 202 … and (202) … written in the US are one number to the caps (${dbLabel})`, async () => {
  const s = await capped({ numbers: ['+12025550106'] });
  await setPolicy(s.userId, { contact_caps: { attempts: 1, window_days: 7 } });
  assert.equal(await pass(s), 1);
  const national = await anotherCampaign(s, ['(202) 555-0106'], {}, 'US');
  assert.equal(await pass(s), 0, 'the same number written nationally was dialled a second time');
  assert.equal((await subscriberRow(national.subscriberIds[0])).wait_reason, 'attempts');
});

/** Two numbers under a 7-day quiet period: a person answers the first, a machine the second. */
async function personAndMachine(person: string, machine: string): Promise<Scenario> {
  const s = await scenario(db, {
    numbers: [person, machine],
    campaign: { voicemail: true },
    script: (to) => (to === machine ? { amd: 'machine' } : { amd: 'person' }),
  });
  await setPolicy(s.userId, { contact_caps: { quiet_days: 7 } });
  return s;
}

test(`a quiet period follows a conversation (an answering machine is not one) (${dbLabel})`, async () => {
  const s = await personAndMachine('+12025550103', '+12025550104');
  assert.equal(await passes(s), 2);
  await s.clock.advance(86_400_000);
  const next = await anotherCampaign(s, ['+12025550103', '+12025550104']);
  assert.equal(await passes(s), 1);
  assert.equal(s.driver.calls.at(-1)?.request.to, '+12025550104', 'the machine-answered number is called again');
  const held = await subscriberRow(next.subscriberIds[0]);
  assert.equal(held.wait_reason, 'quiet');
  assert.equal(held.status, 1);
  assert.equal(new Date(held.next_attempt_at).toISOString(), '2026-01-12T09:00:00.000Z');
  const read = await call(t.app, s.user.auth, 'GET', `/rest-api/campaigns/${next.campaignId}/`);
  assert.equal(read.data.progress.waiting.quiet, 1, read.body);
  await s.clock.set('2026-01-12T09:00:01Z');
  assert.equal(await pass(s), 1, 'dialled after the quiet period');
});

test(`the quiet period reads each call's conversation flag, and a call settled before it (null) its CDR (${dbLabel})`, async () => {
  const s = await personAndMachine('+12025550113', '+12025550114');
  assert.equal(await passes(s), 2);
  const flags = await queryRows<{ phone_number: string; conversation: boolean | null }>(
    db,
    sql`select phone_number, conversation from callrequests where campaign_id = ${s.campaignId} order by phone_number`,
  );
  assert.deepEqual(
    flags.map((f) => [f.phone_number, f.conversation]),
    [
      ['+12025550113', true],
      ['+12025550114', false],
    ],
  );
  // As if settled before migration 0034: the person-answered call is still a conversation by its CDR.
  await db.execute(sql`update callrequests set conversation = null where campaign_id = ${s.campaignId}`);
  await s.clock.advance(86_400_000);
  const next = await anotherCampaign(s, ['+12025550113', '+12025550114']);
  assert.equal(await passes(s), 1);
  assert.equal(s.driver.calls.at(-1)?.request.to, '+12025550114', 'the machine-answered number is called again');
  assert.equal((await subscriberRow(next.subscriberIds[0])).wait_reason, 'quiet');
});

test(`a daily cap holds the third attempt of the day until 24 hours after the first (${dbLabel})`, async () => {
  const s = await capped({ campaign: { maxretry: 5, intervalretry: 60 }, numbers: ['+12025550105'] });
  await setPolicy(s.userId, { contact_caps: { daily: 2 } });
  assert.equal(await pass(s), 1);
  await s.clock.advance(60_000);
  assert.equal(await pass(s), 1);
  await s.clock.advance(60_000);
  assert.equal(await pass(s), 0);
  const row = await subscriberRow(s.subscriberIds[0]);
  assert.deepEqual([row.status, row.wait_reason, new Date(row.next_attempt_at).toISOString()], [1, 'daily', '2026-01-06T09:00:00.000Z']);
  assert.equal((await campaignRead(s)).progress.waiting.daily, 1);
  await s.clock.set('2026-01-06T09:00:30Z');
  assert.equal(await pass(s), 1);
});

test(`legal calling hours 08:00–21:00: a 24-hour campaign never calls a contact at 22:00 local, and calls at 08:00 local (${dbLabel})`, async () => {
  const s = await scenario(db, {
    numbers: ['+12125550106', '+81300000106'],
    clockAt: '2026-01-06T03:00:00Z', // New York 22:00 (Jan 5), Tokyo 12:00
  });
  await db.update(subscribers).set({ tz_code: 'America/New_York' }).where(eq(subscribers.id, s.subscriberIds[0]));
  await db.update(subscribers).set({ tz_code: 'Asia/Tokyo' }).where(eq(subscribers.id, s.subscriberIds[1]));
  await setPolicy(s.userId, { calling_hours: { start: '08:00', end: '21:00' } });
  assert.equal(await passes(s), 1);
  assert.deepEqual(s.driver.calls.map((c) => c.request.to), ['+81300000106']);
  const row = await subscriberRow(s.subscriberIds[0]);
  assert.deepEqual([row.status, row.wait_reason, new Date(row.next_attempt_at).toISOString()], [1, 'hours', '2026-01-06T13:00:00.000Z']);
  const read = await campaignRead(s);
  assert.equal(read.progress.waiting.hours, 1);
  assert.equal(read.dialing_state, 'waiting: 1 subscriber held (outside legal calling hours 1)');
  for (const at of ['2026-01-06T04:00:00Z', '2026-01-06T08:00:00Z', '2026-01-06T12:59:59Z']) {
    await s.clock.set(at);
    assert.equal(await pass(s), 0, `called at ${at}`);
  }
  await s.clock.set('2026-01-06T13:00:00Z');
  assert.equal(await pass(s), 1);
  assert.equal(s.driver.calls.at(-1)?.request.to, '+12125550106');
});

test(`the instance's calling hours narrow the account's; with neither, nothing is held (${dbLabel})`, async () => {
  const s = await scenario(db, { numbers: ['+12125550107'], clockAt: '2026-01-05T13:30:00Z' }); // New York 08:30
  await db.update(subscribers).set({ tz_code: 'America/New_York' }).where(eq(subscribers.id, s.subscriberIds[0]));
  await setPolicy(s.userId, { calling_hours: '08:00-21:00' });
  const instance = engineWith(s, { callingHours: { start: '09:00', end: '20:00' } });
  assert.equal(await pass(instance), 0);
  assert.equal(new Date((await subscriberRow(s.subscriberIds[0])).next_attempt_at).toISOString(), '2026-01-05T14:00:00.000Z');
  await s.clock.set('2026-01-05T14:00:00Z');
  assert.equal(await pass(instance), 1);
});

test(`turning the caps off releases the held subscribers at once (${dbLabel})`, async () => {
  // A clock after the real one: the release moves a held subscriber to the real now.
  const s = await capped({
    campaign: { maxretry: 5, intervalretry: 60, expirationdate: '2027-12-31T00:00:00Z' },
    numbers: ['+12025550108'],
    clockAt: '2027-01-05T09:00:00Z',
  });
  await setPolicy(s.userId, { contact_caps: { daily: 1 } });
  assert.equal(await pass(s), 1);
  await s.clock.advance(60_000);
  assert.equal(await pass(s), 0);
  assert.equal((await subscriberRow(s.subscriberIds[0])).wait_reason, 'daily');
  await setPolicy(s.userId, { contact_caps: null });
  assert.equal((await subscriberRow(s.subscriberIds[0])).wait_reason, null);
  assert.equal(await pass(s), 1);
});

test(`an engine started without the instance's caps releases the subscribers they held (${dbLabel})`, async () => {
  const s = await capped({ campaign: { maxretry: 5, intervalretry: 60 }, numbers: ['+12025550109'] });
  const strict = engineWith(s, { contactCaps: { attempts: null, window_days: null, quiet_days: null, daily: 1 } });
  assert.equal(await pass(strict), 1);
  await s.clock.advance(60_000);
  assert.equal(await pass(strict), 0);
  assert.equal((await subscriberRow(s.subscriberIds[0])).wait_reason, 'daily');
  await s.clock.advance(1000);
  assert.equal(await pass(strict), 0, 'still held by the same engine');
  const relaxed = engineWith(s, {});
  assert.equal(await pass(relaxed), 1, 'not released by an engine without the cap');
  assert.equal((await subscriberRow(s.subscriberIds[0])).wait_reason, null);
});
