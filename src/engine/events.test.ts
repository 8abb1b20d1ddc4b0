/**
 * The engine's events (issue 14): a call.completed per call with its CDR's fields, a
 * campaign.ended saying why (done, expired), and one campaign.waiting per new reason the campaign
 * cannot dial — read back through the API's event log.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { buildApp } from '../app.ts';
import { call, dbLabel, logCaughtUp, testConfig, testDatabase, testLogger } from '../../test/helpers.ts';
import { eq } from 'drizzle-orm';
import { CampaignStatus, campaigns, SmsSubscriberStatus, SubscriberStatus, users } from '../db/schema.ts';
import type { SmsEvents, SmsSubmit, SubmitResult } from '../drivers/sms/driver.ts';
import { flowOf, pass, scenario, section } from './engine.fixtures.ts';
import { ScriptedSmsDriver, smsPass, smsScenario } from './sms/sms.fixtures.ts';

const database = await testDatabase();
const db = database.db;
const app = await buildApp({ logger: testLogger, database, config: testConfig() });
after(() => app.close());

interface Event {
  type: string;
  data: Record<string, unknown>;
}

async function eventsOf(s: { user: { auth: string }; campaignId: number }): Promise<Event[]> {
  await logCaughtUp(database);
  const res = await call(app, s.user.auth, 'GET', `/rest-api/events/?format=json&after=0&campaign_id=${s.campaignId}`);
  assert.equal(res.statusCode, 200, res.body);
  return res.data.results;
}

test(`a campaign run to its end: call.completed per call, then campaign.ended (done) (${dbLabel})`, async () => {
  const s = await scenario(db, { campaign: { end_when_done: true }, numbers: ['+15550101', '+15550102'] });
  for (let i = 0; i < 6; i++) {
    await pass(s);
    await s.clock.advance(60_000);
  }
  const events = await eventsOf(s);
  // Each call's two events come in its outcome's transaction; the end comes last.
  assert.deepEqual(
    events.map((e) => e.type).sort(),
    ['call.completed', 'call.completed', 'campaign.ended', 'subscriber.final', 'subscriber.final'],
  );
  assert.equal(events[4].type, 'campaign.ended');
  const finals = events.filter((e) => e.type === 'subscriber.final');
  assert.deepEqual(finals.map((e) => e.data.phone_number).sort(), ['+15550101', '+15550102']);
  assert.ok(finals.every((e) => e.data.status === 5 && /\/rest-api\/subscriber-list\/\d+\/$/.test(String(e.data.subscriber))));
  const calls = events.filter((e) => e.type === 'call.completed');
  assert.deepEqual(calls.map((e) => e.data.phone_number).sort(), ['+15550101', '+15550102']);
  assert.match(String(calls[0].data.callrequest), /^http:\/\/localhost(:\d+)?\/rest-api\/callrequest\/\d+\/$/);
  assert.equal(calls[0].data.disposition, 'ANSWER');
  // The CDR's fields in the shapes of the API's read of that CDR (its time: microseconds, Z).
  const cdrs = await call(app, s.user.auth, 'GET', `/rest-api/cdr/?campaign_id=${s.campaignId}`);
  assert.equal(cdrs.statusCode, 200, cdrs.body);
  assert.equal(cdrs.data.count, 2);
  for (const cdr of cdrs.data.results as Array<Record<string, unknown>>) {
    const event = calls.find((e) => e.data.callid === cdr.callid);
    assert.ok(event, `a call.completed for ${String(cdr.callid)}`);
    for (const field of ['callid', 'callerid', 'phone_number', 'starting_date', 'duration', 'billsec', 'billed_duration', 'call_cost', 'hangup_cause_q850', 'disposition', 'amd_status', 'callrequest', 'campaign']) {
      assert.deepEqual(event.data[field], cdr[field], field);
    }
    assert.match(String(event.data.starting_date), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.deepEqual(event.data.results, []); // no survey answered in these calls
  }
  assert.equal(events[4].data.why, 'done');
  assert.equal(events[4].data.id, s.campaignId);
});

test(`an expired campaign ends with why "expired" (${dbLabel})`, async () => {
  const s = await scenario(db, { campaign: { expirationdate: '2026-01-05T10:00:00Z' } });
  await s.clock.set('2026-01-05T10:00:01Z');
  await pass(s);
  const ended = (await eventsOf(s)).filter((e) => e.type === 'campaign.ended');
  assert.equal(ended.length, 1);
  assert.equal(ended[0].data.why, 'expired');
});

test(`waiting outside hours is one campaign.waiting, not one per pass (${dbLabel})`, async () => {
  const s = await scenario(db, { campaign: { daily_start_time: '22:00:00', daily_stop_time: '23:00:00' }, clockAt: '2026-01-05T12:00:00Z' });
  await pass(s);
  await pass(s);
  await s.clock.advance(60_000);
  await pass(s);
  const waiting = (await eventsOf(s)).filter((e) => e.type === 'campaign.waiting');
  assert.equal(waiting.length, 1);
  assert.equal(waiting[0].data.why, 'outside hours');
});

test(`an SMS campaign: sms.sent for each message, then sms.delivered or sms.failed from the reports (${dbLabel})`, async () => {
  const s = await smsScenario(db, { numbers: ['+15550201', '+15550202'], gateway: { settings: { delivery_rate: 1, failure_rate: 0 } } });
  await smsPass(s);
  await logCaughtUp(database);
  const res = await call(app, s.user.auth, 'GET', `/rest-api/events/?format=json&after=0&campaign_id=${s.campaignId}&types=sms.*`);
  assert.equal(res.statusCode, 200, res.body);
  const events: Event[] = res.data.results;
  assert.deepEqual(
    events.map((e) => e.type).sort(),
    ['sms.delivered', 'sms.delivered', 'sms.sent', 'sms.sent'],
  );
  assert.deepEqual([...new Set(events.map((e) => e.data.recipient_number))].sort(), ['+15550201', '+15550202']);
  for (const number of ['+15550201', '+15550202']) {
    // However the report and the send's record raced, each message's events come in order.
    assert.deepEqual(events.filter((e) => e.data.recipient_number === number).map((e) => e.type), ['sms.sent', 'sms.delivered']);
  }
  assert.ok(events.every((e) => /\/rest-api\/sms-message\/\d+\/$/.test(String(e.data.message))));
});

test(`a STOP reply is an sms.opt_out event of the number's owner (${dbLabel})`, async () => {
  const s = await smsScenario(db, { numbers: ['+15558101'] });
  await smsPass(s);
  await s.events.inbound(s.gatewayId, { from: '15558101', to: '5550100', text: 'STOP', at: s.clock.now() });
  await logCaughtUp(database);
  const res = await call(app, s.user.auth, 'GET', `/rest-api/events/?format=json&after=0&types=sms.opt_out`);
  const mine = (res.data.results as Event[]).filter((e) => String(e.data.phone_number).endsWith('15558101'));
  assert.equal(mine.length, 1, res.body);
  assert.equal(mine[0].data.word, 'STOP');
  assert.match(String(mine[0].data.dnc_list), /\/rest-api\/dnc-list\/\d+\/$/);
});

test(`an aborted campaign's pending subscribers each get subscriber.final (ABORT, why) (${dbLabel})`, async () => {
  const s = await scenario(db, { numbers: ['+15550301', '+15550302', '+15550303'] });
  await db.update(campaigns).set({ status: CampaignStatus.Abort }).where(eq(campaigns.id, s.campaignId));
  await pass(s);
  const finals = (await eventsOf(s)).filter((e) => e.type === 'subscriber.final');
  assert.deepEqual(finals.map((e) => e.data.phone_number).sort(), ['+15550301', '+15550302', '+15550303']);
  assert.ok(finals.every((e) => e.data.status === SubscriberStatus.Abort && e.data.reason === 'campaign aborted' && e.data.kind === 'voice'), JSON.stringify(finals));
});

test(`SMS subscribers get subscriber.final when sent, and when their campaign is aborted (${dbLabel})`, async () => {
  const s = await smsScenario(db, { numbers: ['+15550401', '+15550402'], gateway: { settings: { delivery_rate: 1, failure_rate: 0 } } });
  await smsPass(s);
  await logCaughtUp(database);
  const res = await call(app, s.user.auth, 'GET', `/rest-api/events/?format=json&after=0&campaign_id=${s.campaignId}&types=subscriber.final`);
  const finals: Event[] = res.data.results;
  assert.deepEqual(finals.map((e) => e.data.phone_number).sort(), ['+15550401', '+15550402'], res.body);
  assert.ok(finals.every((e) => e.data.status === SmsSubscriberStatus.Complete && e.data.kind === 'sms'), res.body);
  assert.ok(finals.every((e) => String(e.data.campaign).endsWith(`/rest-api/sms-campaigns/${s.campaignId}/`)), res.body);

  const aborted = await smsScenario(db, { numbers: ['+15550403'], campaign: { status: CampaignStatus.Abort } });
  await smsPass(aborted);
  await logCaughtUp(database);
  const res2 = await call(app, aborted.user.auth, 'GET', `/rest-api/events/?format=json&after=0&campaign_id=${aborted.campaignId}&types=subscriber.final`);
  assert.deepEqual(
    (res2.data.results as Event[]).map((e) => [e.data.phone_number, e.data.status, e.data.reason]),
    [['+15550403', SmsSubscriberStatus.Abort, 'campaign aborted']],
  );
});

test(`a delivery report that comes before the send is recorded: sms.sent then sms.delivered, each once (${dbLabel})`, async () => {
  // The gateway reports delivery (by our message id, as Kannel's report URL carries it) while
  // the engine still waits for the submit's answer: the report is written first. The message was
  // sent all the same (the gateway had it): an integrator gets sms.sent, then sms.delivered.
  class ReportsFirst extends ScriptedSmsDriver {
    to?: { events: SmsEvents; gatewayId: number };
    override async send(m: SmsSubmit): Promise<SubmitResult> {
      await this.to?.events.report(this.to.gatewayId, { messageId: m.messageId, status: 'delivered', at: new Date('2026-01-05T09:00:01Z') });
      return super.send(m);
    }
  }
  const driver = new ReportsFirst();
  const s = await smsScenario(db, { numbers: ['+15550501'], driver });
  driver.to = s;
  await smsPass(s);
  await logCaughtUp(database);
  const res = await call(app, s.user.auth, 'GET', `/rest-api/events/?format=json&after=0&campaign_id=${s.campaignId}&types=sms.*`);
  assert.deepEqual((res.data.results as Event[]).map((e) => e.type), ['sms.sent', 'sms.delivered'], res.body);
  const [sent, delivered] = res.data.results as Event[];
  assert.equal(sent.data.status, 'sent');
  assert.equal(sent.data.error, '');
  assert.equal(delivered.data.status, 'delivered');
  assert.equal(sent.data.message, delivered.data.message);
});

test(`billing that takes a balance below its owner's threshold is one balance.low event, not one per call (${dbLabel})`, async () => {
  // 60 s at 1.2 a minute: each call costs 1.2; 10 → 8.8 crosses 9, 7.6 and 6.4 stay below.
  const s = await scenario(db, {
    user: { balance: '10', call_rate: '1.2' },
    numbers: ['+15550601', '+15550602', '+15550603'],
    script: () => ({ billsec: 60 }),
    campaign: { frequency: 1 },
  });
  await db.update(users).set({ balance_low_threshold: '9' }).where(eq(users.id, s.userId));
  for (let i = 0; i < 6; i++) {
    await pass(s);
    await s.clock.advance(61_000);
  }
  await logCaughtUp(database);
  const res = await call(app, s.user.auth, 'GET', '/rest-api/events/?format=json&after=0&types=balance.low');
  const low = (res.data.results as Event[]).filter((e) => e.data.id === s.userId);
  assert.equal(low.length, 1, res.body);
  assert.deepEqual({ ...low[0].data, user: undefined }, { user: undefined, id: s.userId, username: s.user.username, balance: '8.80000', threshold: '9.00000' });
  assert.match(String(low[0].data.user), new RegExp(`/rest-api/users/${s.userId}/$`));
});

test(`an SMS campaign's billing crosses the threshold once; an owner without a threshold gets none (${dbLabel})`, async () => {
  const s = await smsScenario(db, { numbers: ['+15550701', '+15550702'], user: { balance: '1', sms_rate: '0.4' } });
  await db.update(users).set({ balance_low_threshold: '0.5' }).where(eq(users.id, s.user.id));
  await smsPass(s);
  // A scenario ends the SMS campaigns the one before it left running: this one comes after.
  const none = await smsScenario(db, { numbers: ['+15550703'], user: { balance: '1', sms_rate: '0.9' } });
  await smsPass(none);
  await logCaughtUp(database);
  const mine = await call(app, s.user.auth, 'GET', '/rest-api/events/?format=json&after=0&types=balance.low');
  assert.deepEqual((mine.data.results as Event[]).map((e) => [e.data.balance, e.data.threshold]), [['0.20000', '0.50000']], mine.body);
  const theirs = await call(app, none.user.auth, 'GET', '/rest-api/events/?format=json&after=0&types=balance.low');
  assert.deepEqual(theirs.data.results, []);
});

test(`call.completed carries the survey's answers given in that call (${dbLabel})`, async () => {
  const bye = section({ order: 2, type: 7, question: 'Bye' });
  const choice = section({
    order: 1,
    type: 2,
    question: 'Press 1 or 2',
    keys: Array.from({ length: 10 }, (_, i) => (i === 1 ? 'one' : i === 2 ? 'two' : null)),
    branches: [{ id: 1, keys: '1,2', goto: bye.id }],
  });
  const s = await scenario(db, { campaign: { survey_snapshot: flowOf([choice, bye]) }, script: () => ({ keys: ['2'], billsec: 20 }) });
  await pass(s);
  const calls = (await eventsOf(s)).filter((e) => e.type === 'call.completed');
  assert.equal(calls.length, 1);
  const results = calls[0].data.results as Array<Record<string, unknown>>;
  assert.deepEqual(results.map((r) => [r.question, r.response, r.section_order]), [['Press 1 or 2', '2', 1]], JSON.stringify(calls[0].data));
});
