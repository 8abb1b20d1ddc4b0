import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { CampaignStatus, campaigns, smsCampaigns } from '../db/schema.ts';
import { dbLabel, testDatabase } from '../../test/helpers.ts';
import type { ManualClock } from '../clock.ts';
import { Engine } from './engine.ts';
import { scenario } from './engine.fixtures.ts';
import type { ScriptedDriver } from '../drivers/voice/scripted.ts';
import { ScriptedSmsDriver, smsScenario } from './sms/sms.fixtures.ts';

const database = await testDatabase();
const db = database.db;

/** An engine whose log lines a test can read (the sink every engine is given). */
function loggedEngine(clock: ManualClock, driver?: ScriptedDriver, smsDriver?: ScriptedSmsDriver) {
  const lines: string[] = [];
  const engine = new Engine({
    db,
    log: { info: (m) => lines.push(m), warn: (m) => lines.push(`WARN ${m}`), error: (m) => lines.push(`ERROR ${m}`) },
    clock,
    drivers: () => driver as ScriptedDriver,
    smsDrivers: smsDriver && (() => smsDriver),
    config: { timeZone: 'UTC', billingIncrement: 6 },
    databaseKind: 'postgres',
  });
  const pass = async () => {
    await engine.runOnce();
    await engine.settle();
  };
  return { engine, lines, pass };
}

const about = (lines: string[], id: number, noun = 'campaign') => lines.filter((l) => l.startsWith(`${noun} ${id} `));

/** As the API's first start leaves the row: subscribers counted, no engine_state, started now. */
const asJustStarted = (id: number, totalcontact: number) =>
  db.update(campaigns).set({ totalcontact, engine_state: null, started_date: sql`now()`, updated_date: sql`now()` }).where(eq(campaigns.id, id));

test(`the engine logs a campaign's start, a progress line a minute, and its end when every subscriber is done (${dbLabel})`, async () => {
  const s = await scenario(db, {
    campaign: { frequency: 6 },
    numbers: ['+15550001', '+15550002', '+15550003'],
    script: (to) => (to === '+15550002' ? { failCause: 17 } : { billsec: 30 }),
    user: { call_rate: '0.1' },
  });
  await asJustStarted(s.campaignId, 3);
  const { lines, pass } = loggedEngine(s.clock, s.driver);
  const [c] = await db.select().from(campaigns).where(eq(campaigns.id, s.campaignId));

  await pass();
  assert.deepEqual(about(lines, s.campaignId), [`campaign ${s.campaignId} "${c.name}" started: 3 subscribers spooled`]);
  for (let i = 0; i < 5; i++) {
    await s.clock.advance(10_000);
    await pass();
  }
  assert.equal(about(lines, s.campaignId).length, 1, lines.join('\n'));
  await s.clock.advance(10_000);
  await pass(); // a minute after the first pass: the progress line
  const progress = about(lines, s.campaignId).slice(1);
  assert.deepEqual(progress, [
    `campaign ${s.campaignId} "${c.name}" last minute: 3 calls, 2 answered, 1 failed, spend 0.10; state: idle (no subscriber due)`,
  ]);
  await db.update(campaigns).set({ end_when_done: true }).where(eq(campaigns.id, s.campaignId));
  await s.clock.advance(1_000);
  await pass(); // every subscriber final: END (end_when_done)
  assert.equal(
    about(lines, s.campaignId).at(-1),
    `campaign ${s.campaignId} "${c.name}" ended: done (end_when_done: every subscriber final); in all 3 calls, 2 answered, 1 failed, spend 0.10`,
  );
  assert.deepEqual(lines.filter((l) => l.startsWith('WARN') || l.startsWith('ERROR')), []);
});

