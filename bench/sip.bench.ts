/**
 * npm run bench:sip — the sip driver end to end at scale. sipp is the far end
 * (bench/sip-echo-uas.xml, -rtp_echo): it answers every call at once, echoes the audio back and
 * holds the call until the caller hangs up. Our engine (`campaign-dialer serve --role engine`
 * on PostgreSQL, the API in another process) dials a BENCH_CALLS (default 600) contact
 * campaign through a `sip` gateway with no pace limit (frequency unbounded, cps 0); the
 * survey's one section plays a 60 s audio file and callmaxduration cuts each call after
 * BENCH_SECONDS (default 30), so every call is up at once for a while.
 * The baseline, in the same run: sipp calling sipp (bench/sip-stream-uac.xml streaming the same
 * audio, mu-law) against a fresh far end, as many calls at the setup rate ours reached, each
 * held as long.
 * Measured the same way for both:
 * - concurrent calls: the far end's CurrentCall (sipp -trace_stat, every 200 ms), peak;
 * - setups/s: calls the far end answered per second, between the 10th and 90th percent of them;
 * - send jitter and loss as the far end receives them: one call in ten (numbers ending in 0)
 *   is answered with the media port of a tap (this file with --tap, its own process) instead of
 *   sipp's echo port; the tap timestamps every packet on arrival, echoes it back like sipp, and
 *   reports the deviation of each inter-arrival interval from 20 ms (p99) and the loss: the
 *   frames the RTP timestamps say were due and never came (lost on the way, which the sequence
 *   gaps show, or never sent: a sender behind by more than 100 ms skips frames). "With audio": the tapped calls that received ≥ 45 of their 50 packets in a second,
 *   times ten, at the peak; also the UDP drops the kernel counted on the far end's sockets
 *   (sipp's echo port, the tap) and on ours (the engine's RTP ports: the echo it failed to read);
 * - CPU and peak RSS of the caller: our engine process, or sipp as the caller.
 * Targets on the 2-core machine: ≥ 500 concurrent calls with audio, ≥ 100 setups/s, p99 jitter
 * ≤ 10 ms, 0 % loss, RSS ≤ 400 MB. The load average is printed with the figures: on a shared
 * machine the jitter measures the scheduler as much as the engine.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { sql } from 'drizzle-orm';
import { type Database, openDatabase, queryRows } from '../src/db/database.ts';
import { freeUdpPort } from '../test/sip/peers.ts';
import { benchDatabase, cli, cpuSeconds, fmt, readRssMb, startServer, startWorker } from './support.ts';

const CALLS = Number(process.env.BENCH_CALLS ?? 600);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
/** The engine's RTP ports (outside Linux's ephemeral range, where the tests' sipp ports come from). */
const RTP_PORTS = process.env.BENCH_RTP_PORTS ?? '20000-29999';
/** The bench/sip-echo-uas.xml tap rule: numbers ending in 0. */
const TAP_EVERY = 10;
const PROMPT_SECONDS = 60;
const password = 'bench-user-password';
const auth = `Basic ${Buffer.from(`bench:${password}`).toString('base64')}`;
const here = import.meta.dirname;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const loadNow = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');

interface TapReport {
  streams: number;
  packets: number;
  /** Sequence gaps: packets lost on the way. */
  lost: number;
  /** Frames the RTP timestamps say were due but never came (lost, or skipped by the sender). */
  missing: number;
  p50: number;
  p99: number;
  max: number;
  /** p99 while every call was up: from 1 s after the last stream began to 1 s before the first ended. */
  steadyP99: number;
  /** Per second from the first packet: tapped streams that got ≥ 45 packets in it. */
  active: number[];
}

/**
 * The tap (a process of its own, so the caller's CPU is not shared with it): one UDP socket,
 * streams told apart by SSRC; every packet timestamped on arrival and echoed to its sender.
 */
