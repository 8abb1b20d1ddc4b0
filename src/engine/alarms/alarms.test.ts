/**
 * The alarm engine through the public surface: appointments made with the API, fired by the
 * engine on a fake clock with the scripted carrier and SMS driver, read back with the API.
 * Item 9 of issue 17: an event tomorrow at 10:00 in the contact's zone, an alarm one day before
 * by call with an SMS fallback.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { makeDncList, makeGateway, makeSmsGateway, makeUser, type TestUser } from '../../../test/factories.ts';
import { call, dbLabel, idOf, testApp } from '../../../test/helpers.ts';
import { startExim } from '../../../test/exim.ts';
import { ManualClock } from '../../clock.ts';
import { alarmRequests, alarms, cdrs, smsMessages, users } from '../../db/schema.ts';
import { type CallScript, ScriptedDriver } from '../../drivers/voice/scripted.ts';
import { Engine } from '../engine.ts';
import { ScriptedSmsDriver } from '../sms/sms.fixtures.ts';
import { nextStart, ruleParams } from './recurrence.ts';
import { mailingDetail } from './store.ts';

const t = await testApp();
const { db } = t.database;
// E-mail reminders go to a real MTA: exim4 on loopback (test/exim.ts).
const exim = await startExim();
const smtpPort = exim.port;
after(() => exim.stop());

const NEW_YORK = '+12125550100';

interface World {
  user: TestUser;
  clock: ManualClock;
  driver: ScriptedDriver;
  sms: ScriptedSmsDriver;
  engine: Engine;
  setting: { id: number; url: string };
  calendar: { id: number };
}

/** A user with a calendar setting (a survey asking to confirm, a gateway, an SMS gateway) and a calendar; an engine at `at`. */
async function world(at: string, script: (to: string) => CallScript = () => ({})): Promise<World> {
  const user = await makeUser(db, { balance: '10', call_rate: '0.6', sms_rate: '0.05' });
  const post = async (resource: string, body: Record<string, unknown>) => {
    const res = await call(t.app, user.auth, 'POST', `/rest-api/${resource}/`, body);
    assert.equal(res.statusCode, 201, `${resource}: ${res.body}`);
    return res.data;
  };
  const survey = await post('survey-template', { name: 'Reminder' });
  await post('section-template', { survey: survey.id, type: 2, question: 'Confirm?', script: 'Press 1 to confirm, 2 to cancel.', key_1: 'confirm', key_2: 'cancel' });
  const setting = await post('calendar-setting', {
    label: 'dentist',
    callerid: '+15550000000',
    survey: survey.id,
    aleg_gateway: (await makeGateway(db)).id,
    sms_gateway: (await makeSmsGateway(db)).id,
  });
  const person = await post('calendar-user', { username: 'front-desk', calendar_setting: setting.url });
  const calendar = await post('calendar', { name: 'Chairs', user: person.url });
  const clock = new ManualClock(at);
  const driver = new ScriptedDriver(clock, script);
  const sms = new ScriptedSmsDriver();
  const engine = new Engine({
    db,
    log: { info: () => {}, warn: () => {}, error: (m) => console.error(m) },
    clock,
    drivers: () => driver,
    smsDrivers: () => sms,
    config: { timeZone: 'UTC', billingIncrement: 6, smtpUrl: `smtp://127.0.0.1:${smtpPort}`, mailFrom: 'reminders@clinic.example' },
    databaseKind: 'postgres',
  });
  return { user, clock, driver, sms, engine, setting, calendar };
}

async function post(w: World, resource: string, body: Record<string, unknown>) {
  const res = await call(t.app, w.user.auth, 'POST', `/rest-api/${resource}/`, body);
  assert.equal(res.statusCode, 201, `${resource}: ${res.body}`);
  return res.data;
}

const get = async (w: World, path: string) => (await call(t.app, w.user.auth, 'GET', path)).data;

/** One engine pass, then its calls recorded. */
async function pass(w: World): Promise<void> {
  await w.engine.runOnce();
  await w.engine.settle();
}

const requestsOf = async (w: World, alarmId: number) => (await get(w, `/rest-api/alarm-request/?alarm=${alarmId}`)).results;

