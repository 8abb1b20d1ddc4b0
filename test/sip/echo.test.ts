/**
 * The callee hears the section's prompt: sipp plays a carrier that answers, presses 1 and
 * echoes our RTP (test/sip/echo-carrier.xml with -rtp_echo), tcpdump captures the SIP and RTP
 * that reach it, and a campaign runs through the real server (`campaign-dialer serve`, its HTTP
 * API, the engine and the sip driver) to its end — the very pieces `npm run demo:sip` runs
 * (scripts/demo-sip.ts). The audio that reached sipp, decoded by sox, must be the uploaded
 * prompt and then the spoken goodbye; the subscribers, call requests, CDRs and the survey's
 * answer the API shows must agree with what the wire shows.
 *
 * The recording is taken on the wire, not by a RecordMessage section: sipp's echo comes back
 * while the prompt plays, and a record section records only after its prompt has ended.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type { Backend } from '../../bench/support.ts';
import { CONFIRMED_TEXT, PROMPT_TEXT, readPcap, run, runSipCampaign, startCarrier, startDialer, wireCalls, writeHeard } from '../../scripts/demo-sip.ts';
import { CallRequestStatus, SubscriberStatus } from '../../src/db/schema.ts';
import { dbLabel, freshPostgresDatabase, onPostgres } from '../helpers.ts';
import { level, readWav, similarity } from './media/peers.ts';

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sip-echo-'));
const stops: (() => Promise<void>)[] = [];
after(async () => {
  for (const stop of stops.reverse()) await stop();
  await fs.rm(dir, { recursive: true, force: true });
});

/** Where the first sound is (the first 20 ms frame above the silence level). */
function firstSound(pcm: Int16Array, from = 0): number {
  for (let i = from; i + 160 <= pcm.length; i += 160) if (level(pcm.subarray(i, i + 160)) > 300) return i;
  return pcm.length;
}
/**
 * What was heard is compared from a quarter second before its first sound, so that no sound
 * starts earlier in it than in the reference (similarity() looks for each piece of the
 * reference at the same place or up to a second later).
 */
const LEAD = 2000;
const heardFrom = (pcm: Int16Array, from: number) => pcm.subarray(Math.max(0, firstSound(pcm, from) - LEAD));

/** `text` spoken by espeak-ng (as the driver speaks) and resampled to 8 kHz by sox, from its first sound. */
async function spoken(name: string, text: string): Promise<{ wav: string; pcm: Int16Array }> {
  const wav = path.join(dir, `${name}.wav`);
  await run('espeak-ng', ['-w', wav, '--', text]);
  await run('sox', [wav, '-r', '8000', path.join(dir, `${name}-8k.wav`)]);
  const { pcm } = await readWav(path.join(dir, `${name}-8k.wav`));
  return { wav, pcm: pcm.subarray(firstSound(pcm)) };
}

async function backend(): Promise<Backend> {
  const dataDir = path.join(dir, 'data');
  if (!onPostgres) return { name: 'PGlite', env: { DATA_DIR: dataDir, DATABASE_URL: '' }, cleanup: async () => {} };
  const { url, drop } = await freshPostgresDatabase();
  stops.push(drop);
  return { name: 'PostgreSQL', env: { DATA_DIR: dataDir, DATABASE_URL: url }, cleanup: drop };
}