async function tap(): Promise<void> {
  const socket = dgram.createSocket('udp4');
  socket.on('error', () => {});
  const deviations: number[] = [];
  const at: number[] = [];
  const streams = new Map<number, { last: number; seq: number; second: number; inSecond: number; ts0: number; ts: number; packets: number }>();
  let lastStart = 0;
  const active: number[] = [];
  let t0 = -1;
  let packets = 0;
  let lost = 0;
  const closeSecond = (s: { second: number; inSecond: number }) => {
    if (s.inSecond >= 45) active[s.second] = (active[s.second] ?? 0) + 1;
  };
  socket.on('message', (msg, rinfo) => {
    const now = performance.now();
    socket.send(msg, rinfo.port, rinfo.address);
    if (msg.length < 12) return;
    if (t0 < 0) t0 = now;
    const seq = msg.readUInt16BE(2);
    const ts = msg.readUInt32BE(4);
    const ssrc = msg.readUInt32BE(8);
    const second = Math.floor((now - t0) / 1000);
    packets++;
    const s = streams.get(ssrc);
    if (!s) {
      lastStart = now;
      return void streams.set(ssrc, { last: now, seq, second, inSecond: 1, ts0: ts, ts, packets: 1 });
    }
    deviations.push(Math.abs(now - s.last - 20));
    at.push(now);
    lost += Math.max(0, ((seq - s.seq) & 0xffff) - 1);
    s.last = now;
    s.seq = seq;
    s.ts = ts;
    s.packets++;
    if (second !== s.second) {
      closeSecond(s);
      s.second = second;
      s.inSecond = 0;
    }
    s.inSecond++;
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  socket.setRecvBufferSize(4 * 1024 * 1024);
  console.log(JSON.stringify({ port: socket.address().port }));
  const lines = readline.createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (line !== 'report') continue;
    for (const s of streams.values()) closeSecond(s);
    const firstEnd = Math.min(...[...streams.values()].map((s) => s.last));
    const steady = deviations.filter((_, i) => at[i] > lastStart + 1000 && at[i] < firstEnd - 1000).sort((a, b) => a - b);
    deviations.sort((a, b) => a - b);
    const q = (list: number[], p: number) => list[Math.min(list.length - 1, Math.floor(p * list.length))] ?? 0;
    const report: TapReport = {
      streams: streams.size,
      packets,
      lost,
      missing: [...streams.values()].reduce((n, s) => n + Math.max(0, ((s.ts - s.ts0) >>> 0) / 160 + 1 - s.packets), 0),
      p50: q(deviations, 0.5),
      p99: q(deviations, 0.99),
      max: q(deviations, 1),
      steadyP99: q(steady, 0.99),
      active: Array.from(active, (n) => n ?? 0),
    };
    console.log(JSON.stringify(report));
    socket.close();
    lines.close();
    process.stdin.destroy();
    return;
  }
}

/** A tap process; `report()` stops it and returns what it measured. */
async function startTap(): Promise<{ port: number; report: () => Promise<TapReport>; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'sip.bench.ts'), '--tap'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout });
  const next = () => new Promise<string>((r) => lines.once('line', r));
  const { port } = JSON.parse(await next()) as { port: number };
  return {
    port,
    report: async () => {
      child.stdin.end('report\n');
      return JSON.parse(await next()) as TapReport;
    },
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid as number, 'SIGTERM');
    },
  };
}

/** A sipp process (its CPU and peak RSS sampled); stopped by pid. */
function startSippProcess(args: string[], cwd: string): { child: ChildProcess; peakRssMb: () => number; exited: Promise<number | null>; stop: () => Promise<void> } {
  const child = spawn('sipp', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, readRssMb(child.pid as number))), 100);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      clearInterval(sampler);
      if (code && err) console.error(err.slice(-2000));
      resolve(code);
    });
    child.once('error', (e) => {
      clearInterval(sampler);
      console.error(`cannot run sipp (install sip-tester): ${e.message}`);
      resolve(-1);
    });
  });
  return {
    child,
    peakRssMb: () => peak,
    exited,
    stop: async () => {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGTERM');
      await exited;
    },
  };
}

