/**
 * The freeswitch driver against a fake FreeSWITCH Event Socket on loopback
 * (freeswitch.fixtures.ts): auth, the originate string, answer/busy/no-answer, the IVR commands
 * over sendmsg, answering-machine detection (mod_amd), speech recognition (detect_speech),
 * callmaxduration, a dropped socket; and
 * campaigns run through the engine.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../db/database.ts';
import { AmdStatus, CampaignStatus, SectionType } from '../../db/schema.ts';
import { dbLabel, testDatabase } from '../../../test/helpers.ts';
import { systemClock } from '../../clock.ts';
import { flowOf, scenario, section } from '../../engine/engine.fixtures.ts';
import { Engine } from '../../engine/engine.ts';
import { gatewayDrivers } from '../../engine/gateway-drivers.ts';
import type { OriginateRequest } from './driver.ts';
import { FreeswitchDriver } from './freeswitch.ts';
import { nlsmlText } from './freeswitch-messages.ts';
import { type FakeCallScript, FakeFreeswitch } from './freeswitch.fixtures.ts';
import { createDriver } from './index.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-driver-'));
after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
// Before any test is declared: test/test-files.test.ts says why.
const database = await testDatabase();
const db = database.db;

/** A fake switch (scripts by dialled number) and a driver connected to it; both closed after the test. */
async function setup(scripts: Record<string, FakeCallScript> = {}, settings: Record<string, unknown> = {}, fakeOpts: { amdLoaded?: boolean } = {}) {
  const fake = new FakeFreeswitch({ script: (to) => scripts[to] ?? {}, ...fakeOpts });
  const port = await fake.listen();
  const driver = new FreeswitchDriver({ port, ...settings }, { clock: systemClock, dataDir });
  after(async () => {
    await driver.close();
    await fake.close();
  });
  return { fake, driver, port };
}

let nextId = 1;
function request(to: string, over: Partial<OriginateRequest> = {}): OriginateRequest {
  return {
    callId: `call-${nextId++}`,
    to,
    callerId: '5550100',
    callerName: 'Acme',
    gateway: { id: 1, name: 'carrier', gateways: 'sofia/gateway/carrier/', originate_dial_string: '', settings: {} },
    timeoutSeconds: 2,
    maxDurationSeconds: 0,
    amd: false,
    variables: {},
    ...over,
  };
}

test('a wrong password fails the call with a clear error and originates nothing', { timeout: 10_000 }, async () => {
  const { fake, driver } = await setup({}, { password: 'wrong' });
  const answer = await driver.originate(request('15550001')).answered;
  assert.equal(answer.answered, false);
  assert.equal(!answer.answered && answer.hangup.cause, 41);
  assert.match(driver.error, /refused the password/);
  assert.equal(fake.sent('bgapi').length, 0);
  // Within the backoff the next call fails at once, without a new connection.
  const before = fake.commands.length;
  assert.equal((await driver.originate(request('15550002')).answered).answered, false);
  assert.equal(fake.commands.length, before);
});

