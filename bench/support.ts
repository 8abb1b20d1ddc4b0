/**
 * What the benchmarks share: start the real server (`campaign-dialer serve`) as a child process
 * on PostgreSQL or PGlite, wait for it, sample its RSS, and stop it by pid.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startPrivatePostgres } from './private-postgres.ts';

/**
 * The PostgreSQL the benchmarks make their databases in: BENCH_PG_URL (default the machine's
 * service on 127.0.0.1:5432), or with BENCH_PG=private a cluster of their own, sized for their
 * rates (bench/private-postgres.ts), started on first use and printed once.
 */
let adminUrl: Promise<string> | undefined;
export function pgAdminUrl(): Promise<string> {
  adminUrl ??= (async () => {
    if (process.env.BENCH_PG !== 'private') return process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
    const cluster = startPrivatePostgres(await freePort());
    console.log(`PostgreSQL: a private cluster (BENCH_PG=private) at ${cluster.adminUrl}: ${cluster.settings}`);
    return cluster.adminUrl;
  })();
  return adminUrl;
}

/** Puts process `pid` (all its threads) under SCHED_IDLE: it runs only on a CPU nothing else wants. */
export function idle(pid: number): void {
  const chrt = spawnSync('chrt', ['--all-tasks', '--idle', '--pid', '0', String(pid)], { encoding: 'utf8' });
  if (chrt.status !== 0) throw new Error(`chrt --idle failed: ${chrt.stderr}`);
}

export interface SpinnerOptions {
  /** Under SCHED_IDLE (else at `nice`, default 0). */
  idle?: boolean;
  nice?: number;
  /** Pinned to this CPU (taskset). */
  cpu?: number;
}

/**
 * A process that does nothing but spin: `cores` of one core (at most one), busy that share of
 * every 10 ms, or all the time for a whole core. The benches' yardstick for what CPU spent beside
 * the engine costs it, whatever spends it (bench:events' BENCH_BURN, bench:neighbours). Returns
 * its stop.
 */