/** The far end: sipp -rtp_echo answering on `port`, stats every 200 ms in `csv`. */
async function startFarEnd(dir: string, label: string, tapPort: number) {
  const port = await freeUdpPort();
  const mediaPort = await freeUdpPort();
  const csv = path.join(dir, `far-${label}.csv`);
  const sipp = startSippProcess(
    ['-sf', path.join(here, 'sip-echo-uas.xml'), '-i', '127.0.0.1', '-p', String(port), '-mi', '127.0.0.1', '-mp', String(mediaPort), '-rtp_echo',
      '-rtp_buffsize', '4194304', '-buff_size', '4194304', '-key', 'tap_port', String(tapPort), '-l', '100000', '-nostdin',
      '-trace_stat', '-stf', csv, '-fd', '200ms', '-trace_err', '-error_file', path.join(dir, `far-${label}-errors.log`)],
    dir,
  );
  await sleep(700);
  if (sipp.child.pid === undefined || sipp.child.exitCode !== null) {
    await sipp.stop();
    throw new Error(`the far-end sipp did not start (${sipp.child.exitCode})`);
  }
  return { port, mediaPort, csv, sipp };
}

/** The far end's view from its stats file: peak concurrent calls, answered, setups/s (10 %–90 %). */
function farEndStats(csv: string): { peak: number; created: number; failed: number; setupsPerSecond: number } {
  const [header, ...rows] = fs.readFileSync(csv, 'utf8').trim().split('\n');
  const col = (name: string) => header.split(';').indexOf(name);
  const [time, created, current, failed] = [col('CurrentTime'), col('TotalCallCreated'), col('CurrentCall'), col('FailedCall(C)')];
  const samples = rows.map((r) => r.split(';')).map((f) => ({ t: Number(f[time].split('\t')[2]), created: Number(f[created]), current: Number(f[current]), failed: Number(f[failed]) }));
  const total = samples.at(-1)?.created ?? 0;
  /** When the count of calls created crossed `n` (linear between the 200 ms samples). */
  const crossing = (n: number) => {
    const i = samples.findIndex((s) => s.created >= n);
    if (i <= 0) return samples[Math.max(0, i)]?.t ?? 0;
    const [a, b] = [samples[i - 1], samples[i]];
    return a.t + ((n - a.created) / Math.max(1, b.created - a.created)) * (b.t - a.t);
  };
  const [from, to] = [crossing(total * 0.1), crossing(total * 0.9)];
  return {
    peak: Math.max(0, ...samples.map((s) => s.current)),
    created: total,
    failed: samples.at(-1)?.failed ?? 0,
    setupsPerSecond: to > from ? (total * 0.8) / (to - from) : 0,
  };
}

/**
 * UDP drops the kernel counted on the sockets bound to the chosen local ports (/proc/net/udp),
 * sampled every 500 ms while they live (a socket's count goes with it): the most seen per socket.
 */
function udpDrops(ports: (port: number) => boolean): { total: () => number; stop: () => void } {
  const seen = new Map<string, number>();
  const sample = () => {
    for (const line of fs.readFileSync('/proc/net/udp', 'utf8').trim().split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (!ports(parseInt(f[1].split(':')[1], 16))) continue;
      const socket = `${f[1]}/${f[9]}`; // local address and inode
      seen.set(socket, Math.max(seen.get(socket) ?? 0, Number(f.at(-1))));
    }
  };
  const timer = setInterval(sample, 500);
  return {
    total: () => {
      sample();
      return [...seen.values()].reduce((a, b) => a + b, 0);
    },
    stop: () => clearInterval(timer),
  };
}

interface Figures {
  peakCalls: number;
  withAudio: number;
  setupsPerSecond: number;
  jitterP50: number;
  jitterP99: number;
  jitterMax: number;
  jitterSteadyP99: number;
  lossPercent: number;
  lost: number;
  missing: number;
  packets: number;
  /** Kernel drops at sipp's echo socket (sipp not reading fast enough) and at the tap's. */
  echoDrops: number;
  tapDrops: number;
  /** At the caller's RTP sockets (the echo it did not read); null for sipp, whose rtp_stream never reads. */
  callerDrops: number | null;
  cpuPercent: number;
  rssMb: number;
  failed: number;
}