test('originate sends the uuid, caller id, timeout, escaped variables and the dial string', { timeout: 10_000 }, async () => {
  const { fake, driver } = await setup();
  const call = driver.originate(
    request('15550001', {
      callId: 'abc-1',
      timeoutSeconds: 30,
      variables: { campaign_id: '7', full_name: "Ann, O'Lee", origination_uuid: 'hijack' },
      gateway: { id: 1, name: 'carrier', gateways: 'sofia/gateway/a/,sofia/gateway/b/', originate_dial_string: 'bridge_early_media=true', settings: {} },
    }),
  );
  assert.equal((await call.answered).answered, true);
  const [bg] = fake.sent('bgapi');
  assert.equal(
    bg.line,
    "bgapi originate {origination_uuid=abc-1,origination_caller_id_number=5550100,origination_caller_id_name=Acme,originate_timeout=30,ignore_early_media=true,campaign_id=7,full_name='Ann\\, O\\'Lee',bridge_early_media=true}sofia/gateway/a/15550001|sofia/gateway/b/15550001 &park()",
  );
  assert.match(bg.headers['Job-UUID'], /^[0-9a-f-]{36}$/);
  assert.deepEqual(fake.commands.slice(0, 2).map((c) => c.line), ['auth ClueCon', 'event plain BACKGROUND_JOB CHANNEL_ANSWER CHANNEL_HANGUP_COMPLETE CHANNEL_EXECUTE_COMPLETE DTMF DETECTED_SPEECH']);
  // Without a prefix the gateway's name makes the dial string.
  const other = driver.originate(request('15550002', { gateway: { id: 2, name: 'gw2', gateways: '', originate_dial_string: '', settings: {} } }));
  await other.answered;
  assert.match(fake.sent('bgapi')[1].line, /}sofia\/gateway\/gw2\/15550002 &park\(\)$/);
});

test('an answered call plays, collects, records, transfers and hangs up NORMAL_CLEARING', { timeout: 10_000 }, async () => {
  const { fake, driver } = await setup({ '15550001': { dtmf: ['12#', ''], recordSeconds: 4, transfer: { talkSeconds: 2 } } });
  const call = driver.originate(request('15550001'));
  assert.deepEqual(await call.answered, { answered: true, amd: 'none' });

  await call.play({ audioFile: 'audio/hello.wav', text: 'ignored' });
  assert.equal(await call.collect({ maxDigits: 5, timeoutSeconds: 1 }), '12');
  await call.play({ text: 'Say\nsomething' });
  assert.equal(await call.collect({ maxDigits: 1, timeoutSeconds: 0.1 }), '', 'no key: timeout');
  assert.deepEqual(await call.record({ maxSeconds: 60 }), { file: `recordings/${call.callId}-1.wav`, seconds: 4 });
  const leg = await call.transfer({ number: '15559999', callerId: '5550100', timeoutSeconds: 20 });
  assert.equal(leg.hangup.causeName, 'NORMAL_CLEARING');
  assert.equal(leg.hangup.billsec, 2, JSON.stringify(leg.hangup));
  assert.ok(leg.hangup.answeredAt);

  const apps = fake.sent('sendmsg').map((c) => `${c.headers['execute-app-name']} ${c.headers['execute-app-arg']}`);
  assert.deepEqual(apps.slice(0, 3), [
    `playback ${path.join(dataDir, 'audio/hello.wav')}`,
    'speak flite|kal|Say something',
    `record ${path.join(dataDir, 'recordings', `${call.callId}-1.wav`)} 60 200 5`,
  ]);
  assert.match(apps[3], new RegExp(`^bridge \\{origination_uuid=${leg.callId},origination_caller_id_number=5550100,originate_timeout=20\\}sofia/gateway/carrier/15559999$`));
  assert.ok(fake.sent('sendmsg').every((c) => c.headers['call-command'] === 'execute' && c.headers['event-lock'] === 'true'));

  await call.hangup();
  const hangup = await call.ended;
  assert.equal(fake.sent(`api uuid_kill ${call.callId}`)[0].line, `api uuid_kill ${call.callId} NORMAL_CLEARING`);
  assert.equal(hangup.cause, 16);
  // The fake's channel seconds: 2 prompts + 3 keys + a 4 s recording + a 3 s transfer (ring 1, talk 2).
  assert.ok(hangup.answeredAt);
  assert.equal(hangup.billsec, 12, JSON.stringify(hangup));
  assert.equal(await call.collect({ maxDigits: 1, timeoutSeconds: 1 }), null, 'after the hangup');
});