test(`sipp echoes what our campaign played: the audio that reached it is the section's prompt, then the spoken goodbye; the records agree with the wire (${dbLabel})`, { timeout: 300_000 }, async (t) => {
  const prompt = await spoken('prompt', PROMPT_TEXT);
  const goodbye = await spoken('goodbye', CONFIRMED_TEXT);
  const unrelated = await spoken('unrelated', 'The weather today is sunny, with a light breeze from the west.');
  const carrier = await startCarrier(dir);
  stops.push(() => carrier.stop());
  const { server, api } = await startDialer(await backend(), crypto.randomBytes(12).toString('hex'));
  stops.push(() => server.stop());

  const [answered, busy] = ['+15550200001', '+15550200002']; // echo-carrier.xml: a number ending in 2 is busy
  const report = await runSipCampaign(api, { proxy: carrier.proxy, promptWav: prompt.wav, numbers: [answered, busy], recordCalls: true });
  await carrier.capture.stop();
  const detail = JSON.stringify(report, null, 1);
  assert.equal(report.status, 4, `the campaign ended (END)\n${detail}`);
  assert.deepEqual(
    report.subscribers.map((s) => [s.contact, s.status]).sort(),
    [[answered, SubscriberStatus.Completed], [busy, SubscriberStatus.Fail]],
    detail,
  );
  assert.deepEqual(
    report.callrequests.map((r) => [r.phone_number, r.status, r.hangup_cause_q850]).sort(),
    [[answered, CallRequestStatus.Success, 16], [busy, CallRequestStatus.Failure, 17]],
    detail,
  );
  const byNumber = (n: string) => report.calls.find((c) => c.number === n);
  assert.deepEqual(
    [answered, busy].map((n) => [n, byNumber(n)?.disposition, byNumber(n)?.q850, byNumber(n)?.key]),
    [[answered, 'ANSWER', 16, '1'], [busy, 'BUSY', 17, '']],
    detail,
  );

  // The wire: the same calls (by Call-ID), the answer and BYE times, the audio sipp got.
  const wire = wireCalls(readPcap(await fs.readFile(carrier.capture.file)), carrier.sipp);
  const call = wire.find((w) => w.callId === byNumber(answered)?.callid);
  const refused = wire.find((w) => w.callId === byNumber(busy)?.callid);
  assert.ok(call?.answeredAt && call.endedAt, `the answered call's 200 and BYE are on the wire: ${JSON.stringify(wire.map((w) => ({ ...w, payloads: w.payloads.length })))}`);
  assert.equal(refused?.payloads.length, 0, 'the busy number got no audio');
  const cdr = byNumber(answered)!;
  const billsec = (call.endedAt - call.answeredAt) / 1000;
  const duration = (call.endedAt - call.invitedAt) / 1000;
  assert.ok(Math.abs(cdr.billsec - billsec) <= 1, `billsec ${cdr.billsec} from the 200 OK to the BYE: ${billsec.toFixed(2)} s on the wire`);
  assert.ok(Math.abs(cdr.duration - duration) <= 1, `duration ${cdr.duration} from the INVITE to the BYE: ${duration.toFixed(2)} s on the wire`);
  assert.ok(duration - billsec >= 0.9, 'sipp rang 1 s before answering');
  // sipp echoed the packets back to where they came from (on a loaded machine it may drop a few).
  assert.ok(call.payloads.length > 0 && call.echoed >= 0.9 * call.payloads.length, `${call.payloads.length} RTP packets reached sipp, ${call.echoed} echoed`);

  // What the callee heard: the prompt, from its first sound, as sox resamples the uploaded file…
  const heardWav = path.join(dir, 'heard.wav');
  await writeHeard(call, heardWav);
  const { pcm } = await readWav(heardWav);
  const heard = heardFrom(pcm, 0);
  const promptMatch = similarity(prompt.pcm, heard);
  const heardSeconds = `${(heard.length / 8000).toFixed(1)} s heard from ${(pcm.length / 8000).toFixed(1)} s rebuilt of ${call.payloads.length} packets`;
  assert.ok(promptMatch > 0.9, `the audio that reached sipp vs the prompt: median correlation ${promptMatch.toFixed(3)} (${heardSeconds})`);
  // …then, after it, the goodbye section spoken by espeak-ng (branch of key 1).
  const afterPrompt = heardFrom(pcm, firstSound(pcm) + prompt.pcm.length);
  const goodbyeMatch = similarity(goodbye.pcm, afterPrompt);
  assert.ok(goodbyeMatch > 0.9, `the audio after the prompt vs the goodbye: median correlation ${goodbyeMatch.toFixed(3)}`);
  // The measure tells prompts apart: another sentence, or silence, does not pass it.
  const wrong = similarity(unrelated.pcm, heard);
  assert.ok(wrong < 0.5, `an unrelated sentence scores ${wrong.toFixed(3)}`);
  assert.equal(similarity(prompt.pcm, new Int16Array(heard.length)), 0);
  t.diagnostic(`median correlation with the prompt ${promptMatch.toFixed(3)}, the goodbye ${goodbyeMatch.toFixed(3)}, an unrelated sentence ${wrong.toFixed(3)}`);

  // record_calls (issue 16 item 6): the answered call's whole-call recording, through the API: a
  // stereo WAV whose right channel (what we sent) is the prompt and whose left (what we heard)
  // is sipp's echo of it.
  const get = (url: string) => fetch(url, { headers: { authorization: api.authorization } });
  const request = report.callrequests.find((r) => r.phone_number === answered)!;
  const calls = (await (await get(`${api.base}/rest-api/callrequest/?campaign_id=${report.campaignId}`)).json()) as { results: { id: number; phone_number: string }[] };
  const id = calls.results.find((r) => r.phone_number === answered)!.id;
  const recordings = (await (await get(`${api.base}/rest-api/callrequest/${id}/recordings/`)).json()) as { results: { kind: string; download: string }[] };
  assert.deepEqual(recordings.results.map((r) => r.kind), ['call'], `${request.request_uuid}: ${JSON.stringify(recordings)}`);
  const file = path.join(dir, 'whole-call.wav');
  await fs.writeFile(file, Buffer.from(await (await get(recordings.results[0].download)).arrayBuffer()));
  await run('sox', [file, path.join(dir, 'whole-call-sent.wav'), 'remix', '2']);
  await run('sox', [file, path.join(dir, 'whole-call-heard.wav'), 'remix', '1']);
  const sent = (await readWav(path.join(dir, 'whole-call-sent.wav'))).pcm;
  const echoed = (await readWav(path.join(dir, 'whole-call-heard.wav'))).pcm;
  const sentMatch = similarity(prompt.pcm, heardFrom(sent, 0));
  const echoMatch = similarity(prompt.pcm, heardFrom(echoed, 0));
  assert.ok(sentMatch > 0.9, `the recording's sent channel vs the prompt: ${sentMatch.toFixed(3)}`);
  assert.ok(echoMatch > 0.8, `the recording's heard channel (sipp's echo) vs the prompt: ${echoMatch.toFixed(3)}`);
});
