/**
 * npm run bench:sip-media — the SIP driver's RTP at scale: BENCH_SESSIONS (default 500) media
 * sessions in this process each play a spoken prompt over and over for BENCH_SECONDS (default
 * 20) to a far end on loopback, through the one shared send timer.
 * Run 1: the far end is a separate process (this file with --far-end) holding one UDP socket
 * per session, which only timestamps each packet on arrival and checks its sequence number
 * (BENCH_ECHO=1 makes it echo too). Prints, past a 2 s warm-up: the send jitter as the far end
 * sees it (p50/p99/max deviation of the inter-packet interval from 20 ms), packets lost
 * (sequence gaps), this process's CPU, peak RSS and event-loop delay.
 * Run 2: sipp -rtp_echo as the far end for as many sessions, so this process also receives and
 * decodes 50 packets/s per session as a real call does (loss and RFC 3550 jitter as our sessions
 * measure the echo, which includes sipp's own). Targets on a 2-core machine: ≥ 500 sessions,
 * p99 jitter ≤ 10 ms, 0 % loss, RSS ≤ 400 MB. The load average is printed: on a shared machine
 * the jitter figures measure the scheduler as much as the engine.
 */
import { execFileSync, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import readline from 'node:readline';
import { createMediaEngine, type MediaSession } from '../src/drivers/voice/sip/media/index.ts';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const WARMUP_MS = 2000;
const PORT_BASE = Number(process.env.BENCH_RTP_PORT ?? 20000);
const ECHO = process.env.BENCH_ECHO === '1';

interface FarEndReport {
  packets: number;
  lost: number;
  p50: number;
  p99: number;
  max: number;
}

/** The far end: one socket per session, arrival times and sequence gaps, echo back. */
async function farEnd(): Promise<void> {
  const sockets: dgram.Socket[] = [];
  const deviations: number[] = [];
  let packets = 0;
  let lost = 0;
  let measuring = false;
  for (let i = 0; i < SESSIONS; i++) {
    const socket = dgram.createSocket('udp4');
    let last = -1;
    let lastSeq = -1;
    socket.on('message', (msg, rinfo) => {
      const now = performance.now();
      if (ECHO) socket.send(msg, rinfo.port, rinfo.address);
      const seq = msg.readUInt16BE(2);
      if (measuring) {
        packets++;
        if (last >= 0) deviations.push(Math.abs(now - last - 20));
        if (lastSeq >= 0) lost += Math.max(0, ((seq - lastSeq) & 0xffff) - 1);
      }
      last = now;
      lastSeq = seq;
    });
    await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
    sockets.push(socket);
  }
  console.log(JSON.stringify({ ports: sockets.map((s) => s.address().port) }));
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (line === 'measure') measuring = true;
    if (line === 'report') {
      deviations.sort((a, b) => a - b);
      const at = (q: number) => deviations[Math.min(deviations.length - 1, Math.floor(q * deviations.length))] ?? 0;
      const report: FarEndReport = { packets, lost, p50: at(0.5), p99: at(0.99), max: at(1) };
      console.log(JSON.stringify(report));
      for (const s of sockets) s.close();
      return;
    }
  }
}

function rssMb(): number {
  return process.memoryUsage().rss / 1024 / 1024;
}

/** Plays the prompt in a loop on every session until `until`; samples RSS; returns CPU % and peak RSS. */
async function drive(sessions: MediaSession[], promptFile: string, dataDir: string, seconds: number) {
  let stop = false;
  const loops = sessions.map(async (s) => {
    while (!stop) await s.play({ audioFile: promptFile }, { dataDir });
  });
  let peak = rssMb();
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb())), 500);
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const cpu = process.cpuUsage(cpu0);
  const wall = performance.now() - t0;
  loopDelay.disable();
  stop = true;
  for (const s of sessions) s.stopPlayback();
  await Promise.all(loops);
  clearInterval(sampler);
  const loopP99 = loopDelay.percentile(99) / 1e6;
  return { cpuPercent: ((cpu.user + cpu.system) / 1000 / wall) * 100, peakRssMb: peak, loopP99 };
}