test('a transfer to a busy number reports the B-leg USER_BUSY, unanswered, and the call goes on', { timeout: 10_000 }, async () => {
  const { driver } = await setup({ '15550001': { transfer: { talkSeconds: 0, fail: 'USER_BUSY' } } });
  const call = driver.originate(request('15550001'));
  await call.answered;
  const leg = await call.transfer({ number: '15559999', callerId: '5550100', timeoutSeconds: 20 });
  assert.deepEqual([leg.hangup.cause, leg.hangup.causeName, leg.hangup.answeredAt, leg.hangup.billsec], [17, 'USER_BUSY', null, 0]);
  await call.play({ text: 'Sorry' }); // still up
  await call.hangup(21);
  assert.equal((await call.ended).causeName, 'CALL_REJECTED');
});

test('busy, no answer and a failed gateway give their cause and no answer', { timeout: 10_000 }, async () => {
  const { driver } = await setup({
    busy: { fail: 'USER_BUSY' },
    ringing: { fail: 'NO_ANSWER' },
    down: { fail: 'GATEWAY_DOWN', noChannel: true },
  });
  const outcomes = await Promise.all(['busy', 'ringing', 'down'].map((to) => driver.originate(request(to)).answered));
  const summary = outcomes.map((o) => (o.answered ? 'answered' : `${o.hangup.cause} ${o.hangup.causeName} ${o.hangup.billsec} ${o.hangup.answeredAt}`));
  assert.deepEqual(summary, ['17 USER_BUSY 0 null', '19 NO_ANSWER 0 null', '609 GATEWAY_DOWN 0 null']);
});

test('a call hung up while ringing ends ORIGINATOR_CANCEL', { timeout: 10_000 }, async () => {
  const { fake, driver } = await setup({ slow: { ringSeconds: 500 } });
  const call = driver.originate(request('slow', { timeoutSeconds: 60 }));
  while (!fake.sent('bgapi').length) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 20));
  await call.hangup();
  const answer = await call.answered;
  assert.equal(!answer.answered && answer.hangup.causeName, 'ORIGINATOR_CANCEL');
});

/** The `amd` applications the fake was asked to run, by channel. */
const amdRuns = (fake: FakeFreeswitch) => fake.sent('sendmsg').filter((c) => c.headers['execute-app-name'] === 'amd').map((c) => c.line.slice('sendmsg '.length));

test('with AMD asked, mod_amd decides the answer: MACHINE is machine, HUMAN person, NOTSURE or nothing unsure', { timeout: 10_000 }, async () => {
  const { fake, driver } = await setup({ m: { amd: 'MACHINE' }, h: { amd: 'HUMAN' }, n: { amd: 'NOTSURE' }, e: { amd: '' } });
  const calls = ['m', 'h', 'n', 'e'].map((to) => driver.originate(request(to, { amd: true })));
  const answers = await Promise.all(calls.map((c) => c.answered));
  assert.deepEqual(answers, ['machine', 'person', 'unsure', 'unsure'].map((amd) => ({ answered: true, amd })));
  assert.deepEqual(amdRuns(fake).sort(), calls.map((c) => c.callId).sort());
  assert.equal(fake.sent('api module_exists mod_amd').length, 1, 'asked once, as the connection opened');
  // The detection is part of the answered call: the fake's 2 s of analysis are billed.
  await calls[0].hangup();
  const hangup = await calls[0].ended;
  assert.deepEqual([hangup.causeName, hangup.billsec], ['NORMAL_CLEARING', 2], JSON.stringify(hangup));
});

test('without AMD asked no amd application runs and the answer is amd none', { timeout: 10_000 }, async () => {
  const { fake, driver } = await setup({ m: { amd: 'MACHINE' } });
  const call = driver.originate(request('m'));
  assert.deepEqual(await call.answered, { answered: true, amd: 'none' });
  await call.play({ text: 'Hello' });
  assert.deepEqual(amdRuns(fake), []);
});

