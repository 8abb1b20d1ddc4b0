// record_calls on the SIP driver's media (issue 16 item 6): a session records both legs of a call
// into a stereo WAV, what it heard on the left, what it sent on the right. Two of our sessions
// talk to each other over loopback RTP (no sipp): each plays a tone in turn.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import wavefilePkg from 'wavefile';
import { freeUdpPort } from '../../../../../test/sip/media/peers.ts';
import { createMediaEngine } from './index.ts';

const { WaveFile } = wavefilePkg;

async function toneFile(dir: string, name: string, hz: number, seconds: number): Promise<void> {
  const samples = Int16Array.from({ length: 8000 * seconds }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * hz * i) / 8000)));
  const wav = new WaveFile();
  wav.fromScratch(1, 8000, '16', samples);
  await fs.writeFile(path.join(dir, name), wav.toBuffer());
}

/** The index of the first 20 ms frame whose mean level passes 1000, or -1. */
function firstLoudFrame(pcm: Int16Array | Float64Array): number {
  for (let f = 0; f * 160 < pcm.length; f++) {
    const frame = pcm.subarray(f * 160, f * 160 + 160);
    let sum = 0;
    for (const v of frame) sum += Math.abs(v);
    if (sum / frame.length > 1000) return f;
  }
  return -1;
}

test('recordCall writes a stereo WAV: the far end heard on the left, what we sent on the right, in time order', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sip-call-recording-'));
  t.after(() => fs.rm(dir, { recursive: true, force: true }));
  await toneFile(dir, 'ours.wav', 440, 0.4);
  await toneFile(dir, 'theirs.wav', 880, 0.4);
  const base = await freeUdpPort();
  const engine = createMediaEngine({ bindAddress: '127.0.0.1', portRange: [base, base + 20] });
  t.after(() => engine.close());
  const ours = await engine.open();
  const theirs = await engine.open();
  ours.start(theirs.local, { payloadType: 0 });
  theirs.start(ours.local, { payloadType: 0 });
  const recording = ours.recordCall();
  await ours.play({ audioFile: 'ours.wav' }, { dataDir: dir });
  await new Promise((r) => setTimeout(r, 200));
  await theirs.play({ audioFile: 'theirs.wav' }, { dataDir: dir });
  await new Promise((r) => setTimeout(r, 200));
  const result = await recording.write(path.join(dir, 'recordings', 'call.wav'));
  assert.equal(result.file, path.join(dir, 'recordings', 'call.wav'));
  assert.ok(result.seconds >= 1, JSON.stringify(result));
  const wav = new WaveFile();
  wav.fromBuffer(await fs.readFile(result.file));
  const fmt = wav.fmt as { numChannels: number; sampleRate: number };
  assert.deepEqual([fmt.numChannels, fmt.sampleRate], [2, 8000]);
  const [heard, sent] = wav.getSamples(false, Int16Array) as unknown as Int16Array[];
  const sentAt = firstLoudFrame(sent);
  const heardAt = firstLoudFrame(heard);
  assert.ok(sentAt >= 0, 'our tone is on the right channel');
  assert.ok(heardAt >= 0, 'their tone is on the left channel');
  assert.ok(heardAt > sentAt + 20, `their tone (frame ${heardAt}) comes after ours (frame ${sentAt}) ended`);
  assert.ok(firstLoudFrame(heard.subarray(0, heardAt * 160)) === -1, 'nothing of ours leaked onto the left');
});
