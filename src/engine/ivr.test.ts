import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { queryRows } from '../db/database.ts';
import { campaigns, subscribers } from '../db/schema.ts';
import { dbLabel, testDatabase } from '../../test/helpers.ts';
import { flowOf, pass, scenario, section } from './engine.fixtures.ts';
import { runSurvey } from './ivr.ts';
import { ScriptedDriver } from '../drivers/voice/scripted.ts';
import { systemClock } from '../clock.ts';

const database = await testDatabase();
const db = database.db;

const subscriberOf = async (campaignId: number) => (await db.select().from(subscribers).where(eq(subscribers.campaign_id, campaignId)))[0];
const keys = (labels: Record<number, string>) => Array.from({ length: 10 }, (_, i) => labels[i] ?? null);

function surveyFlow() {
  const play = section({ order: 1, type: 1, question: 'Welcome', script: 'Hello' });
  const transfer = section({ order: 4, type: 6, question: 'Transfer', phonenumber: '+15559999', completed: true });
  const bye = section({ order: 5, type: 7, question: 'Bye' });
  const capture = section({ order: 3, type: 4, question: 'Age?', number_digits: 2, min_number: 18, max_number: 99 });
  const choice = section({
    order: 2,
    type: 2,
    question: 'Press 1 for age, 2 to leave',
    keys: keys({ 1: 'age', 2: 'leave' }),
    branches: [
      { id: 1, keys: '1', goto: capture.id },
      { id: 2, keys: '2', goto: bye.id },
    ],
  });
  return flowOf([play, choice, capture, transfer, bye]);
}

test(`the survey plays, branches on a key, captures digits, transfers as a B-leg and completes (${dbLabel})`, async () => {
  const s = await scenario(db, { campaign: { survey_snapshot: surveyFlow() }, script: () => ({ keys: ['1', '42'], billsec: 30 }) });
  assert.equal(await pass(s), 1);
  const results = await queryRows<{ question: string; response: string }>(
    db,
    sql`select question, response from call_results r join callrequests c on c.id = r.callrequest_id where c.campaign_id = ${s.campaignId} order by r.id`,
  );
  assert.deepEqual(results, [
    { question: 'Press 1 for age, 2 to leave', response: '1' },
    { question: 'Age?', response: '42' },
    { question: 'Transfer', response: '+15559999' },
  ]);
  const legs = await queryRows<{ leg_type: number; phone_number: string; billsec: number }>(
    db,
    sql`select leg_type, phone_number, billsec from cdrs where campaign_id = ${s.campaignId} order by leg_type`,
  );
  assert.deepEqual(legs, [
    { leg_type: 1, phone_number: '+15550001', billsec: 30 },
    { leg_type: 2, phone_number: '+15559999', billsec: 12 },
  ]);
  assert.equal((await subscriberOf(s.campaignId)).status, 8, 'reached a completed section: COMPLETED');
});

test(`key 2 goes to the hang-up section and the subscriber is SENT, not COMPLETED (${dbLabel})`, async () => {
  const s = await scenario(db, { campaign: { survey_snapshot: surveyFlow() }, script: () => ({ keys: ['2'] }) });
  await pass(s);
  assert.deepEqual(s.driver.calls[0].log, ['play:Hello', 'play:Press 1 for age, 2 to leave', 'collect', 'play:Bye', 'hangup:16']);
  assert.equal((await subscriberOf(s.campaignId)).status, 5);
});

test(`a capture outside min/max is retried, then an invalid answer (${dbLabel})`, async () => {
  const capture = section({ type: 4, question: 'Age?', retries: 1, min_number: 18, max_number: 99 });
  const s = await scenario(db, { campaign: { survey_snapshot: flowOf([capture]) }, script: () => ({ keys: ['12', '07'] }) });
  await pass(s);
  assert.equal(s.driver.calls[0].log.filter((l) => l === 'collect').length, 2);
  const [r] = await queryRows<{ response: string }>(db, sql`select response from call_results r join callrequests c on c.id = r.callrequest_id where c.campaign_id = ${s.campaignId}`);
  assert.equal(r.response, '');
});