function figures(far: ReturnType<typeof farEndStats>, t: TapReport, drops: { echo: number; tap: number; caller: number | null }, cpu: number, seconds: number, rssMb: number): Figures {
  return {
    peakCalls: far.peak,
    withAudio: Math.min(far.peak, Math.max(0, ...t.active) * TAP_EVERY),
    setupsPerSecond: far.setupsPerSecond,
    jitterP50: t.p50,
    jitterP99: t.p99,
    jitterMax: t.max,
    jitterSteadyP99: t.steadyP99,
    lost: t.lost,
    missing: t.missing,
    packets: t.packets,
    lossPercent: (100 * t.missing) / Math.max(1, t.packets + t.missing),
    echoDrops: drops.echo,
    tapDrops: drops.tap,
    callerDrops: drops.caller,
    cpuPercent: (100 * cpu) / seconds,
    rssMb,
    failed: far.failed,
  };
}

const one = async <T>(db: Database, query: ReturnType<typeof sql>) => (await queryRows<T>(db.db, query))[0];

/** User, sip gateway to the far end, the audio file and survey, a CALLS-contact phonebook and campaign. */
async function fixture(db: Database, dataDir: string, prompt: string, farPort: number): Promise<number> {
  const user = await one<{ id: number }>(db, sql`update users set balance = 1000000000, call_rate = 0.01 where username = 'bench' returning id`);
  const settings = { proxy: `127.0.0.1:${farPort}`, bind_address: '127.0.0.1', bind_port: 0, rtp_ports: RTP_PORTS, cps: 0 };
  const gw = await one<{ id: number }>(db, sql`insert into gateways (name, driver, settings) values ('bench sip', 'sip', ${JSON.stringify(settings)}::jsonb) returning id`);
  fs.mkdirSync(path.join(dataDir, 'audio'), { recursive: true });
  fs.copyFileSync(prompt, path.join(dataDir, 'audio', 'bench-prompt.wav'));
  const audio = await one<{ id: number }>(
    db,
    sql`insert into audio_files (name, audio_file, content_type, user_id) values ('bench', 'audio/bench-prompt.wav', 'audio/wav', ${user.id}) returning id`,
  );
  const survey = await one<{ id: number }>(db, sql`insert into survey_templates (name, user_id) values ('bench sip', ${user.id}) returning id`);
  await db.db.execute(sql`insert into section_templates (survey_id, "order", question, audiofile_id) values (${survey.id}, 1, 'Prompt', ${audio.id})`);
  const book = await one<{ id: number }>(db, sql`insert into phonebooks (name, user_id) values ('bench sip', ${user.id}) returning id`);
  await db.db.execute(sql`insert into contacts (phonebook_id, contact, phone_key, full_name)
    select ${book.id}, '+1203' || lpad(g::text, 7, '0'), '1203' || lpad(g::text, 7, '0'), 'Contact ' || g from generate_series(1, ${CALLS}) g`);
  const c = await one<{ id: number }>(
    db,
    sql`insert into campaigns (campaign_code, name, user_id, callerid, aleg_gateway_id, survey_id, frequency, max_aleg, maxretry,
          calltimeout, callmaxduration, startingdate, expirationdate, end_when_done)
        values ('BENCHSIP', 'bench sip', ${user.id}, '5550100', ${gw.id}, ${survey.id}, 10000000, 0, 0,
          20, ${SECONDS}, now() - interval '1 day', now() + interval '2 days', true) returning id`,
  );
  await db.db.execute(sql`insert into campaign_phonebooks (campaign_id, phonebook_id) values (${c.id}, ${book.id})`);
  return c.id;
}

