// What the engine hears and plays, end to end over loopback RTP: sipp answers and plays real
// audio made with espeak-ng and sox (a voicemail greeting with its beep, a person's "Hello?")
// that our session judges; relay between legs and anti-aliased prompts between two sessions of
// ours; speech; the prompt cache.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { answeredBySipp } from '../../../../../test/sip/media/callee.ts';
import { freeUdpPort, here, level, readWav, run, similarity, startSipp } from '../../../../../test/sip/media/peers.ts';
import { createMediaEngine, type MediaSession } from './index.ts';
import { PromptCache } from './prompts.ts';

type T = { after(fn: () => unknown): void };

async function setup(t: T) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sip-media-'));
  t.after(() => fs.rm(dir, { recursive: true, force: true }));
  const base = await freeUdpPort();
  const engine = createMediaEngine({ bindAddress: '127.0.0.1', portRange: [base, base + 40] });
  t.after(() => engine.close());
  /** Two sessions sending to each other: `far` plays the callee's side, `near` is the engine's. */
  const pair = async (pt: 0 | 8 = 0): Promise<[MediaSession, MediaSession]> => {
    const [near, far] = [await engine.open(), await engine.open()];
    near.start(far.local, { payloadType: pt });
    far.start(near.local, { payloadType: pt });
    return [near, far];
  };
  return { dir, engine, pair };
}

/** sipp answers and plays `file` (made µ-law 8 kHz for its rtp_stream) to a new session of ours. */
async function greetedBySipp(t: T, dir: string, file: string): Promise<MediaSession> {
  await run('sox', [path.join(dir, file), '-r', '8000', '-c', '1', '-e', 'u-law', path.join(dir, 'greeting.wav')]);
  const sipp = await startSipp(['-sf', path.join(here, 'greeting-uas.xml'), '-m', '1'], { cwd: dir });
  t.after(() => sipp.stop());
  const base = await freeUdpPort();
  const engine = createMediaEngine({ bindAddress: '127.0.0.1', portRange: [base, base + 4] });
  t.after(() => engine.close());
  const session = await engine.open();
  await new Promise((r) => setTimeout(r, 300)); // sipp binds its ports
  const call = await answeredBySipp(sipp.sipPort, session.local);
  t.after(() => call.close());
  session.start(call.remote, { payloadType: 0 });
  return session;
}

test('a voicemail greeting played by sipp is classified machine, and its beep is heard only after the greeting', async (t) => {
  const { dir } = await setup(t);
  const greeting = path.join(dir, 'spoken.wav');
  await run('espeak-ng', ['-w', greeting, 'Hello, you have reached the voicemail of John Smith. I cannot take your call right now, please leave a message after the tone.']);
  await run('sox', ['-n', '-r', '22050', '-c', '1', '-b', '16', path.join(dir, 'beep.wav'), 'synth', '0.5', 'sine', '1000', 'vol', '0.5']);
  await run('sox', [greeting, path.join(dir, 'beep.wav'), path.join(dir, 'voicemail.wav')]);
  const greetingSeconds = (await readWav(greeting)).pcm.length / 22050;
  const near = await greetedBySipp(t, dir, 'voicemail.wav');
  const started = performance.now();
  assert.equal(await near.detectMachine(), 'machine');
  assert.ok(performance.now() - started < 5000, 'decided within the analysis time');
  assert.equal(await near.waitForBeep(15), true);
  const heardAt = (performance.now() - started) / 1000;
  assert.ok(heardAt >= greetingSeconds, `beep heard at ${heardAt.toFixed(2)} s, the greeting lasts ${greetingSeconds.toFixed(2)} s`);
});

test('a short "Hello?" played by sipp, then silence, is classified person, with no beep', async (t) => {
  const { dir } = await setup(t);
  await run('espeak-ng', ['-w', path.join(dir, 'hello.wav'), 'Hello?']);
  await run('sox', [path.join(dir, 'hello.wav'), path.join(dir, 'person.wav'), 'pad', '0.3', '3']);
  const near = await greetedBySipp(t, dir, 'person.wav');
  assert.equal(await near.detectMachine(), 'person');
  assert.equal(await near.waitForBeep(1.5), false);
});

test('silence from the start is a machine after the initial-silence time (mod_amd), and the parameters can be overridden', async (t) => {
  const { pair } = await setup(t);
  const [near] = await pair();
  const started = performance.now();
  assert.equal(await near.detectMachine({ initialSilenceMs: 600 }), 'machine');
  const took = performance.now() - started;
  assert.ok(took >= 550 && took < 2000, `${took} ms`);
});