export function startSpinner(cores: number, options: SpinnerOptions = {}): () => void {
  const busyMs = Math.min(cores, 1) * 10;
  const code =
    busyMs >= 10
      ? 'for (;;) {}'
      : `const { performance } = require('node:perf_hooks');
const slice = () => { const t = performance.now(); while (performance.now() - t < ${busyMs}); setTimeout(slice, ${10 - busyMs}); };
slice();`;
  const command = [process.execPath, '-e', code];
  const child = options.cpu === undefined ? spawn(command[0], command.slice(1), { stdio: 'ignore' }) : spawn('taskset', ['-c', String(options.cpu), ...command], { stdio: 'ignore' });
  const pid = child.pid as number;
  if (options.idle) idle(pid);
  else os.setPriority(pid, options.nice ?? 0);
  return () => child.kill();
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** A fresh PostgreSQL database; returns its URL and a function that drops it. */
export async function benchDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `cd_bench_${label}_${process.pid}`;
  const adminUrl = await pgAdminUrl();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** A child process serving HTTP on `port` (`serve`), its RSS sampled every 100 ms. */
export interface Server extends Worker {
  port: number;
  base: string;
  env: Record<string, string>;
}

export function readRssMb(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /VmRSS:\s+(\d+) kB/.exec(status);
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Clock ticks a second in /proc (USER_HZ: 100 on Linux). */
const CLOCK_TICKS = 100;

/** CPU seconds (user + system) a process has used so far, from /proc (0 once it is gone). */
export function cpuSeconds(pid: number): number {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/**
 * The environment bin/campaign-dialer.js's first line (`#!/usr/bin/env -S NAME=value … node`)
 * gives the command: a benchmark starts it through node (to add node's flags) with the same.
 */
const commandEnv: Record<string, string> = Object.fromEntries(
  (/^#!\S*env -S (.*) node$/m.exec(fs.readFileSync('bin/campaign-dialer.js', 'utf8').split('\n')[0])?.[1] ?? '')
    .split(' ')
    .filter((word) => word.includes('='))
    .map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]),
);
/** What `command` runs with: the command's environment when it is campaign-dialer, then `env`. */
const envFor = (command: string[], env: Record<string, string>) => ({
  ...process.env,
  ...(command.includes('bin/campaign-dialer.js') ? commandEnv : {}),
  ...env,
});

/** Runs the CLI to completion (user create, token create …) with `env`; throws on failure. */
export function cli(args: string[], env: Record<string, string>): string {
  const result = spawnSync(process.execPath, ['bin/campaign-dialer.js', ...args], {
    env: envFor(['bin/campaign-dialer.js'], env),
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`campaign-dialer ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout.trim();
}

/** BENCH_CPU_PROF=<dir>: every process a benchmark starts writes a V8 CPU profile there. */
export function profiled(command: string[]): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...command] : command;
}

/** Starts a command that serves HTTP on `port`, waits until `readyPath` answers, samples RSS. */
export async function startProcess(command: string[], env: Record<string, string>, port: number, readyPath: string, nodeFlags: string[] = []): Promise<Server> {
  const base = `http://127.0.0.1:${port}`;
  const answers = async () => {
    try {
      return (await fetch(`${base}${readyPath}`)).status < 500;
    } catch {
      return false; // not listening yet
    }
  };
  // Generous: a fresh PGlite directory runs initdb and every migration first, slow on a busy machine.
  const worker = await startWorker([...nodeFlags, ...command], env, answers, 180_000);
  return { ...worker, port, base, env };
}

export type Backend = { name: 'PostgreSQL' | 'PGlite'; env: Record<string, string>; cleanup: () => Promise<void> };

/** The two databases a benchmark runs on: a fresh PostgreSQL database and a fresh PGlite dir. */
export async function backends(label: string): Promise<Backend[]> {
  const which = (process.env.BENCH_DB ?? 'postgres,pglite').split(',');
  const out: Backend[] = [];
  if (which.includes('postgres')) {
    const db = await benchDatabase(label);
    out.push({ name: 'PostgreSQL', env: { DATABASE_URL: db.url }, cleanup: db.drop });
  }
  if (which.includes('pglite')) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cd-bench-${label}-`));
    out.push({
      name: 'PGlite',
      env: { DATA_DIR: dir },
      cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }),
    });
  }
  return out;
}

/**
 * Starts `campaign-dialer serve` on a backend with an admin whose password is `adminPassword`,
 * configured as a user would run it (default LOG_LEVEL, info) unless `extraEnv` says otherwise.
 */
export async function startServer(
  backend: Backend,
  adminPassword: string,
  extraEnv: Record<string, string> = {},
  role: 'api' | 'all' = 'api',
  /** node's own flags for the process (V8's among them, which NODE_OPTIONS does not take). */
  nodeFlags: string[] = [],
): Promise<Server> {
  const port = await freePort();
  const env = {
    ...backend.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DIALER_ADMIN_PASSWORD: adminPassword,
    ...extraEnv,
  };
  return startProcess(['bin/campaign-dialer.js', 'serve', '--role', role], env, port, '/healthz', nodeFlags);
}

/** A child process a benchmark started, its RSS sampled every 100 ms. */
export interface Worker {
  pid: number;
  rssMb(): number;
  /** Highest RSS (MB) seen since the last reset. */
  peakRssMb(): number;
  resetPeak(): void;
  stop(): Promise<void>;
}

/** Starts `command` (node's flags first, if any) with `env` and resolves once `ready()` says so (within `timeoutMs`). */
export async function startWorker(command: string[], env: Record<string, string>, ready: () => Promise<boolean>, timeoutMs = 60_000): Promise<Worker> {
  const child: ChildProcess = spawn(process.execPath, profiled(command), { env: envFor(command, env), stdio: ['ignore', 'ignore', 'inherit'] });
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (child.exitCode !== null) throw new Error(`${command.join(' ')} exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`${command.join(' ')} not ready within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const pid = child.pid as number;
  let peak = readRssMb(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, readRssMb(pid))), 100);
  return {
    pid,
    rssMb: () => readRssMb(pid),
    peakRssMb: () => Math.max(peak, readRssMb(pid)),
    resetPeak: () => (peak = readRssMb(pid)),
    stop: () =>
      new Promise<void>((resolve) => {
        clearInterval(sampler);
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        process.kill(pid, 'SIGTERM');
      }),
  };
}

/** CPU seconds so far of every PostgreSQL process on this machine (its backends and workers). */
export function postgresCpuSeconds(): number {
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') total += cpuSeconds(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/**
 * Where the CPU went between now and the returned function's call: seconds by process (the
 * named ones, this benchmark's own process, every PostgreSQL process), for a line of output.
 */
/** What cpuSplit's stop gives: the line it prints, and each process's CPU seconds by its name (PostgreSQL: every backend). */
export interface CpuSpent {
  text: string;
  seconds: Record<string, number>;
}

export function cpuSplit(processes: Record<string, number>): () => CpuSpent {
  const read = () => {
    const self = process.cpuUsage();
    return {
      ...Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, cpuSeconds(pid)])),
      'this bench': (self.user + self.system) / 1e6,
      PostgreSQL: postgresCpuSeconds(),
    };
  };
  const before = read();
  const machineBefore = machineTicks();
  return () => {
    const after = read();
    const machine = machineTicks();
    const cores = os.cpus().length;
    const wall = (machine.all - machineBefore.all) / CLOCK_TICKS / cores;
    const busy = (machine.busy - machineBefore.busy) / CLOCK_TICKS;
    const spent = Object.entries(after).map(([name, seconds]) => [name, seconds - (before as Record<string, number>)[name]] as const);
    const others = busy - spent.reduce((sum, [, seconds]) => sum + seconds, 0);
    // What no process named here spent (the kernel's threads, anything else on the machine) tells a
    // run disturbed from outside: a few hundredths of a core in a quiet one.
    return {
      text:
        spent.map(([name, seconds]) => `${name} ${fmt(seconds, 1)} s`).join(', ') +
        `; the machine ${fmt(busy / wall, 2)} of ${cores} cores busy, ${fmt(Math.max(0, others) / wall, 2)} of them by nothing named here`,
      seconds: Object.fromEntries(spent),
    };
  };
}

/** The machine's CPU time so far, in clock ticks (/proc/stat): all of it, and the part not idle or waiting for I/O. */
function machineTicks(): { all: number; busy: number } {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
  const all = fields.reduce((a, b) => a + b, 0);
  return { all, busy: all - fields[3] - fields[4] };
}

export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
