/**
 * Answering-machine detection through the sip driver, against sipp as the carrier
 * (test/sip/amd-carrier.xml): one callee answers with a recorded voicemail greeting (espeak-ng)
 * and its beep (sox), another with a person's short "Hello?" then silence; sipp plays both. A
 * third answers with the same greeting played by test/sip/phone.ts, which keeps what we send,
 * so the test hears when our message starts and what it says. Campaigns with `voicemail` run
 * through the engine to their end, and the CDRs' amd_status, what each amd_behavior did
 * (survey, voicemail audio, hang-up), when sipp saw our BYE, and billing are checked. The audio
 * is made at test time; a missing espeak-ng or sox fails the test.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/database.ts';
import { AmdStatus, audioFiles, campaigns, SectionType, SubscriberStatus } from '../../src/db/schema.ts';
import { BEEP_WAIT_SECONDS } from '../../src/engine/call.ts';
import type { Scenario } from '../../src/engine/engine.fixtures.ts';
import { flowOf, section } from '../../src/engine/engine.fixtures.ts';
import { dbLabel, eventually, testDatabase } from '../helpers.ts';
import { type CampaignValues, runSipCampaign } from './campaign.ts';
import { readWav, run, similarity } from './media/peers.ts';
import { type Peer, startSipp } from './peers.ts';
import { afterAPause, type Phone, phone } from './phone.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sip-amd-'));
const database = await testDatabase();
const db = database.db;
const sippLog = path.join(dir, 'amd-carrier.log');
let sipp: Peer;
/** The third callee's phone: plays the greeting and its beep, keeps what we send. */
let machinePhone: Phone;
/** Our message at 8 kHz, as the machine should record it. */
let messagePcm: Int16Array;
/** Seconds of the spoken greeting (its beep follows), and of our voicemail message. */
let greetingSeconds = 0;
const BEEP_SECONDS = 0.5;
let messageSeconds = 0;

before(async () => {
  const spoken = path.join(dir, 'spoken.wav');
  await run('espeak-ng', ['-w', spoken, 'Hello, you have reached the voicemail of John Smith. I cannot take your call right now. Please leave a message after the tone.']);
  await run('sox', ['-n', '-r', '22050', '-c', '1', '-b', '16', path.join(dir, 'beep.wav'), 'synth', String(BEEP_SECONDS), 'sine', '1000', 'vol', '0.5']);
  // sipp's rtp_stream plays mu-law 8 kHz files: the greeting then the beep, and "Hello?" then 4 s of silence.
  await run('sox', [spoken, path.join(dir, 'beep.wav'), '-r', '8000', '-c', '1', '-e', 'u-law', path.join(dir, 'voicemail.wav')]);
  await run('sox', [spoken, '-r', '8000', '-c', '1', '-e', 'u-law', path.join(dir, 'nobeep.wav')]);
  await run('espeak-ng', ['-w', path.join(dir, 'hello-spoken.wav'), 'Hello?']);
  await run('sox', [path.join(dir, 'hello-spoken.wav'), '-r', '8000', '-c', '1', '-e', 'u-law', path.join(dir, 'hello.wav'), 'pad', '0.3', '4']);
  // Our message to machines, an audio file under the engine's DATA_DIR.
  await run('espeak-ng', ['-w', path.join(dir, 'message.wav'), 'This is Acme calling about your order. Please call us back.']);
  const greeting = await readWav(spoken);
  greetingSeconds = greeting.pcm.length / greeting.sampleRate;
  const message = await readWav(path.join(dir, 'message.wav'));
  messageSeconds = message.pcm.length / message.sampleRate;
  await run('sox', [path.join(dir, 'message.wav'), '-r', '8000', '-c', '1', '-b', '16', path.join(dir, 'message-8k.wav')]);
  messagePcm = (await readWav(path.join(dir, 'message-8k.wav'))).pcm;
  await run('sox', [spoken, path.join(dir, 'beep.wav'), '-r', '8000', '-c', '1', '-b', '16', path.join(dir, 'voicemail-8k.wav')]);
  machinePhone = await phone({ speak: (await readWav(path.join(dir, 'voicemail-8k.wav'))).pcm });
  sipp = await startSipp('amd-carrier.xml', dir, ['-trace_logs', '-log_file', sippLog, '-key', 'tap_port', String(machinePhone.port)]);
});