test(`amd_behavior 2 hangs up on machines without playing the survey (${dbLabel})`, async () => {
  const s = await scenario(db, { campaign: { voicemail: true, amd_behavior: 2 }, script: () => ({ amd: 'machine' }) });
  await pass(s);
  assert.deepEqual(s.driver.calls[0].log, ['hangup:16']);
  const [cdr] = await queryRows<{ amd_status: number }>(db, sql`select amd_status from cdrs where campaign_id = ${s.campaignId}`);
  assert.equal(cdr.amd_status, 2);
});

test(`amd_behavior 3 hangs up on people, and 1 plays the voicemail audio to machines (${dbLabel})`, async () => {
  const a = await scenario(db, { campaign: { voicemail: true, amd_behavior: 3 }, script: () => ({ amd: 'person' }) });
  await pass(a);
  assert.deepEqual(a.driver.calls[0].log, ['hangup:16']);
  const b = await scenario(db, { campaign: { voicemail: true, amd_behavior: 1 }, script: () => ({ amd: 'machine' }) });
  await pass(b);
  assert.equal(b.driver.calls[0].log.length, 2, JSON.stringify(b.driver.calls[0].log));
  assert.match(b.driver.calls[0].log[0], /^play:/);
  const c = await scenario(db, { campaign: { voicemail: true, amd_behavior: 1 }, script: () => ({ amd: 'person' }) });
  await pass(c);
  assert.deepEqual(c.driver.calls[0].log, ['play:Hello', 'hangup:16']);
});

test(`calltimeout, callmaxduration, caller id by areacode and gateway prefixes reach the driver (${dbLabel})`, async () => {
  const s = await scenario(db, {
    campaign: { calltimeout: 33, callmaxduration: 120 },
    gateway: { removeprefix: '+', addprefix: '00' },
    numbers: ['+33140000000'],
  });
  await pass(s);
  const req = s.driver.calls[0].request;
  assert.deepEqual([req.to, req.timeoutSeconds, req.maxDurationSeconds, req.callerId], ['0033140000000', 33, 120, '5550100']);
});

test(`a send-SMS section without an SMS gateway records that no SMS was sent (${dbLabel})`, async () => {
  const s = await scenario(db, { campaign: { survey_snapshot: flowOf([section({ type: 10, question: 'SMS', sms_text: 'hi' })]) } });
  await pass(s);
  const [r] = await queryRows<{ response: string }>(db, sql`select response from call_results r join callrequests c on c.id = r.callrequest_id where c.campaign_id = ${s.campaignId}`);
  assert.equal(r.response, 'sms not sent: no SMS gateway');
  assert.equal((await db.select().from(campaigns).where(eq(campaigns.id, s.campaignId)))[0].status, 1);
});

test(`a section that fails stops the survey, and what the caller answered before it is kept (${dbLabel})`, async () => {
  const choice = section({ order: 1, type: 2, question: 'Press 1 to be texted', keys: keys({ 1: 'yes' }) });
  const text = section({ order: 2, type: 10, question: 'Texting you', sms_text: 'hi' });
  const bye = section({ order: 3, type: 1, question: 'Bye', script: 'Bye' });
  const driver = new ScriptedDriver(systemClock, () => ({ keys: ['1'] }));
  const call = driver.originate({
    callId: 'c1', to: '+15550001', callerId: '', callerName: '', timeoutSeconds: 30, maxDurationSeconds: 60, amd: false, variables: {},
    gateway: { id: 1, name: 'g', gateways: '', originate_dial_string: '', settings: {} },
  });
  assert.equal((await call.answered).answered, true);
  const out = await runSurvey({
    db,
    call,
    flow: flowOf([choice, text, bye]),
    variables: {},
    callerId: '',
    campaign: { id: 1, user_id: 1, dnc_id: null, sms_gateway_id: 1, calltimeout: 30 },
    phoneNumber: '+15550001',
    phoneKey: '15550001',
    sendSms: () => Promise.reject(new Error('Connection terminated unexpectedly')),
  });
  assert.deepEqual(out.results.map((r) => [r.question, r.response]), [['Press 1 to be texted', '1']], 'the answer before the failure is kept');
  assert.equal(out.error, `section ${text.id}: Connection terminated unexpectedly`);
  assert.ok(!driver.calls[0].log.some((l) => l.includes('Bye')), `no section after the failed one was played: ${driver.calls[0].log.join(', ')}`);
});