describe(`alarm engine (${dbLabel})`, () => {
  test('an event tomorrow at 10:00 in the contact\'s zone, an alarm a day before by call: unanswered, it falls back to an SMS', async () => {
    // 08:00 in New York (EST, UTC−5) on Monday 5 January; the appointment is Tuesday 10:00 there.
    const w = await world('2026-01-05T13:00:00Z', () => ({ failCause: 17 }));
    const event = await post(w, 'event', { title: 'Dental check-up', start: '2026-01-06T10:00:00-05:00', end: '2026-01-06T10:30:00-05:00', calendar: w.calendar.id });
    const alarm = await post(w, 'alarm', {
      event: event.url,
      method: 1,
      alarm_phonenumber: NEW_YORK,
      advance_notice: 86400,
      daily_start: '09:00:00',
      daily_stop: '18:00:00',
      phonenumber_sms_failure: NEW_YORK,
    });
    assert.equal(alarm.date_start_notice, '2026-01-06T15:00:00.000000Z');

    await pass(w); // 08:00 there: not due until 10:00 (a day before the event)
    assert.equal(w.driver.calls.length, 0);
    assert.equal((await get(w, `/rest-api/alarm/${alarm.id}/`)).status, 1);

    await w.clock.set('2026-01-05T15:00:00Z'); // 10:00 in New York
    await pass(w);
    assert.equal(w.driver.calls.length, 1, 'one reminder call');
    assert.equal(w.driver.calls[0].request.to, NEW_YORK);
    assert.equal(w.driver.calls[0].request.callerId, '+15550000000');
    const during = await get(w, `/rest-api/alarm/${alarm.id}/`);
    assert.equal(during.status, 2, 'IN_PROCESS while its call is being settled');
    assert.equal(during.num_attempt, 1);

    await pass(w); // settles the busy call: no retry left → FAILURE, and the SMS fallback
    const failed = await get(w, `/rest-api/alarm/${alarm.id}/`);
    assert.equal(failed.status, 3, JSON.stringify(failed));
    assert.equal(failed.result, null);
    const [callAttempt, smsAttempt] = await requestsOf(w, alarm.id);
    assert.equal(callAttempt.method, 1);
    assert.equal(callAttempt.status, 3);
    assert.equal(callAttempt.callstatus, 17);
    assert.equal(callAttempt.date, '2026-01-05T15:00:00.000000Z');
    assert.ok(callAttempt.callrequest, JSON.stringify(callAttempt));
    const callrequest = await get(w, new URL(callAttempt.callrequest).pathname);
    assert.equal(callrequest.status, 2, 'the callrequest is a campaign call that failed');
    assert.equal(smsAttempt.method, 2);
    assert.equal(smsAttempt.status, 5, JSON.stringify(smsAttempt));
    assert.equal(w.sms.sent.length, 1);
    assert.equal(w.sms.sent[0].to, NEW_YORK);
    assert.equal(w.sms.sent[0].text, 'Reminder: Dental check-up, 2026-01-06 10:00 (America/New_York).');
    // The calls went into the setting's reminder campaign: a campaign like any other, with its CDR.
    const setting = await get(w, `/rest-api/calendar-setting/${w.setting.id}/`);
    assert.ok(setting.campaign);
    const legs = await db.select().from(cdrs).where(eq(cdrs.campaign_id, idOf(setting.campaign)));
    assert.equal(legs.length, 1);
    assert.equal(legs[0].disposition, 'BUSY');
    const [message] = await db.select().from(smsMessages).where(eq(smsMessages.user_id, w.user.id));
    assert.equal(message.status, 'sent');
    assert.equal(Number(message.cost), 0.05);
  });

  test('an answered reminder whose callee presses the "confirm" key is SUCCESS, CONFIRMED, and billed as a campaign call', async () => {
    const w = await world('2026-01-05T15:00:00Z', () => ({ keys: ['1'], billsec: 30 }));
    const event = await post(w, 'event', { title: 'Cleaning', start: '2026-01-06T10:00:00-05:00', end: '2026-01-06T11:00:00-05:00', calendar: w.calendar.id });
    const alarm = await post(w, 'alarm', { event: event.id, alarm_phonenumber: NEW_YORK, advance_notice: 86400 });
    await pass(w);
    await pass(w);
    const done = await get(w, `/rest-api/alarm/${alarm.id}/`);
    assert.equal(done.status, 5, JSON.stringify(done));
    assert.equal(done.result, 1);
    const [attempt] = await requestsOf(w, alarm.id);
    assert.equal(attempt.status, 5);
    assert.equal(attempt.callstatus, 16);
    assert.equal(attempt.duration, 30);
    const [owner] = await db.select({ balance: users.balance }).from(users).where(eq(users.id, w.user.id));
    assert.equal(Number(owner.balance), 9.7, 'call_rate 0.6 a minute × 30 s');
    assert.equal(w.sms.sent.length, 0, 'no fallback for an answered call');
  });

  test('a busy callee is called again retry_delay later while retries remain; a number on a do-not-call list is never called', async () => {
    const w = await world('2026-01-05T15:00:00Z', (to) => (to === NEW_YORK ? { failCause: 17 } : { keys: ['2'] }));
    const event = await post(w, 'event', { title: 'X-ray', start: '2026-01-06T10:00:00-05:00', end: '2026-01-06T11:00:00-05:00', calendar: w.calendar.id });
    const retried = await post(w, 'alarm', { event: event.id, alarm_phonenumber: NEW_YORK, advance_notice: 86400, maxretry: 1, retry_delay: 600 });
    await makeDncList(db, w.user.id, ['+12125550199'], true);
    const blocked = await post(w, 'alarm', { event: event.id, alarm_phonenumber: '+12125550199', advance_notice: 86400 });
    await pass(w); // the campaign's pace (60 a minute): one call start now, the next a second later
    await w.clock.advance(2_000); // the busy call is settled (RETRY 600 s from now); the DNC hit is dropped without a call
    await pass(w);
    await pass(w);
    const waiting = await get(w, `/rest-api/alarm/${retried.id}/`);
    assert.equal(waiting.status, 4, 'RETRY');
    const notAllowed = await get(w, `/rest-api/alarm/${blocked.id}/`);
    assert.equal(notAllowed.status, 3);
    assert.match((await requestsOf(w, blocked.id))[0].detail, /do-not-call/);
    assert.deepEqual(w.driver.calls.map((c) => c.request.to), [NEW_YORK]);

    await w.clock.advance(598_000);
    await pass(w);
    assert.equal(w.driver.calls.length, 1, 'not before retry_delay');
    await w.clock.advance(2_000);
    await pass(w);
    await pass(w);
    assert.equal(w.driver.calls.length, 2);
    const last = await get(w, `/rest-api/alarm/${retried.id}/`);
    assert.equal(last.status, 3);
    assert.equal(last.num_attempt, 2);
    assert.equal((await requestsOf(w, retried.id)).length, 2);
  });

  test('an SMS alarm goes through the setting\'s SMS gateway; an e-mail alarm through SMTP_URL', async () => {
    const w = await world('2026-01-05T15:00:00Z');
    const event = await post(w, 'event', { title: 'Surgery', description: 'Do not eat after midnight.', start: '2026-01-06T10:00:00-05:00', end: '2026-01-06T12:00:00-05:00', calendar: w.calendar.id });
    const bySms = await post(w, 'alarm', { event: event.id, method: 2, alarm_phonenumber: NEW_YORK, advance_notice: 86400 });
    const byMail = await post(w, 'alarm', { event: event.id, method: 3, alarm_email: 'patient@example.com', advance_notice: 86400 });
    const refused = await post(w, 'alarm', { event: event.id, method: 3, alarm_email: 'nobody@refused.example', advance_notice: 86400 });
    await pass(w);
    assert.equal((await get(w, `/rest-api/alarm/${bySms.id}/`)).status, 5);
    assert.equal(w.sms.sent[0].text, 'Reminder: Surgery, 2026-01-06 10:00 (America/New_York). Do not eat after midnight.');
    assert.equal((await get(w, `/rest-api/alarm/${byMail.id}/`)).status, 5);
    const mail = await exim.mailTo('patient@example.com');
    assert.equal(mail.from, 'reminders@clinic.example');
    assert.match(mail.data, /^Subject: Reminder: Surgery$/m);
    assert.match(mail.data, /Reminder: Surgery, 2026-01-06 15:00 \(UTC\)\. Do not eat after midnight\./);
    const bad = await get(w, `/rest-api/alarm/${refused.id}/`);
    assert.equal(bad.status, 3);
    assert.match((await requestsOf(w, refused.id))[0].detail, /RCPT TO refused: 550/);
    assert.equal(w.driver.calls.length, 0);
  });

  test('an alarm whose setting has no gateway fails with the reason, and setting status 1 arms it again', async () => {
    const w = await world('2026-01-05T15:00:00Z', () => ({}));
    await call(t.app, w.user.auth, 'PATCH', `/rest-api/calendar-setting/${w.setting.id}/`, { aleg_gateway: null });
    const event = await post(w, 'event', { title: 'Consult', start: '2026-01-06T10:00:00-05:00', end: '2026-01-06T11:00:00-05:00', calendar: w.calendar.id });
    const alarm = await post(w, 'alarm', { event: event.id, alarm_phonenumber: NEW_YORK, advance_notice: 86400 });
    await pass(w);
    assert.equal((await get(w, `/rest-api/alarm/${alarm.id}/`)).status, 3);
    assert.equal((await requestsOf(w, alarm.id))[0].detail, 'the calendar setting has no gateway');
    await call(t.app, w.user.auth, 'PATCH', `/rest-api/calendar-setting/${w.setting.id}/`, { aleg_gateway: (await makeGateway(db)).id });
    const rearm = await call(t.app, w.user.auth, 'PATCH', `/rest-api/alarm/${alarm.id}/`, { status: 1 });
    assert.equal(rearm.statusCode, 202, rearm.body);
    await pass(w);
    await pass(w);
    const done = await get(w, `/rest-api/alarm/${alarm.id}/`);
    assert.equal(done.status, 5, JSON.stringify(done));
    assert.equal(w.driver.calls.length, 1);
  });

  test('a weekly event makes its next occurrence, with its alarms armed again, once it has started; count ends the series', async () => {
    const w = await world('2026-01-05T15:00:00Z');
    const rule = await post(w, 'rule', { name: 'weekly', frequency: 'WEEKLY', params: 'count:2' });
    const first = await post(w, 'event', { title: 'Physio', start: '2026-01-06T10:00:00-05:00', end: '2026-01-06T11:00:00-05:00', calendar: w.calendar.id, rule: rule.id });
    const alarm = await post(w, 'alarm', { event: first.id, method: 2, alarm_phonenumber: NEW_YORK, advance_notice: 86400 });
    await pass(w);
    assert.equal((await get(w, `/rest-api/alarm/${alarm.id}/`)).status, 5);
    assert.equal((await get(w, `/rest-api/event/?calendar=${w.calendar.id}`)).count, 1, 'no next occurrence before the event starts');

    await w.clock.set('2026-01-06T15:00:00Z'); // the appointment begins
    await pass(w);
    const events = (await get(w, `/rest-api/event/?calendar=${w.calendar.id}`)).results;
    assert.equal(events.length, 2);
    const [done, next] = events;
    assert.equal(done.status, 2, 'the started one is COMPLETED');
    assert.equal(done.occ_count, 1);
    assert.equal(next.start, '2026-01-13T15:00:00.000000Z');
    assert.equal(next.parent_event, first.url);
    assert.equal(next.rule, rule.url);
    const [copy] = (await get(w, `/rest-api/alarm/?event=${next.id}`)).results;
    assert.equal(copy.status, 1);
    assert.equal(copy.date_start_notice, '2026-01-13T15:00:00.000000Z');
    assert.equal(copy.method, 2);

    await w.clock.set('2026-01-12T15:00:00Z'); // its reminder, a day before
    await pass(w);
    assert.equal((await get(w, `/rest-api/alarm/${copy.id}/`)).status, 5);
    assert.equal(w.sms.sent.length, 2);
    await w.clock.set('2026-01-13T15:00:00Z');
    await pass(w);
    assert.equal((await get(w, `/rest-api/event/?calendar=${w.calendar.id}`)).count, 2, 'count:2 — no third occurrence');
    assert.equal((await get(w, `/rest-api/event/${next.id}/`)).status, 2);
  });

  test('the next start by frequency and interval; a month without the day takes its last day', () => {
    assert.deepEqual(ruleParams('count:3; interval:2;byweekday:0,2'), { count: 3, interval: 2, byweekday: 0 });
    assert.equal(nextStart('2026-01-31T10:00:00Z', 'MONTHLY', 1)?.toISOString(), '2026-02-28T10:00:00.000Z');
    assert.equal(nextStart('2026-01-06T10:00:00Z', 'DAILY', 2)?.toISOString(), '2026-01-08T10:00:00.000Z');
    assert.equal(nextStart('2028-02-29T10:00:00Z', 'YEARLY', 1)?.toISOString(), '2029-02-28T10:00:00.000Z');
    assert.equal(nextStart('2026-01-06T10:00:00Z', 'FORTNIGHTLY', 1), undefined);
  });

  test('an SMS attempt left IN_PROCESS by a crashed engine before its send is failed ten minutes on, and its alarm retried; an e-mail one left while handed to the relay fails for good', async () => {
    const w = await world('2026-01-05T15:00:00Z');
    const event = await post(w, 'event', { title: 'Lab', start: '2026-01-06T10:00:00-05:00', end: '2026-01-06T11:00:00-05:00', calendar: w.calendar.id });
    const alarm = await post(w, 'alarm', { event: event.id, method: 2, alarm_phonenumber: NEW_YORK, date_start_notice: '2027-01-01 00:00:00', maxretry: 1, retry_delay: 3600 });
    // What a crash between the claim and the send leaves: the alarm and its attempt IN_PROCESS.
    await db.update(alarms).set({ status: 2, num_attempt: 1 }).where(eq(alarms.id, alarm.id));
    await db.insert(alarmRequests).values({ user_id: w.user.id, alarm_id: alarm.id, date: '2026-01-05T14:00:00Z', method: 2, status: 2, created_date: new Date(Date.now() - 3_600_000).toISOString() });
    // And an e-mail attempt whose engine crashed while it handed the e-mail to the relay.
    const mail = await post(w, 'alarm', { event: event.id, method: 3, alarm_email: 'lab@example.com', date_start_notice: '2027-01-01 00:00:00', maxretry: 1, retry_delay: 3600 });
    await db.update(alarms).set({ status: 2, num_attempt: 1 }).where(eq(alarms.id, mail.id));
    await db.insert(alarmRequests).values({ user_id: w.user.id, alarm_id: mail.id, date: '2026-01-05T14:00:00Z', method: 3, status: 2, detail: mailingDetail, created_date: new Date(Date.now() - 3_600_000).toISOString() });
    await pass(w);
    const [attempt] = await requestsOf(w, alarm.id);
    assert.equal(attempt.status, 3);
    assert.equal(attempt.detail, 'ENGINE_RESTART');
    assert.equal((await get(w, `/rest-api/alarm/${alarm.id}/`)).status, 4, 'RETRY: an attempt remains');
    const [mailed] = await requestsOf(w, mail.id);
    assert.deepEqual([mailed.status, mailed.detail], [3, 'e-mail not sent again: its engine stopped while handing it to the relay (ENGINE_RESTART)']);
    assert.equal((await get(w, `/rest-api/alarm/${mail.id}/`)).status, 3, 'FAILURE for good, an attempt left: it may have been sent');
  });

  test('an SMS attempt whose engine died after the send takes its outcome from its message: sent is SUCCESS; left unsent, failed ENGINE_RESTART by recovery, it fails for good and is not sent again', async () => {
    const w = await world('2026-01-05T15:00:00Z');
    const event = await post(w, 'event', { title: 'Lab', start: '2026-01-06T10:00:00-05:00', end: '2026-01-06T11:00:00-05:00', calendar: w.calendar.id });
    const longAgo = new Date(Date.now() - 3_600_000).toISOString();
    // What a crash after the send leaves: the alarm and its attempt IN_PROCESS, and its message
    // sent (recorded), failed (recorded), or still unsent: this engine's recovery then fails the
    // dead engine's message ENGINE_RESTART. A test's crash test/crash.test.ts makes for real.
    const crashed = async (message: { status: string; error?: string }) => {
      const alarm = await post(w, 'alarm', { event: event.id, method: 2, alarm_phonenumber: NEW_YORK, date_start_notice: '2027-01-01 00:00:00', maxretry: 1, retry_delay: 60 });
      await db.update(alarms).set({ status: 2, num_attempt: 1 }).where(eq(alarms.id, alarm.id));
      const [sms] = await db
        .insert(smsMessages)
        .values({ user_id: w.user.id, recipient_number: NEW_YORK, content: 'Reminder: Lab', engine_id: 'dead-engine', error: '', ...message })
        .returning({ id: smsMessages.id });
      await db.insert(alarmRequests).values({ user_id: w.user.id, alarm_id: alarm.id, date: '2026-01-05T14:00:00Z', method: 2, status: 2, sms_message_id: sms.id, created_date: longAgo });
      return { alarm: alarm.id, message: sms.id };
    };
    const sent = await crashed({ status: 'sent' });
    const lost = await crashed({ status: 'unsent' });
    const refused = await crashed({ status: 'failed', error: 'invalid destination' });
    await pass(w);
    const outcome = async (a: { alarm: number }) => {
      const [attempt] = await requestsOf(w, a.alarm);
      return [(await get(w, `/rest-api/alarm/${a.alarm}/`)).status, attempt.status, attempt.detail];
    };
    assert.deepEqual(await outcome(sent), [5, 5, `sms sent: message ${sent.message}`], 'SUCCESS, though its engine never recorded the attempt');
    assert.deepEqual(
      await outcome(lost),
      [3, 3, `sms not sent again: message ${lost.message} may have reached the gateway before its engine lost it (ENGINE_RESTART)`],
      'FAILURE for good, an attempt left: it may have been sent',
    );
    const message = await get(w, `/rest-api/sms-message/${lost.message}/`);
    assert.deepEqual([message.status, message.error], ['failed', 'ENGINE_RESTART'], 'the dead engine\'s message, failed by recovery');
    assert.deepEqual(await outcome(refused), [4, 3, 'sms not sent: invalid destination'], 'the gateway refused it: RETRY, as any failed send');
    assert.equal(w.sms.sent.length, 0, 'nothing sent again');
  });

  test('an SMS and an e-mail alarm send their templates, filled in with the callee and the event', async () => {
    const w = await world('2026-01-05T15:00:00Z');
    const sms = await post(w, 'sms-template', { label: 'r', template_key: 'reminder', sms_text: 'Hi {full_name}: {event_title} at {event_start}.' });
    const mail = await post(w, 'mail-template', { label: 'r', template_key: 'reminder', subject: 'Your {event_title}', message_plaintext: 'See you at {event_start}.' });
    const person = await post(w, 'calendar-user', { username: 'pat', first_name: 'Pat', last_name: 'Lee', calendar_setting: w.setting.url });
    const calendar = await post(w, 'calendar', { name: 'Pat', user: person.url });
    const event = await post(w, 'event', { title: 'Eye test', start: '2026-01-06T10:00:00-05:00', end: '2026-01-06T11:00:00-05:00', calendar: calendar.id });
    const bySms = await post(w, 'alarm', { event: event.id, method: 2, alarm_phonenumber: NEW_YORK, advance_notice: 86400, sms_template: sms.url });
    await post(w, 'alarm', { event: event.id, method: 3, alarm_email: 'pat.lee@example.com', advance_notice: 86400, mail_template: mail.id });
    assert.equal(bySms.sms_template, sms.url);
    await pass(w);
    assert.equal(w.sms.sent[0].text, 'Hi Pat Lee: Eye test at 2026-01-06 10:00.');
    const received = await exim.mailTo('pat.lee@example.com');
    assert.match(received.data, /^Subject: Your Eye test$/m);
    assert.match(received.data, /See you at 2026-01-06 15:00\./);
  });
});