/** Our engine dialling the campaign to its end through the sip driver. */
async function ours(dir: string): Promise<Figures> {
  const cleanup: (() => unknown)[] = [];
  try {
    const database = await benchDatabase('sip');
    cleanup.push(() => database.drop());
    const dataDir = path.join(dir, 'data');
    const env = { DATABASE_URL: database.url, DATA_DIR: dataDir };
    const backend = { name: 'PostgreSQL' as const, env, cleanup: database.drop };
    const tapper = await startTap();
    cleanup.push(() => tapper.stop());
    const far = await startFarEnd(dir, 'ours', tapper.port);
    cleanup.push(() => far.sipp.stop());
    cli(['user', 'create', '--username', 'bench', '--password', password], env);
    const db = await openDatabase({ url: database.url });
    cleanup.push(() => db.close());
    const id = await fixture(db, dataDir, path.join(dir, 'prompt.wav'), far.port);
    const server = await startServer(backend, 'bench-admin-password');
    cleanup.push(() => server.stop());
    // BENCH_PROFILE=<dir>: the engine writes a CPU profile there (node --cpu-prof) when it stops.
    const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
    const engine = await startWorker([...profile, 'bin/campaign-dialer.js', 'serve', '--role', 'engine'], { ...env, LOG_LEVEL: 'warn' }, async () =>
      Boolean((await one<{ n: number }>(db, sql`select count(*)::int as n from engine_heartbeats`)).n),
    );
    cleanup.push(() => engine.stop());
    const [lo, hi] = RTP_PORTS.split('-').map(Number);
    const drops = { caller: udpDrops((p) => p >= lo && p <= hi), echo: udpDrops((p) => p === far.mediaPort), tap: udpDrops((p) => p === tapper.port) };
    cleanup.push(() => Object.values(drops).forEach((d) => d.stop()));

    engine.resetPeak();
    const cpu0 = cpuSeconds(engine.pid);
    const t0 = performance.now();
    const res = await fetch(`${server.base}/rest-api/campaigns/${id}/`, {
      method: 'PATCH',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 1 }),
    });
    if (res.status >= 300) throw new Error(`PATCH status=1 answered ${res.status}: ${await res.text()}`);
    const deadline = Date.now() + (SECONDS + 120) * 1000;
    while ((await one<{ status: number }>(db, sql`select status from campaigns where id = ${id}`)).status !== 4) {
      if (Date.now() > deadline) throw new Error('the campaign did not end in time');
      await sleep(500);
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(engine.pid) - cpu0;
    const t = await tapper.report();
    const rss = engine.peakRssMb();
    const dropped = { echo: drops.echo.total(), tap: drops.tap.total(), caller: drops.caller.total() };
    await far.sipp.stop();
    const cdrs = await queryRows<{ disposition: string; cause: string; n: number; billsec: number }>(
      db.db,
      sql`select disposition, hangup_cause_q850::text as cause, count(*)::int as n, min(billsec)::int as billsec from cdrs where campaign_id = ${id} group by 1, 2 order by 3 desc`,
    );
    console.log(`ours: campaign ended after ${fmt(seconds, 1)} s; CDRs ${cdrs.map((c) => `${c.n} ${c.disposition} Q.850 ${c.cause} (billsec ≥ ${c.billsec})`).join(', ')}; load ${loadNow()}`);
    return figures(farEndStats(far.csv), t, dropped, cpu, seconds, rss);
  } finally {
    for (const undo of cleanup.reverse()) await undo();
  }
}

/** sipp calling sipp: as many calls, at `rate` a second, each streaming the prompt for SECONDS. */
async function baseline(dir: string, rate: number): Promise<Figures> {
  const cleanup: (() => unknown)[] = [];
  try {
    const tapper = await startTap();
    cleanup.push(() => tapper.stop());
    const far = await startFarEnd(dir, 'baseline', tapper.port);
    cleanup.push(() => far.sipp.stop());
    const mediaPort = await freeUdpPort();
    const drops = { echo: udpDrops((p) => p === far.mediaPort), tap: udpDrops((p) => p === tapper.port) };
    cleanup.push(() => Object.values(drops).forEach((d) => d.stop()));
    const t0 = performance.now();
    const caller = startSippProcess(
      ['-sf', path.join(here, 'sip-stream-uac.xml'), `127.0.0.1:${far.port}`, '-i', '127.0.0.1', '-p', String(await freeUdpPort()), '-mi', '127.0.0.1',
        '-mp', String(mediaPort), '-r', String(rate), '-m', String(CALLS), '-l', String(CALLS), '-d', String(SECONDS * 1000), '-nostdin',
        '-rtp_buffsize', '4194304', '-trace_err', '-error_file', path.join(dir, 'caller-errors.log')],
      dir,
    );
    cleanup.push(() => caller.stop());
    let cpu = 0;
    const cpuSampler = setInterval(() => (cpu = Math.max(cpu, cpuSeconds(caller.child.pid as number))), 200);
    cleanup.push(() => clearInterval(cpuSampler));
    let giveUp: NodeJS.Timeout | undefined;
    cleanup.push(() => clearTimeout(giveUp));
    const code = await Promise.race([caller.exited, new Promise<'timeout'>((r) => (giveUp = setTimeout(() => r('timeout'), (CALLS / rate + SECONDS + 60) * 1000)))]);
    clearInterval(cpuSampler);
    const seconds = (performance.now() - t0) / 1000;
    const t = await tapper.report();
    const dropped = { echo: drops.echo.total(), tap: drops.tap.total(), caller: null };
    await far.sipp.stop();
    console.log(`baseline: sipp caller exited ${code} after ${fmt(seconds, 1)} s; load ${loadNow()}`);
    return figures(farEndStats(far.csv), t, dropped, cpu, seconds, caller.peakRssMb());
  } finally {
    for (const undo of cleanup.reverse()) await undo();
  }
}

