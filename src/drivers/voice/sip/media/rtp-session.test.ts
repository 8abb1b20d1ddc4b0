// RTP sessions against real peers: sipp's RTP echo and sipp pressing keys (RFC 4733), and a
// second session of ours where only a plain UDP listener observes what goes on the wire.
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { answeredBySipp } from '../../../../../test/sip/media/callee.ts';
import { freeUdpPort, here, readWav, run, similarity, startSipp, waitForEcho } from '../../../../../test/sip/media/peers.ts';
import { createMediaEngine, type MediaSession } from './index.ts';
import { parseRtp } from './rtp.ts';

async function engineFor(t: { after(fn: () => unknown): void }, ports = 40) {
  const base = await freeUdpPort();
  const engine = createMediaEngine({ bindAddress: '127.0.0.1', portRange: [base, base + ports] });
  t.after(() => engine.close());
  return engine;
}

/**
 * Decodes a prompt into the cache without sending it (a play stopped at once still loads it), so
 * a test's timing does not depend on how fast a busy machine decodes.
 */
async function preload(session: MediaSession, source: { audioFile?: string; text?: string }, dataDir?: string) {
  const loading = session.play(source, dataDir ? { dataDir } : undefined);
  session.stopPlayback();
  await loading;
}

async function tempDir(t: { after(fn: () => unknown): void }) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sip-media-'));
  t.after(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

test('a prompt played to sipp -rtp_echo comes back whole: the recorded echo matches the prompt, nothing lost', async (t) => {
  const dir = await tempDir(t);
  await run('espeak-ng', ['-w', path.join(dir, 'prompt.wav'), 'One, two, three. The quick brown fox jumps over the lazy dog.']);
  // The reference is resampled by sox, not by us: the test also checks our resampler.
  await run('sox', [path.join(dir, 'prompt.wav'), '-r', '8000', path.join(dir, 'reference.wav')]);
  const reference = await readWav(path.join(dir, 'reference.wav'));
  const sipp = await startSipp(['-sn', 'uas', '-rtp_echo']);
  t.after(() => sipp.stop());
  await waitForEcho(sipp.mediaPort, sipp.exited);
  const session = await (await engineFor(t)).open();
  session.start({ address: '127.0.0.1', port: sipp.mediaPort }, { payloadType: 8 });
  const seconds = reference.pcm.length / 8000 + 1.2;
  await preload(session, { audioFile: 'prompt.wav' }, dir);
  const recording = session.record({ file: path.join(dir, 'recordings', 'echo.wav'), maxSeconds: seconds });
  await session.play({ audioFile: 'prompt.wav' }, { dataDir: dir });
  const result = await recording;
  assert.equal(result.seconds, seconds);
  const echo = await readWav(result.file);
  assert.equal(echo.sampleRate, 8000);
  const match = similarity(reference.pcm, echo.pcm);
  assert.ok(match > 0.9, `echo vs prompt: median correlation ${match.toFixed(3)}`);
  const stats = session.stats();
  assert.ok(stats.received > 0.9 * stats.sent, JSON.stringify(stats));
  assert.equal(stats.lost, 0, JSON.stringify(stats));
});

test('frames leave in real time with sequence +1, timestamp +160 per 20 ms, one SSRC, the marker on each talkspurt start', async (t) => {
  const dir = await tempDir(t);
  await run('sox', ['-n', '-r', '8000', '-c', '1', '-b', '16', path.join(dir, 'tone.wav'), 'synth', '0.2', 'sine', '440']);
  const observer = dgram.createSocket('udp4');
  await new Promise<void>((r) => observer.bind(0, '127.0.0.1', () => r()));
  t.after(() => observer.close());
  const packets: { at: number; p: ReturnType<typeof parseRtp> }[] = [];
  observer.on('message', (m) => packets.push({ at: performance.now(), p: parseRtp(m) }));
  const session = await (await engineFor(t)).open();
  session.start({ address: '127.0.0.1', port: observer.address().port }, { payloadType: 0 });
  await new Promise((r) => setTimeout(r, 300));
  const playFrom = packets.length;
  await session.play({ audioFile: 'tone.wav' }, { dataDir: dir });
  await new Promise((r) => setTimeout(r, 200));
  session.close();
  assert.ok(packets.length >= 30, `${packets.length} packets`);
  const first = packets[0].p!;
  assert.equal(first.marker, true);
  for (let i = 1; i < packets.length; i++) {
    const [a, b] = [packets[i - 1].p!, packets[i].p!];
    assert.equal(b.payloadType, 0);
    assert.equal(b.ssrc, first.ssrc);
    assert.equal(b.sequence, (a.sequence + 1) & 0xffff, `packet ${i}`);
    // A stall of the process (>100 ms) skips frames rather than bursting them: the timestamp
    // then jumps by whole frames and the marker says so.
    const step = (b.timestamp - a.timestamp) >>> 0;
    if (b.marker) assert.ok(step >= 160 && step % 160 === 0, `packet ${i}: step ${step}`);
    else assert.equal(step, 160, `packet ${i}`);
  }
  const markers = packets.map((x, i) => (x.p!.marker ? i : -1)).filter((i) => i >= 0);
  assert.ok(markers.includes(0) && markers.some((i) => i >= playFrom - 1 && i <= playFrom + 2), `markers at ${markers}, play from ${playFrom}`);
  // Paced in real time: over the run, the media clock (8 samples a ms) keeps up with the wall
  // clock (single gaps vary with the machine's load).
  const wallMs = packets[packets.length - 1].at - packets[0].at;
  const mediaMs = ((packets[packets.length - 1].p!.timestamp - first.timestamp) >>> 0) / 8;
  assert.ok(Math.abs(wallMs - mediaMs) < 60, `${mediaMs} ms of media in ${wallMs.toFixed(1)} ms`);
  assert.ok(packets.length >= 0.8 * (wallMs / 20), `${packets.length} packets in ${wallMs.toFixed(0)} ms`);
});

test('keys pressed by sipp as RFC 4733 events are reported once each, in order', async (t) => {
  const sipp = await startSipp(['-sf', path.join(here, 'keys-uas.xml'), '-m', '1']);
  t.after(() => sipp.stop());
  const session = await (await engineFor(t)).open();
  const digits: string[] = [];
  session.dtmf.on((d) => digits.push(d));
  await new Promise((r) => setTimeout(r, 300)); // sipp binds its ports
  const call = await answeredBySipp(sipp.sipPort, session.local);
  t.after(() => call.close());
  session.start(call.remote, { payloadType: 0, telephoneEvent: 96 }); // as keys-uas.xml answers
  await sipp.exited; // the scenario ends 2.5 s after its keys
  assert.deepEqual(digits, ['1', '9', '#']); // keys-uas.xml presses "19#"
  assert.ok(session.stats().received >= 9, JSON.stringify(session.stats()));
});

test('record stops after the given silence, at maxSeconds, and on close, writing a 16-bit 8 kHz WAV each time', async (t) => {
  const dir = await tempDir(t);
  await run('espeak-ng', ['-w', path.join(dir, 'hello.wav'), 'Hello there']);
  const engine = await engineFor(t);
  const [caller, callee] = [await engine.open(), await engine.open()];
  caller.start(callee.local, { payloadType: 0 });
  callee.start(caller.local, { payloadType: 0 });
  await preload(caller, { audioFile: 'hello.wav' }, dir);
  const bySilence = callee.record({ file: path.join(dir, 'r', 'silence.wav'), maxSeconds: 10, silenceSeconds: 1 });
  await caller.play({ audioFile: 'hello.wav' }, { dataDir: dir });
  const silence = await bySilence;
  assert.ok(silence.seconds > 1 && silence.seconds < 3.5, `stopped after ${silence.seconds} s`);
  const byMax = await callee.record({ file: path.join(dir, 'r', 'max.wav'), maxSeconds: 1 });
  assert.equal(byMax.seconds, 1);
  const wav = await readWav(byMax.file);
  assert.equal(wav.sampleRate, 8000);
  assert.equal(wav.pcm.length, 8000);
  const byClose = callee.record({ file: path.join(dir, 'r', 'close.wav'), maxSeconds: 10 });
  setTimeout(() => callee.close(), 500);
  const closed = await byClose;
  assert.ok(closed.seconds > 0.2 && closed.seconds < 1.5, `${closed.seconds} s`);
  await fs.access(closed.file);
});

test('sessions take even ports from the range, reject when it is full, and give ports back on close', async (t) => {
  const base = await freeUdpPort();
  const engine = createMediaEngine({ bindAddress: '127.0.0.1', rtpAddress: '192.0.2.10', portRange: [base, base + 5] });
  t.after(() => engine.close());
  const sessions: MediaSession[] = [];
  for (let i = 0; i < 3; i++) sessions.push(await engine.open());
  assert.deepEqual(sessions.map((s) => s.local.port % 2), [0, 0, 0]);
  assert.equal(new Set(sessions.map((s) => s.local.port)).size, 3);
  assert.equal(sessions[0].local.address, '192.0.2.10');
  await assert.rejects(engine.open(), /no free RTP port/);
  sessions[1].close();
  const again = await engine.open();
  assert.equal(again.local.port, sessions[1].local.port);
});

test('symmetric RTP: a session follows the far end to the address its packets come from, but a stray sender cannot take it over', async (t) => {
  const engine = await engineFor(t);
  const [near, far, stray] = [await engine.open(), await engine.open(), await engine.open()];
  const unused = await freeUdpPort(); // what the SDP said: behind a NAT, nobody listens there
  near.start({ address: '127.0.0.1', port: unused }, { payloadType: 0 });
  far.start(near.local, { payloadType: 0 });
  await new Promise((r) => setTimeout(r, 300));
  assert.ok(far.stats().received > 5, `far end got ${JSON.stringify(far.stats())} after near latched`);
  stray.start(near.local, { payloadType: 0 });
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(stray.stats().received, 0, 'the stray sender got nothing');
  const before = far.stats().received;
  await new Promise((r) => setTimeout(r, 200));
  assert.ok(far.stats().received > before, 'the far end still gets our packets');
});