function sessionStats(sessions: MediaSession[]) {
  const all = sessions.map((s) => s.stats());
  const sum = (k: 'sent' | 'received' | 'lost') => all.reduce((n, s) => n + s[k], 0);
  const jitters = all.map((s) => s.jitterMs).sort((a, b) => a - b);
  return { sent: sum('sent'), received: sum('received'), lost: sum('lost'), jitterP99: jitters[Math.floor(0.99 * (jitters.length - 1))] };
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-sip-media-'));
  execFileSync('espeak-ng', ['-w', path.join(dir, 'prompt.wav'), 'Hello, this is a reminder from your pharmacy. Press one to confirm your appointment, or two to speak to us.']);
  const engine = createMediaEngine({ bindAddress: '127.0.0.1', portRange: [PORT_BASE, PORT_BASE + 4 * SESSIONS + 10] });
  console.log(`${SESSIONS} sessions, ${SECONDS} s each run after ${WARMUP_MS / 1000} s warm-up, ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)}`);

  // Run 1: our far end process, timestamping arrivals.
  const far = spawn(process.execPath, ['--import', 'tsx', path.resolve(import.meta.dirname, 'sip-media.bench.ts'), '--far-end'], { stdio: ['pipe', 'pipe', 'inherit'], env: process.env });
  const lines = readline.createInterface({ input: far.stdout });
  const next = () => new Promise<string>((r) => lines.once('line', r));
  const { ports } = JSON.parse(await next()) as { ports: number[] };
  const sessions = await Promise.all(ports.map(() => engine.open()));
  sessions.forEach((s, i) => s.start({ address: '127.0.0.1', port: ports[i] }, { payloadType: 0 }));
  setTimeout(() => far.stdin.write('measure\n'), WARMUP_MS);
  const run1 = await drive(sessions, 'prompt.wav', dir, SECONDS);
  far.stdin.write('report\n');
  const report = JSON.parse(await next()) as FarEndReport;
  const own1 = sessionStats(sessions);
  for (const s of sessions) s.close();
  const pct = (lost: number, total: number) => ((100 * lost) / Math.max(1, total + lost)).toFixed(3);
  console.log(`engine → far end:  ${report.packets} packets measured, send jitter p50 ${report.p50.toFixed(2)} ms, p99 ${report.p99.toFixed(2)} ms, max ${report.max.toFixed(1)} ms, lost ${report.lost} (${pct(report.lost, report.packets)} %)`);
  console.log(`                   engine CPU ${run1.cpuPercent.toFixed(0)} % of one core, peak RSS ${run1.peakRssMb.toFixed(0)} MB, event-loop delay p99 ${run1.loopP99.toFixed(1)} ms; sent ${own1.sent} of ${SESSIONS * 50 * (SECONDS + WARMUP_MS / 1000)} due${ECHO ? `, echo received ${own1.received}, lost ${own1.lost}, RFC 3550 jitter p99 ${own1.jitterP99.toFixed(2)} ms` : ''}`);

  // Run 2 (baseline far end): sipp's RTP echo, one port for every session.
  const mediaPort = PORT_BASE + 4 * SESSIONS + 20;
  const sipp = spawn('sipp', ['-sn', 'uas', '-i', '127.0.0.1', '-p', String(mediaPort + 10), '-mi', '127.0.0.1', '-mp', String(mediaPort), '-rtp_echo', '-rtp_buffsize', '4194304', '-nostdin'], { cwd: dir, stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 1000));
  const viaSipp = await Promise.all(ports.map(() => engine.open()));
  viaSipp.forEach((s) => s.start({ address: '127.0.0.1', port: mediaPort }, { payloadType: 0 }));
  const run2 = await drive(viaSipp, 'prompt.wav', dir, SECONDS);
  const own2 = sessionStats(viaSipp);
  console.log(`engine → sipp -rtp_echo → engine: sent ${own2.sent}, echoed back ${own2.received}, lost ${own2.lost} (${pct(own2.lost, own2.received)} %), RFC 3550 jitter p99 ${own2.jitterP99.toFixed(2)} ms, engine CPU ${run2.cpuPercent.toFixed(0)} %, peak RSS ${run2.peakRssMb.toFixed(0)} MB, event-loop delay p99 ${run2.loopP99.toFixed(1)} ms`);
  console.log(`load average after the runs: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  await engine.close();
  if (sipp.pid) process.kill(sipp.pid, 'SIGTERM');
  fs.rmSync(dir, { recursive: true, force: true });
  console.log('targets: ≥ 500 sessions, p99 jitter ≤ 10 ms, 0 % loss, RSS ≤ 400 MB');
}

if (process.argv.includes('--far-end')) await farEnd();
else await main();