test('relayed legs carry each other\'s audio: a spoken prompt reaches the far leg through the relay, PCMU to PCMA', async (t) => {
  const { dir, engine } = await setup(t);
  const text = 'Your call is being transferred, please hold the line.';
  await run('espeak-ng', ['-w', path.join(dir, 'spoken.wav'), text]);
  await run('sox', [path.join(dir, 'spoken.wav'), '-r', '8000', path.join(dir, 'reference.wav')]);
  const reference = await readWav(path.join(dir, 'reference.wav'));
  const [caller, aLeg, bLeg, callee] = await Promise.all([engine.open(), engine.open(), engine.open(), engine.open()]);
  caller.start(aLeg.local, { payloadType: 0 });
  aLeg.start(caller.local, { payloadType: 0 });
  bLeg.start(callee.local, { payloadType: 8 });
  callee.start(bLeg.local, { payloadType: 8 });
  const unlink = aLeg.relayTo(bLeg);
  // Synthesised once ahead (a play stopped at once still fills the prompt cache), so the
  // recording's window does not depend on how long espeak-ng takes on a busy machine.
  const warm = caller.play({ text });
  caller.stopPlayback();
  await warm;
  const recording = callee.record({ file: path.join(dir, 'heard.wav'), maxSeconds: reference.pcm.length / 8000 + 1.2 });
  await caller.play({ text }); // spoken by espeak-ng through the prompt cache
  const heard = await readWav((await recording).file);
  const match = similarity(reference.pcm, heard.pcm);
  assert.ok(match > 0.9, `relayed vs spoken: median correlation ${match.toFixed(3)}`);
  unlink();
  const after = callee.record({ file: path.join(dir, 'after.wav'), maxSeconds: 0.5 });
  await caller.play({ text: 'Hello' });
  assert.ok(level((await readWav((await after).file)).pcm) < 50, 'nothing relayed after unlink');
});

test('a 44.1 kHz prompt is low-passed before going to 8 kHz: a 6 kHz tone does not fold back into the band', async (t) => {
  const { dir, pair } = await setup(t);
  const synth = (file: string, hz: number) => run('sox', ['-n', '-r', '44100', '-c', '1', '-b', '16', path.join(dir, file), 'synth', '0.6', 'sine', String(hz), 'vol', '0.5']);
  await synth('high.wav', 6000);
  await synth('low.wav', 1000);
  const [near, far] = await pair();
  const heard = async (file: string) => {
    const recording = near.record({ file: path.join(dir, `heard-${file}`), maxSeconds: 0.5 });
    await far.play({ audioFile: file }, { dataDir: dir });
    return level((await readWav((await recording).file)).pcm.subarray(1200));
  };
  const low = await heard('low.wav');
  const high = await heard('high.wav');
  assert.ok(low > 5000, `1 kHz level ${low}`);
  assert.ok(high < low * 0.03, `6 kHz came through at ${high} against ${low} for 1 kHz`);
});

test('speaking a text with no text-to-speech engine installed rejects with a clear error', async (t) => {
  const { pair } = await setup(t);
  const [near] = await pair();
  const savedPath = process.env.PATH;
  t.after(() => (process.env.PATH = savedPath));
  process.env.PATH = await fs.mkdtemp(path.join(os.tmpdir(), 'empty-path-'));
  await assert.rejects(near.play({ text: 'Nobody can say this' }), /no text-to-speech engine installed: install espeak-ng/);
});

test('the prompt cache decodes a file once and evicts the least recently used beyond its byte budget', async (t) => {
  const { dir } = await setup(t);
  for (const name of ['a', 'b', 'c']) await run('sox', ['-n', '-r', '16000', '-c', '2', '-b', '16', path.join(dir, `${name}.wav`), 'synth', '1', 'sine', '500']);
  const cache = new PromptCache(40_000); // two 1 s prompts of 16 000 bytes at 8 kHz fit, three do not
  const a = await cache.load({ audioFile: 'a.wav' }, dir);
  assert.equal(a.length, 8000);
  assert.equal(await cache.load({ audioFile: 'a.wav' }, dir), a, 'the same decoded samples, not a second decode');
  await cache.load({ audioFile: 'b.wav' }, dir);
  await cache.load({ audioFile: 'a.wav' }, dir); // a is now the most recent
  await cache.load({ audioFile: 'c.wav' }, dir); // evicts b
  assert.deepEqual(cache.size, { entries: 2, bytes: 32_000 });
  assert.equal(await cache.load({ audioFile: 'a.wav' }, dir), a);
  await assert.rejects(cache.load({ audioFile: '../outside.wav' }, dir), /outside DATA_DIR/);
});