function table(a: Figures, b: Figures): void {
  const rows: [string, (f: Figures) => string, string][] = [
    ['peak concurrent calls (far end)', (f) => fmt(f.peakCalls), '≥ 500'],
    ['  of them with audio flowing (tapped ×10)', (f) => fmt(f.withAudio), '≥ 500'],
    ['call setups/s (answered, 10 %–90 %)', (f) => fmt(f.setupsPerSecond), '≥ 100'],
    ['calls failed (far end)', (f) => fmt(f.failed), '0'],
    ['RTP send jitter p50 / p99 / max (ms)', (f) => `${fmt(f.jitterP50, 2)} / ${fmt(f.jitterP99, 2)} / ${fmt(f.jitterMax, 1)}`, 'p99 ≤ 10'],
    ['  p99 while every call was up (ms)', (f) => fmt(f.jitterSteadyP99, 2), 'p99 ≤ 10'],
    ['RTP frames missing at the far end', (f) => `${fmt(f.lossPercent, 3)} % (${fmt(f.missing)} of ${fmt(f.packets + f.missing)})`, '0 %'],
    ['  of them sequence gaps (lost on the way)', (f) => fmt(f.lost), '0'],
    ['UDP drops at the tap / sipp echo socket', (f) => `${fmt(f.tapDrops)} / ${fmt(f.echoDrops)}`, ''],
    ['UDP drops at the caller (echo unread)', (f) => (f.callerDrops === null ? 'n/a (never reads)' : fmt(f.callerDrops)), ''],
    ['caller CPU (% of one core, whole run)', (f) => `${fmt(f.cpuPercent)} %`, ''],
    ['caller peak RSS', (f) => `${fmt(f.rssMb)} MB`, '≤ 400 MB'],
  ];
  const w = [Math.max(...rows.map((r) => r[0].length)), 30, 30];
  const line = (c: string[]) => `${c[0].padEnd(w[0])}  ${c[1].padEnd(w[1])}  ${c[2].padEnd(w[2])}  ${c[3]}`;
  console.log(line(['figure', 'ours (engine, sip driver)', 'baseline (sipp → sipp)', 'target']));
  for (const [name, f, target] of rows) console.log(line([name, f(a), f(b), target]));
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-sip-'));
  try {
    // The same audio for both callers: 16-bit WAV for ours (decoded once into the prompt cache), raw mu-law for sipp.
    execFileSync('sox', ['-n', '-r', '8000', '-c', '1', '-b', '16', path.join(dir, 'prompt.wav'), 'synth', String(PROMPT_SECONDS), 'sine', '300-3000']);
    execFileSync('sox', [path.join(dir, 'prompt.wav'), '-t', 'ul', path.join(dir, 'prompt.ul')]);
    console.log(`bench:sip — ${fmt(CALLS)} calls held ${SECONDS} s each, ${os.cpus().length} CPUs, node ${process.version}; load ${loadNow()}`);
    const a = await ours(dir);
    const rate = Math.max(1, Math.round(a.setupsPerSecond));
    console.log(`baseline at ${rate} calls/s (the rate ours reached); load ${loadNow()}`);
    const b = await baseline(dir, rate);
    table(a, b);
    console.log(`load average at the end: ${loadNow()} (uptime: ${execFileSync('uptime').toString().trim()})`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--tap')) await tap();
else await main();
