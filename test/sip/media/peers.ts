/**
 * Real far ends for the media tests: sipp (Debian `sip-tester`) as an RTP echo or as a callee
 * pressing keys, and audio made with espeak-ng and sox. A missing tool fails the test (it is
 * the peer under test, not an option).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import wavefilePkg from 'wavefile';

const { WaveFile } = wavefilePkg;
export const here = path.dirname(fileURLToPath(import.meta.url));

export function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile(command, args, (err, _out, stderr) => (err ? reject(new Error(`${command} ${args.join(' ')}: ${stderr || err.message}`)) : resolve())),
  );
}

/** A UDP port free right now on 127.0.0.1 (even, with the one above free too, for sipp's -mp). */
export async function freeUdpPort(): Promise<number> {
  for (;;) {
    const a = dgram.createSocket('udp4');
    await new Promise<void>((r) => a.bind(0, '127.0.0.1', () => r()));
    const port = a.address().port;
    a.close();
    if (port % 2 === 0 && port < 65530) return port;
  }
}

export interface Sipp {
  proc: ChildProcess;
  sipPort: number;
  mediaPort: number;
  stop(): Promise<void>;
  exited: Promise<number | null>;
}

/**
 * Starts sipp on loopback with `args` after the address options, in `cwd` (where scenarios find
 * their audio files; a fresh directory when not given); stops it by its pid.
 */
export async function startSipp(args: string[], opts: { cwd?: string } = {}): Promise<Sipp> {
  const sipPort = await freeUdpPort();
  const mediaPort = await freeUdpPort();
  const ownDir = !opts.cwd;
  const cwd = opts.cwd ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'sipp-media-')));
  const proc = spawn('sipp', ['-i', '127.0.0.1', '-p', String(sipPort), '-mi', '127.0.0.1', '-mp', String(mediaPort), '-nostdin', ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr?.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve, reject) => {
    proc.once('error', (err) => reject(new Error(`sipp could not start (is sip-tester installed?): ${err.message}`)));
    proc.once('exit', (code) => resolve(code));
  });
  exited.catch(() => {});
  return {
    proc,
    sipPort,
    mediaPort,
    exited,
    async stop() {
      if (proc.exitCode === null && proc.pid) process.kill(proc.pid, 'SIGTERM');
      await exited.catch(() => {});
      if (ownDir) await fs.rm(cwd, { recursive: true, force: true });
      if (stderr.includes('rror')) console.error(stderr);
    },
  };
}

/** Waits until sipp's RTP echo answers on its media port. */
export async function waitForEcho(port: number, exited: Promise<unknown>): Promise<void> {
  const probe = dgram.createSocket('udp4');
  await new Promise<void>((r) => probe.bind(0, '127.0.0.1', () => r()));
  let dead = false;
  exited.then(() => (dead = true), () => (dead = true));
  try {
    for (let i = 0; i < 100 && !dead; i++) {
      const echoed = new Promise<boolean>((resolve) => {
        const t = setTimeout(() => resolve(false), 100);
        probe.once('message', () => (clearTimeout(t), resolve(true)));
      });
      probe.send(Buffer.alloc(20), port, '127.0.0.1');
      if (await echoed) return;
    }
    throw new Error('sipp -rtp_echo did not echo');
  } finally {
    probe.close();
  }
}

/** Reads a 16-bit mono WAV's samples. */
export async function readWav(file: string): Promise<{ sampleRate: number; pcm: Int16Array }> {
  const wav = new WaveFile(await fs.readFile(file));
  const fmt = wav.fmt as { sampleRate: number };
  return { sampleRate: fmt.sampleRate, pcm: Int16Array.from(wav.getSamples(false) as unknown as ArrayLike<number>) };
}

/** Normalised cross-correlation of `a` with `b` shifted by `lag` samples (1 = same waveform). */
function correlation(a: Int16Array, b: Int16Array, lag: number): number {
  const n = Math.min(a.length, b.length - lag);
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < n; i++) {
    ab += a[i] * b[i + lag];
    aa += a[i] * a[i];
    bb += b[i + lag] * b[i + lag];
  }
  return aa && bb ? ab / Math.sqrt(aa * bb) : 0;
}

/**
 * How well `heard` reproduces `reference`: each half second of the reference that holds sound
 * is looked for in `heard` up to one second later than where it was sent (the path's delay,
 * which a loaded machine may stretch along the way), and the median of the best correlations
 * is returned (~1 the same audio, ~0 unrelated).
 */
export function similarity(reference: Int16Array, heard: Int16Array, chunk = 4000, maxDelay = 8000): number {
  const scores: number[] = [];
  for (let start = 0; start + chunk <= reference.length; start += chunk) {
    const piece = reference.subarray(start, start + chunk);
    if (level(piece) < 300) continue; // a pause: nothing to recognise
    let best = 0;
    for (let lag = start; lag <= start + maxDelay && lag + chunk <= heard.length; lag++) best = Math.max(best, correlation(piece, heard, lag));
    scores.push(best);
  }
  scores.sort((x, y) => x - y);
  return scores.length ? scores[Math.floor(scores.length / 2)] : 0;
}

/** Mean absolute sample level. */
export function level(pcm: Int16Array): number {
  let sum = 0;
  for (const v of pcm) sum += Math.abs(v);
  return pcm.length ? sum / pcm.length : 0;
}