after(async () => {
  await sipp?.stop();
  machinePhone?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const ask = section({ type: SectionType.MultiChoice, question: 'Press 1', timeout: 1, keys: [null, 'yes', ...Array(8).fill(null)] });

/** A voicemail campaign through sipp whose message to machines is message.wav. */
function runAmdCampaign(numbers: string[], campaign: CampaignValues): Promise<number> {
  return runSipCampaign(db, dir, {
    numbers,
    settings: { proxy: `127.0.0.1:${sipp.port}`, cps: 20 },
    campaign: { voicemail: true, survey_snapshot: flowOf([ask]), ...campaign },
    seconds: 60,
    prepare: async (s: Scenario) => {
      const [file] = await db.insert(audioFiles).values({ name: 'message', audio_file: 'message.wav', content_type: 'audio/wav', user_id: s.userId }).returning();
      await db.update(campaigns).set({ voicemail_audiofile_id: file.id }).where(eq(campaigns.id, s.campaignId));
    },
  });
}

interface Leg {
  phone_number: string;
  amd_status: number;
  disposition: string;
  hangup_cause_q850: number;
  billsec: number;
  call_cost: string;
}

async function outcomeOf(id: number) {
  const cdrs = await queryRows<Leg>(db, sql`select phone_number, amd_status, disposition, hangup_cause_q850, billsec, call_cost::text from cdrs where campaign_id = ${id} order by phone_number`);
  const answers = await queryRows<{ phone_number: string; question: string }>(
    db,
    sql`select c.phone_number, r.question from call_results r join callrequests c on c.id = r.callrequest_id where c.campaign_id = ${id} order by c.phone_number`,
  );
  const subscribers = await queryRows<{ duplicate_contact: string; status: number }>(db, sql`select duplicate_contact, status from subscribers where campaign_id = ${id} order by duplicate_contact`);
  const [owner] = await queryRows<{ balance: string }>(db, sql`select u.balance::text from users u join campaigns c on c.user_id = u.id where c.id = ${id}`);
  return { cdrs, answers, subscribers, balance: Number(owner.balance), detail: JSON.stringify(cdrs) };
}

/** Seconds from our ACK to our BYE as sipp saw them, for the call to `number`. */
async function callSeconds(number: string): Promise<number> {
  const find = (what: string) => {
    const text = fs.existsSync(sippLog) ? fs.readFileSync(sippLog, 'utf8') : '';
    const m = new RegExp(`^${number.replace('+', '')} ${what} (\\d+)`, 'm').exec(text);
    return m ? Number(m[1]) : null;
  };
  assert.ok(await eventually(async () => find('bye') !== null, 3000), `sipp logged no BYE for ${number}:\n${sipp.output().slice(-2000)}`);
  return ((find('bye') as number) - (find('ack') as number)) / 1000;
}

/** Billing: 0.6 a minute by the second, taken from the owner's balance of 100. */
function assertBilled(o: Awaited<ReturnType<typeof outcomeOf>>): void {
  for (const c of o.cdrs) assert.equal(Number(c.call_cost).toFixed(5), (c.billsec * 0.01).toFixed(5), o.detail);
  const billed = o.cdrs.reduce((sum, c) => sum + Number(c.call_cost), 0);
  assert.ok(billed > 0, o.detail);
  assert.equal(o.balance.toFixed(5), (100 - billed).toFixed(5));
}

test(`amd_behavior 3: the greeting is a machine, which gets the voicemail audio only after its beep (or the wait's maximum, without one); the person is hung up on (${dbLabel})`, { timeout: 120_000 }, async () => {
  const id = await runAmdCampaign(['+15550001', '+15550002', '+15550003', '+15550004'], { amd_behavior: 3 });
  const o = await outcomeOf(id);
  assert.deepEqual(
    o.cdrs.map((c) => [c.phone_number, c.amd_status, c.disposition, c.hangup_cause_q850]),
    [
      ['+15550001', AmdStatus.Machine, 'ANSWER', 16],
      ['+15550002', AmdStatus.Person, 'ANSWER', 16],
      ['+15550003', AmdStatus.Machine, 'ANSWER', 16],
      ['+15550004', AmdStatus.Machine, 'ANSWER', 16],
    ],
    o.detail,
  );
  assert.deepEqual(o.answers, [], 'none heard the survey');
  assert.deepEqual(o.subscribers.map((s) => s.status), Array(4).fill(SubscriberStatus.Sent));
  // What the third machine recorded: silence until its beep was over, then our whole message.
  const beepOverMs = (greetingSeconds + BEEP_SECONDS) * 1000;
  const startedMs = machinePhone.firstSoundAfterSpeechMs(300);
  assert.ok(startedMs !== null, `nothing audible reached the machine (${machinePhone.packets()} packets)`);
  assert.ok(startedMs >= beepOverMs - 40, `our message started ${startedMs.toFixed(0)} ms into the greeting, its beep ends at ${beepOverMs.toFixed(0)} ms`);
  assert.ok(startedMs <= beepOverMs + 1000, `our message started ${startedMs.toFixed(0)} ms into the greeting, its beep ends at ${beepOverMs.toFixed(0)} ms: late`);
  const recorded = similarity(messagePcm, afterAPause(machinePhone.pcm()));
  assert.ok(recorded > 0.8, `the machine's recording against our message: median correlation ${recorded.toFixed(3)}`);
  // The machine sipp played: the greeting, its beep to the end, then our whole message.
  const machine = await callSeconds('+15550001');
  const earliest = greetingSeconds + BEEP_SECONDS + messageSeconds;
  assert.ok(machine >= earliest - 0.1, `BYE ${machine.toFixed(2)} s after the answer; greeting ${greetingSeconds.toFixed(2)} s + message ${messageSeconds.toFixed(2)} s`);
  assert.ok(machine <= earliest + 2, `BYE ${machine.toFixed(2)} s after the answer: the beep was not heard (waited its maximum?)`);
  // A greeting with no beep: the message plays once the wait's maximum is over (after the verdict, within the 5 s analysis).
  const noBeep = await callSeconds('+15550004');
  const waited = BEEP_WAIT_SECONDS + messageSeconds;
  assert.ok(noBeep >= waited && noBeep <= waited + 6, `BYE ${noBeep.toFixed(2)} s after the answer; wait ${BEEP_WAIT_SECONDS} s + message ${messageSeconds.toFixed(2)} s`);
  // The person: "Hello?" (0.3 s + ~0.5 s), then mod_amd's 800 ms of silence, and we hang up.
  const person = await callSeconds('+15550002');
  assert.ok(person < 3, `hung up on the person ${person.toFixed(2)} s after the answer`);
  const billsec = o.cdrs[0].billsec;
  assert.ok(Math.abs(billsec - machine) <= 1, `machine billsec ${billsec} against ${machine.toFixed(2)} s seen by sipp`);
  assertBilled(o);
});

test(`amd_behavior 1 plays the voicemail audio to the machine at once (over its greeting) and the survey to the person; 2 hangs up on the machine (${dbLabel})`, { timeout: 120_000 }, async () => {
  const id = await runAmdCampaign(['+15560001', '+15560002'], { amd_behavior: 1 });
  const o = await outcomeOf(id);
  assert.deepEqual(o.cdrs.map((c) => [c.phone_number, c.amd_status, c.disposition]), [['+15560001', AmdStatus.Machine, 'ANSWER'], ['+15560002', AmdStatus.Person, 'ANSWER']], o.detail);
  assert.deepEqual(o.answers, [{ phone_number: '+15560002', question: 'Press 1' }]);
  // Without the wait for the beep, our message has ended before the greeting has.
  const machine = await callSeconds('+15560001');
  assert.ok(machine >= messageSeconds && machine < greetingSeconds, `BYE ${machine.toFixed(2)} s after the answer; greeting ${greetingSeconds.toFixed(2)} s, message ${messageSeconds.toFixed(2)} s`);
  assertBilled(o);

  const people = await runAmdCampaign(['+15570001', '+15570002'], { amd_behavior: 2 });
  const p = await outcomeOf(people);
  assert.deepEqual(p.cdrs.map((c) => [c.phone_number, c.amd_status, c.disposition]), [['+15570001', AmdStatus.Machine, 'ANSWER'], ['+15570002', AmdStatus.Person, 'ANSWER']], p.detail);
  assert.deepEqual(p.answers, [{ phone_number: '+15570002', question: 'Press 1' }]);
  const hungUp = await callSeconds('+15570001');
  assert.ok(hungUp < 3, `hung up on the machine ${hungUp.toFixed(2)} s after the answer`);
  assertBilled(p);
});