test('without mod_amd loaded a call asking for AMD answers unsure and stays up (no amd run, which would hang it up)', { timeout: 10_000 }, async () => {
  const { fake, driver } = await setup({ m: { amd: 'MACHINE' } }, {}, { amdLoaded: false });
  const call = driver.originate(request('m', { amd: true }));
  assert.deepEqual(await call.answered, { answered: true, amd: 'unsure' });
  assert.deepEqual(amdRuns(fake), []);
  await call.play({ text: 'Hello' });
  await call.hangup();
  assert.equal((await call.ended).causeName, 'NORMAL_CLEARING');
});

test('a caller hanging up during detection ends an answered call, answered unsure', { timeout: 10_000 }, async () => {
  const { fake, driver } = await setup({ m: { amd: 'MACHINE', amdSeconds: 5, hangupAfterSeconds: 3 } });
  const call = driver.originate(request('m', { amd: true }));
  const [answer, hangup] = await Promise.all([call.answered, call.ended]);
  assert.deepEqual(answer, { answered: true, amd: 'unsure' });
  assert.equal(amdRuns(fake).length, 1, JSON.stringify(fake.commands));
  assert.ok(hangup.answeredAt, JSON.stringify(hangup));
  assert.deepEqual([hangup.causeName, hangup.billsec], ['NORMAL_CLEARING', 3], JSON.stringify(hangup));
  assert.equal(await call.collect({ maxDigits: 1, timeoutSeconds: 1 }), null);
});

/** The applications run on a channel, as `app arg`. */
const appsOf = (fake: FakeFreeswitch, callId: string) =>
  fake.sent(`sendmsg ${callId}`).map((c) => `${c.headers['execute-app-name']} ${c.headers['execute-app-arg']}`);

test('listen runs detect_speech, answers the words of its DETECTED_SPEECH result, then stops recognition', { timeout: 10_000 }, async () => {
  const { fake, driver } = await setup({ '15550001': { speech: 'yes please' } });
  const call = driver.originate(request('15550001'));
  await call.answered;
  assert.equal(await call.listen({ timeoutSeconds: 5 }), 'yes please');
  assert.deepEqual(appsOf(fake, call.callId), ['set fire_asr_events=true', 'detect_speech pocketsphinx default dialer', 'detect_speech stop']);
});

test('listen uses the asr_engine and asr_grammar settings, and each listen starts and stops its own recognition', { timeout: 10_000 }, async () => {
  const { fake, driver } = await setup({ '15550001': { speech: ['', 'no & never'] } }, { asr_engine: 'unimrcp:mrcp-v2', asr_grammar: 'builtin:grammar/boolean' });
  const call = driver.originate(request('15550001'));
  await call.answered;
  assert.equal(await call.listen({ timeoutSeconds: 0.2 }), '', 'silence');
  assert.equal(await call.listen({ timeoutSeconds: 5 }), 'no & never');
  const start = 'detect_speech unimrcp:mrcp-v2 builtin:grammar/boolean dialer';
  assert.deepEqual(appsOf(fake, call.callId), ['set fire_asr_events=true', start, 'detect_speech stop', start, 'detect_speech stop']);
});

test('listen with nothing said answers empty after its timeout, stops recognition, and the call goes on', { timeout: 10_000 }, async () => {
  const { fake, driver } = await setup();
  const call = driver.originate(request('15550001'));
  await call.answered;
  const from = Date.now();
  assert.equal(await call.listen({ timeoutSeconds: 0.3 }), '');
  assert.ok(Date.now() - from >= 290, `waited ${Date.now() - from} ms`);
  assert.deepEqual(appsOf(fake, call.callId).slice(1), ['detect_speech pocketsphinx default dialer', 'detect_speech stop']);
  await call.play({ text: 'Goodbye' });
  await call.hangup();
  assert.equal((await call.ended).causeName, 'NORMAL_CLEARING');
});

