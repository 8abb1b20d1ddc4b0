/**
 * npm run bench:neighbours — what a process running beside the engine costs it on this machine,
 * whatever that process does, by its scheduling class. A yardstick for bench:events' "the readers
 * alone": the engine unpaced is bound by its round trips to PostgreSQL (docs/bench-events.md,
 * "Where the engine's unpaced ceiling is set"), so what matters is what a neighbour does to them.
 *
 * First each CPU's own speed: a fixed job of JSON (stringify and parse, 1,500,000 times) in a
 * process pinned to that CPU (taskset), BENCH_NEIGHBOUR_ROUNDS (default 3) times each, the CPUs in
 * turn. A machine whose CPUs are its own gives the same time on each, round after round; a virtual
 * machine whose CPUs share physical cores with work outside it does not, and every figure of every
 * benchmark on it moves with that.
 *
 * Then two measures, each alone (the baseline, measured in the same run) and beside a neighbour
 * that does nothing but spin, started for the measure and stopped after it:
 * 1. round trips: one `pg` client sending `select 1` to PostgreSQL and awaiting each answer, as
 *    fast as it can for BENCH_NEIGHBOUR_SECONDS (default 5) s: a Node process and a PostgreSQL
 *    session waking each other, as the engine and its sessions do;
 * 2. compute: the job above pinned to the first CPU, the neighbour pinned to the second: whether
 *    work on one CPU slows work on another (two CPUs on one physical core would show it here).
 * The neighbours: spinning a whole core under SCHED_IDLE (it runs only on a CPU nothing else
 * wants), at nice 19, and at nice 0; and spinning 2.5 ms of every 10 (a quarter of a core, in
 * bursts, as a reader's work comes) under SCHED_IDLE and at nice 0. Each kind is measured
 * BENCH_NEIGHBOUR_ROUNDS times, the kinds interleaved; printed is each kind's median against the
 * median alone.
 *
 * PostgreSQL: BENCH_PG_URL (default the machine's service), or BENCH_PG=private (support.ts).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import pg from 'pg';
import { sleep } from './campaign.ts';
import { fmt, idle, pgAdminUrl } from './support.ts';

const seconds = Number(process.env.BENCH_NEIGHBOUR_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_NEIGHBOUR_ROUNDS ?? 3);

const SPIN = 'for (;;) {}';
const BURSTS = `const { performance } = require('node:perf_hooks');
const burst = () => { const t = performance.now(); while (performance.now() - t < 2.5); setTimeout(burst, 7.5); };
burst();`;
const JOB = `const o = { a: [1, 2, 3], b: 'x'.repeat(200), c: { d: 1.5, e: null } };
const t = process.hrtime.bigint();
let n = 0;
for (let i = 0; i < 1_500_000; i++) n += JSON.parse(JSON.stringify(o)).b.length;
process.stdout.write(String(Number(process.hrtime.bigint() - t) / 1e6));`;

interface Neighbour {
  name: string;
  code?: string;
  idle?: boolean;
  nice?: number;
}
const NEIGHBOURS: Neighbour[] = [
  { name: 'alone' },
  { name: 'a core spun under SCHED_IDLE', code: SPIN, idle: true },
  { name: 'a core spun at nice 19', code: SPIN, nice: 19 },
  { name: 'a core spun at nice 0', code: SPIN, nice: 0 },
  { name: 'a quarter core in bursts, SCHED_IDLE', code: BURSTS, idle: true },
  { name: 'a quarter core in bursts, nice 0', code: BURSTS, nice: 0 },
];

/** Starts the neighbour (none for `alone`); returns its stop. */
async function start(n: Neighbour, cpu?: number): Promise<() => void> {
  if (!n.code) return () => {};
  const command = [process.execPath, '-e', n.code];
  const child: ChildProcess = cpu === undefined ? spawn(command[0], command.slice(1), { stdio: 'ignore' }) : spawn('taskset', ['-c', String(cpu), ...command], { stdio: 'ignore' });
  const pid = child.pid as number;
  if (n.idle) idle(pid);
  else os.setPriority(pid, n.nice ?? 0);
  await sleep(300);
  return () => child.kill();
}

/** Round trips a second: `select 1`, each awaited, for `seconds`. */
async function roundTrips(client: pg.Client): Promise<number> {
  let count = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  while (performance.now() < end) {
    await client.query('select 1');
    count++;
  }
  return count / ((performance.now() - started) / 1000);
}

/** The compute job's time in ms, in a process of its own pinned to `cpu`. */
function compute(cpu: number): number {
  const run = spawnSync('taskset', ['-c', String(cpu), process.execPath, '-e', JOB], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`the compute job failed: ${run.stderr}`);
  return Number(run.stdout);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const url = await pgAdminUrl();
  console.log(`bench:neighbours — ${rounds} rounds of each, ${seconds} s of round trips and one compute job a measure; PostgreSQL at ${url}; node ${process.version}`);
  const cpus = os.availableParallelism();
  const own = Array.from({ length: cpus }, () => [] as number[]);
  for (let round = 1; round <= rounds; round++) for (let cpu = 0; cpu < cpus; cpu++) own[cpu].push(compute(cpu));
  console.log(`the compute job alone, pinned to each CPU (ms, each round): ${own.map((ms, cpu) => `CPU ${cpu} ${ms.map((x) => fmt(x)).join(', ')}`).join('; ')}`);
  const slowest = Math.max(...own.flat());
  const fastest = Math.min(...own.flat());
  console.log(`  the slowest run took ${fmt(slowest / fastest, 2)} × the fastest: ${slowest / fastest > 1.1 ? "these CPUs' speed moves with work outside this machine" : 'steady'}`);

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await roundTrips(client); // warm-up, not measured
  const trips = new Map<string, number[]>(NEIGHBOURS.map((n) => [n.name, []]));
  const jobs = new Map<string, number[]>(NEIGHBOURS.map((n) => [n.name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const n of NEIGHBOURS) {
      const stop = await start(n);
      try {
        trips.get(n.name)?.push(await roundTrips(client));
      } finally {
        stop();
      }
      const pinned = await start(n, cpus - 1);
      try {
        jobs.get(n.name)?.push(compute(0));
      } finally {
        pinned();
      }
      await sleep(300);
    }
  }
  await client.end();
  const baseTrips = median(trips.get('alone') as number[]);
  const baseJob = median(jobs.get('alone') as number[]);
  const change = (x: number, base: number) => `${x >= base ? '+' : ''}${fmt(((x - base) / base) * 100, 1)} %`;
  console.log(`neighbour | round trips/s (each round) | against alone | compute job on CPU 0, the neighbour on CPU ${cpus - 1}: ms (each round) | against alone`);
  for (const n of NEIGHBOURS) {
    const t = trips.get(n.name) as number[];
    const j = jobs.get(n.name) as number[];
    console.log(
      `${n.name} | ${fmt(median(t))} (${t.map((x) => fmt(x)).join(', ')}) | ${n.code ? change(median(t), baseTrips) : 'baseline'} | ${fmt(median(j))} (${j.map((x) => fmt(x)).join(', ')}) | ${n.code ? change(median(j), baseJob) : 'baseline'}`,
    );
  }
}

await main();
process.exit(0);