test(`a campaign waiting outside its hours says why once, not every minute, then logs its expiry (${dbLabel})`, async () => {
  const s = await scenario(db, {
    campaign: { daily_start_time: '22:00:00', daily_stop_time: '23:00:00', expirationdate: '2026-01-05T12:00:00Z', engine_state: 'dialing' },
    clockAt: '2026-01-05T09:00:00Z',
  });
  const { lines, pass } = loggedEngine(s.clock, s.driver);
  const name = (await db.select().from(campaigns).where(eq(campaigns.id, s.campaignId)))[0].name;
  await pass(); // engine_state set: already running when this engine came up, so no start line
  assert.deepEqual(about(lines, s.campaignId), []);
  await s.clock.advance(60_000);
  await pass();
  await s.clock.advance(60_000);
  await pass();
  assert.deepEqual(about(lines, s.campaignId), [`campaign ${s.campaignId} "${name}" last minute: 0 calls, 0 answered, 0 failed, spend 0.00; state: outside hours`]);
  await s.clock.set('2026-01-05T12:00:01Z');
  await pass();
  assert.equal(about(lines, s.campaignId).at(-1), `campaign ${s.campaignId} "${name}" ended: expired; in all 0 calls, 0 answered, 0 failed, spend 0.00`);
});

test(`a campaign aborted, ended or paused through the API is logged with who stopped it, and a resume says so (${dbLabel})`, async () => {
  const s = await scenario(db, { campaign: { frequency: 6 }, numbers: ['+15550001', '+15550002'] });
  await asJustStarted(s.campaignId, 2);
  const { lines, pass } = loggedEngine(s.clock, s.driver);
  const name = (await db.select().from(campaigns).where(eq(campaigns.id, s.campaignId)))[0].name;
  const prefix = `campaign ${s.campaignId} "${name}"`;
  await pass();
  await db.update(campaigns).set({ status: CampaignStatus.Pause }).where(eq(campaigns.id, s.campaignId));
  await pass();
  // What the API's resume writes (campaign.service.ts): START with no engine_state.
  await db.update(campaigns).set({ status: CampaignStatus.Start, engine_state: null, updated_date: sql`now() + interval '1 second'` }).where(eq(campaigns.id, s.campaignId));
  await s.clock.advance(10_000);
  await pass();
  await db.update(campaigns).set({ status: CampaignStatus.Abort }).where(eq(campaigns.id, s.campaignId));
  await pass();
  assert.deepEqual(about(lines, s.campaignId), [
    `${prefix} started: 2 subscribers spooled`,
    `${prefix} paused (by user); in all 1 calls, 1 answered, 0 failed, spend 0.00`,
    `${prefix} resumed: 2 subscribers spooled`,
    `${prefix} ended: aborted (by user); in all 2 calls, 2 answered, 0 failed, spend 0.00`,
  ]);

  const t = await scenario(db, {});
  const other = loggedEngine(t.clock, t.driver);
  await other.pass();
  await db.update(campaigns).set({ status: CampaignStatus.End }).where(eq(campaigns.id, t.campaignId));
  await other.pass();
  assert.match(about(other.lines, t.campaignId).at(-1) ?? '', /ended: by user; in all 1 calls, 1 answered, 0 failed, spend 0\.00$/);
});

test(`an SMS campaign logs its start, its progress and its end (${dbLabel})`, async () => {
  const driver = new ScriptedSmsDriver();
  const s = await smsScenario(db, { driver, numbers: ['+15550001', '+15550002'], user: { sms_rate: '0.05' } });
  await db
    .update(smsCampaigns)
    .set({ totalcontact: 2, engine_state: null, started_date: sql`now()`, updated_date: sql`now()` })
    .where(eq(smsCampaigns.id, s.campaignId));
  const name = (await db.select().from(smsCampaigns).where(eq(smsCampaigns.id, s.campaignId)))[0].name;
  const { lines, pass } = loggedEngine(s.clock, undefined, driver);
  await pass();
  await s.clock.advance(60_000);
  await pass();
  await db.update(smsCampaigns).set({ end_when_done: true }).where(eq(smsCampaigns.id, s.campaignId));
  await pass();
  assert.deepEqual(about(lines, s.campaignId, 'sms campaign'), [
    `sms campaign ${s.campaignId} "${name}" started: 2 subscribers spooled`,
    `sms campaign ${s.campaignId} "${name}" last minute: 2 messages sent, 0 delivered, 0 failed, spend 0.10; state: idle (no subscriber due)`,
    `sms campaign ${s.campaignId} "${name}" ended: done (end_when_done: every subscriber final); in all 2 messages sent, 0 delivered, 0 failed, spend 0.10`,
  ]);
});