test('a caller hanging up during listen makes it answer null at once, with no stop sent', { timeout: 10_000 }, async () => {
  const { fake, driver } = await setup({ '15550001': { hangupAfterSeconds: 10 } });
  const call = driver.originate(request('15550001'));
  await call.answered;
  const from = Date.now();
  assert.equal(await call.listen({ timeoutSeconds: 30 }), null);
  assert.ok(Date.now() - from < 5000, `waited ${Date.now() - from} ms`);
  assert.deepEqual(appsOf(fake, call.callId), ['set fire_asr_events=true', 'detect_speech pocketsphinx default dialer']);
  assert.equal((await call.ended).causeName, 'NORMAL_CLEARING');
  assert.equal(await call.listen({ timeoutSeconds: 1 }), null, 'after the hangup');
});

test('nlsmlText reads the input of mod_pocketsphinx and mod_unimrcp results; no input, no match or none is empty', () => {
  const pocketsphinx = (input: string) => `<?xml version="1.0"?>\n<result grammar="yesno">\n  <interpretation>\n    <input mode="speech">${input}</input>\n  </interpretation>\n</result>\n`;
  assert.equal(nlsmlText(pocketsphinx(' yes \n please ')), 'yes please');
  assert.equal(nlsmlText(pocketsphinx('<noinput/>')), '');
  assert.equal(nlsmlText(pocketsphinx('<nomatch/>')), '');
  assert.equal(nlsmlText('<result><interpretation confidence="0.9"><instance>true</instance><input mode="speech" confidence="0.9">fish &amp; chips &#233;</input></interpretation></result>'), 'fish & chips é');
  assert.equal(nlsmlText('<result><interpretation><input mode="speech"><![CDATA[a <b> c]]></input></interpretation></result>'), 'a <b> c');
  assert.equal(nlsmlText(''), '');
});

test('callmaxduration cuts an answered call with ALLOTTED_TIMEOUT', { timeout: 10_000 }, async () => {
  const { fake, driver } = await setup();
  const call = driver.originate(request('15550001', { maxDurationSeconds: 3 }));
  assert.equal((await call.answered).answered, true);
  const hangup = await call.ended;
  assert.equal(fake.sent('api sched_hangup')[0].line, `api sched_hangup +3 ${call.callId} ALLOTTED_TIMEOUT`);
  assert.equal(hangup.cause, 602);
  assert.equal(hangup.causeName, 'ALLOTTED_TIMEOUT');
  assert.ok(hangup.answeredAt);
  assert.equal(hangup.billsec, 3, JSON.stringify(hangup));
});

test('record_calls: an answered call is recorded whole with uuid_record (stereo), reported on its hangup', { timeout: 10_000 }, async () => {
  const { fake, driver } = await setup();
  const call = driver.originate(request('15550001', { maxDurationSeconds: 2, recordCall: true }));
  assert.equal((await call.answered).answered, true);
  const hangup = await call.ended;
  assert.equal(fake.sent('api uuid_setvar')[0].line, `api uuid_setvar ${call.callId} RECORD_STEREO true`);
  assert.match(fake.sent('api uuid_record')[0].line, new RegExp(`^api uuid_record ${call.callId} start /.*recordings/${call.callId}-call\\.wav$`));
  assert.deepEqual(hangup.recording, { file: `recordings/${call.callId}-call.wav`, seconds: hangup.billsec });
  const unrecorded = driver.originate(request('15550002', { maxDurationSeconds: 1 }));
  assert.equal((await unrecorded.ended).recording, undefined);
});

test('a socket dropped mid-call fails the call; the next call reconnects and nothing is originated twice', { timeout: 10_000 }, async () => {
  const { fake, driver } = await setup();
  const first = driver.originate(request('15550001'));
  assert.equal((await first.answered).answered, true);
  const collecting = first.collect({ maxDigits: 1, timeoutSeconds: 5 });
  fake.dropConnections();
  const hangup = await first.ended;
  assert.equal(hangup.cause, 41);
  assert.ok(hangup.answeredAt, 'still an answered call');
  assert.equal(await collecting, null);

  const second = driver.originate(request('15550002'));
  assert.equal((await second.answered).answered, true);
  assert.equal(fake.authenticated, 2);
  assert.deepEqual(
    fake.sent('bgapi').map((c) => c.line.match(/origination_uuid=([^,]+)/)?.[1]),
    [first.callId, second.callId],
  );
  // The first call's channel, left on FreeSWITCH, is killed once the socket is back.
  while (!fake.sent(`api uuid_kill ${first.callId}`).length) await new Promise((r) => setTimeout(r, 5));
});

