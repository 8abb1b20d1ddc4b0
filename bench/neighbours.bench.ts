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
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import pg from 'pg';
import { sleep } from './campaign.ts';
import { fmt, pgAdminUrl, type SpinnerOptions, startSpinner } from './support.ts';

const seconds = Number(process.env.BENCH_NEIGHBOUR_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_NEIGHBOUR_ROUNDS ?? 3);

const JOB = `const o = { a: [1, 2, 3], b: 'x'.repeat(200), c: { d: 1.5, e: null } };
const t = process.hrtime.bigint();
let n = 0;
for (let i = 0; i < 1_500_000; i++) n += JSON.parse(JSON.stringify(o)).b.length;
process.stdout.write(String(Number(process.hrtime.bigint() - t) / 1e6));`;

/** A neighbour: a spinner of `cores` (startSpinner), or none for `alone`. */
interface Neighbour extends SpinnerOptions {
  name: string;
  cores: number;
}
const NEIGHBOURS: Neighbour[] = [
  { name: 'alone', cores: 0 },
  { name: 'a core spun under SCHED_IDLE', cores: 1, idle: true },
  { name: 'a core spun at nice 19', cores: 1, nice: 19 },
  { name: 'a core spun at nice 0', cores: 1 },
  { name: 'a quarter core in bursts, SCHED_IDLE', cores: 0.25, idle: true },
  { name: 'a quarter core in bursts, nice 0', cores: 0.25 },
];

/** Starts the neighbour (none for `alone`), pinned to `cpu` if given, and lets it settle; returns its stop. */
async function start(n: Neighbour, cpu?: number): Promise<() => void> {
  if (n.cores === 0) return () => {};
  const stop = startSpinner(n.cores, { idle: n.idle, nice: n.nice, cpu });
  await sleep(300);
  return stop;
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
  const trips = NEIGHBOURS.map(() => [] as number[]);
  const jobs = NEIGHBOURS.map(() => [] as number[]);
  for (let round = 1; round <= rounds; round++) {
    for (const [i, n] of NEIGHBOURS.entries()) {
      const stop = await start(n);
      try {
        trips[i].push(await roundTrips(client));
      } finally {
        stop();
      }
      const pinned = await start(n, cpus - 1);
      try {
        jobs[i].push(compute(0));
      } finally {
        pinned();
      }
      await sleep(300);
    }
  }
  await client.end();
  const alone = NEIGHBOURS.findIndex((n) => n.cores === 0); // the baseline
  const baseTrips = median(trips[alone]);
  const baseJob = median(jobs[alone]);
  const change = (x: number, base: number) => `${x >= base ? '+' : ''}${fmt(((x - base) / base) * 100, 1)} %`;
  console.log(`neighbour | round trips/s (each round) | against alone | compute job on CPU 0, the neighbour on CPU ${cpus - 1}: ms (each round) | against alone`);
  for (const [i, n] of NEIGHBOURS.entries()) {
    const [t, j] = [trips[i], jobs[i]];
    console.log(
      `${n.name} | ${fmt(median(t))} (${t.map((x) => fmt(x)).join(', ')}) | ${i === alone ? 'baseline' : change(median(t), baseTrips)} | ${fmt(median(j))} (${j.map((x) => fmt(x)).join(', ')}) | ${i === alone ? 'baseline' : change(median(j), baseJob)}`,
    );
  }
}

await main();
process.exit(0);