test('close() hangs up the calls in progress', { timeout: 10_000 }, async () => {
  const { fake, driver } = await setup();
  const call = driver.originate(request('15550001'));
  await call.answered;
  await driver.close();
  assert.equal((await call.ended).cause, 16);
  assert.equal(fake.sent('api uuid_kill').length, 1);
});

test('the registry builds the freeswitch driver and checks its settings', () => {
  assert.equal(createDriver({ driver: 'freeswitch', settings: {} }, { clock: systemClock, dataDir }).name, 'freeswitch');
  assert.throws(() => createDriver({ driver: 'freeswitch', settings: { port: 0, dial: 'x' } }, { clock: systemClock, dataDir }), /port: must be an integer from 1 to 65535\. dial: is not a setting/);
  assert.throws(
    () => createDriver({ driver: 'freeswitch', settings: { asr_engine: 'pocket sphinx', asr_grammar: '' } }, { clock: systemClock, dataDir }),
    /asr_engine: must be a non-empty string without spaces\. asr_grammar: must be a non-empty string without spaces\./,
  );
});

type CampaignValues = NonNullable<Parameters<typeof scenario>[1]>['campaign'];

/**
 * Runs a campaign calling `numbers` on a freeswitch gateway that points at `fake`, through the
 * engine, for `seconds` of its clock (one pass a second); closes the driver and the fake after.
 * Returns the campaign's id.
 */
async function runCampaign(fake: FakeFreeswitch, numbers: string[], campaign: CampaignValues, seconds: number): Promise<number> {
  const port = await fake.listen();
  const s = await scenario(db, {
    numbers,
    gateway: { driver: 'freeswitch', settings: { host: '127.0.0.1', port }, gateways: 'sofia/gateway/carrier/' },
    campaign: { end_when_done: true, calltimeout: 3, ...campaign },
  });
  const drivers = gatewayDrivers({ clock: s.clock, dataDir });
  const engine = new Engine({
    db,
    log: { info: () => {}, warn: () => {}, error: (m) => console.error(m) },
    clock: s.clock,
    drivers: (gateway) => drivers.driverOf(gateway),
    config: { timeZone: 'UTC', billingIncrement: 1 },
    databaseKind: 'postgres',
  });
  try {
    for (let i = 0; i < seconds; i++) {
      await engine.runOnce();
      await engine.settle();
      await s.clock.advance(1000);
    }
  } finally {
    await drivers.close();
    await fake.close();
  }
  return s.campaignId;
}

/** The survey answers recorded for the campaign's calls. */
const responsesOf = async (campaignId: number) =>
  (
    await queryRows<{ response: string }>(
      db,
      sql`select r.response from call_results r join callrequests c on c.id = r.callrequest_id where c.campaign_id = ${campaignId}`,
    )
  ).map((r) => r.response);

test(`a campaign on a freeswitch gateway runs to the end with the switch's causes and billsec in its CDRs (${dbLabel})`, { timeout: 60_000 }, async () => {
  const fake = new FakeFreeswitch({
    script: (to) => ({ '+15550001': { dtmf: ['1'], hangupAfterSeconds: 30 }, '+15550002': { fail: 'USER_BUSY' }, '+15550003': { fail: 'NO_ANSWER' } })[to] ?? {},
  });
  const question = section({ type: SectionType.MultiChoice, question: 'Press 1', timeout: 1, keys: [null, 'yes', ...Array(8).fill(null)], completed: true });
  const id = await runCampaign(fake, ['+15550001', '+15550002', '+15550003'], { survey_snapshot: flowOf([question]) }, 10);
  const [campaign] = await queryRows<{ status: number }>(db, sql`select status from campaigns where id = ${id}`);
  const cdrs = await queryRows<{ phone_number: string; hangup_cause_q850: number; disposition: string; billsec: number }>(
    db,
    sql`select phone_number, hangup_cause_q850, disposition, billsec from cdrs where campaign_id = ${id} order by phone_number`,
  );
  assert.equal(campaign.status, CampaignStatus.End, JSON.stringify(cdrs));
  assert.deepEqual(
    cdrs.map((c) => [c.phone_number, c.hangup_cause_q850, c.disposition]),
    [
      ['+15550001', 16, 'ANSWER'],
      ['+15550002', 17, 'BUSY'],
      ['+15550003', 19, 'NOANSWER'],
    ],
  );
  assert.equal(cdrs[0].billsec, 2, JSON.stringify(cdrs[0])); // the fake's channel seconds: the prompt, then the key
  assert.deepEqual(await responsesOf(id), ['1']);
  assert.equal(fake.sent('bgapi originate').length, 3);
});

test(`a voicemail campaign with amd_behavior 2 on a freeswitch gateway hangs up on mod_amd's machines, surveys its people, and records a hangup during detection as answered (${dbLabel})`, { timeout: 60_000 }, async () => {
  const fake = new FakeFreeswitch({
    script: (to) =>
      (
        ({
          '+15550001': { amd: 'MACHINE' },
          '+15550002': { amd: 'HUMAN', dtmf: ['1'] },
          '+15550003': { amd: 'MACHINE', amdSeconds: 5, hangupAfterSeconds: 1 },
        }) as Record<string, FakeCallScript>
      )[to] ?? {},
  });
  const question = section({ type: SectionType.MultiChoice, question: 'Press 1', timeout: 1, keys: [null, 'yes', ...Array(8).fill(null)], completed: true });
  const id = await runCampaign(fake, ['+15550001', '+15550002', '+15550003'], { voicemail: true, amd_behavior: 2, survey_snapshot: flowOf([question]) }, 10);
  const cdrs = await queryRows<{ phone_number: string; amd_status: number; disposition: string; billsec: number; callid: string }>(
    db,
    sql`select phone_number, amd_status, disposition, billsec, callid from cdrs where campaign_id = ${id} order by phone_number`,
  );
  assert.deepEqual(
    cdrs.map((c) => [c.phone_number, c.amd_status, c.disposition]),
    [
      ['+15550001', AmdStatus.Machine, 'ANSWER'],
      ['+15550002', AmdStatus.Person, 'ANSWER'],
      ['+15550003', AmdStatus.Unsure, 'ANSWER'],
    ],
    JSON.stringify(cdrs),
  );
  assert.deepEqual(await responsesOf(id), ['1'], 'only the person was surveyed');
  assert.equal(cdrs[2].billsec, 1, JSON.stringify(cdrs[2])); // hung up 1 s into the detection
  const prompts = fake.sent('sendmsg').filter((c) => c.headers['execute-app-name'] === 'speak').map((c) => c.line);
  assert.deepEqual(prompts, [`sendmsg ${cdrs[1].callid}`], 'the machine heard nothing');
});

test(`a speech recognition section of a campaign on a freeswitch gateway records the caller's words as its response (${dbLabel})`, { timeout: 60_000 }, async () => {
  const fake = new FakeFreeswitch({ script: (to) => (to === '+15550001' ? { speech: 'yes please' } : {}) });
  const question = section({ type: SectionType.SpeechRecognition, question: 'Say yes or no', timeout: 5, completed: true });
  const id = await runCampaign(fake, ['+15550001'], { survey_snapshot: flowOf([question]) }, 5);
  assert.deepEqual(await responsesOf(id), ['yes please'], JSON.stringify(fake.commands.map((c) => c.headers['execute-app-arg'] ?? c.line)));
});
