/**
 * npm run bench:wakeups — what the event log's notifications cost a server with nobody to send
 * them to. An engine dialing at full speed commits events ~80 times a second, and each commit
 * NOTIFYs every session LISTENing on `events`; a process listening is woken each time.
 *
 * It starts the real server (`serve --role api`, no engine) on a fresh PostgreSQL database and,
 * in each of three states, measures its CPU (every thread's time on a CPU, from
 * /proc/<pid>/task/<tid>/schedstat, in ns) over BENCH_WAKEUP_PAIRS (default 4) pairs of
 * BENCH_WAKEUP_SECONDS (default 5) windows: one quiet (the baseline, measured in the same run),
 * then one with BENCH_WAKEUP_RATE (default 80) NOTIFYs a second on `events`, as the engine's
 * commits send them. The states, one after the other:
 * 1. no webhook and no stream: the server should not be listening;
 * 2. a live stream open (`GET /rest-api/events/`): the server listens, and each notification
 *    wakes the stream to read the log (what a wake-up costs a server that listens);
 * 3. the stream open, and each notification an event committed (an INSERT into `events`, whose
 *    trigger NOTIFYs, as the engine's commits do): the stream reads and sends 80 events a second.
 *    Not woken by the notifications while the log moves (LogMotion, src/campaign/wake-spacing.ts),
 *    it reads every 100 ms on its own; compare with the code before to see what that saves;
 * 4. that stream closed 15 s before (the server stops listening 10 s after its last stream
 *    closed): it should not be listening again.
 * Prints, for each state, the median over the pairs of the notifications' CPU over the quiet
 * window's, in ms a second and µs a notification (the median: a pair with a one-off task of the
 * server's in one window, a collection or a periodic sweep, does not decide it).
 * Target: in states 1 and 4 the notifications cost the server ≤ 1 ms of CPU a second.
 */
import fs from 'node:fs';
import pg from 'pg';
import { sleep } from './campaign.ts';
import { benchDatabase, fmt, startServer } from './support.ts';

const windowSeconds = Number(process.env.BENCH_WAKEUP_SECONDS ?? 5);
const pairs = Number(process.env.BENCH_WAKEUP_PAIRS ?? 4);
const rate = Number(process.env.BENCH_WAKEUP_RATE ?? 80);
const password = 'bench-wakeups-password';

/** The process's CPU time so far in ns: the sum over its threads (schedstat's first field). */
function cpuNs(pid: number): number {
  let total = 0;
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended meanwhile
    }
  }
  return total;
}

/** The server's CPU in ms a second over `work`, and what work returned. */
async function cpuOver<T>(pid: number, work: () => Promise<T>): Promise<{ msPerSecond: number; result: T }> {
  const cpu = cpuNs(pid);
  const started = Date.now();
  const result = await work();
  return { msPerSecond: (cpuNs(pid) - cpu) / 1e6 / ((Date.now() - started) / 1000), result };
}

const NOTIFY = `select pg_notify('events', '')`;
const EVENT = `insert into events (type, user_id, campaign_id, data) values ('import.finished', null, null, '{"bench":"wakeups"}')`;

/** Runs `statement` (a NOTIFY on `events`, or an event committed) at `rate` a second for a window, from `client`'s session; how many times. */
async function notifying(client: pg.Client, statement: string): Promise<number> {
  const start = Date.now();
  const end = start + windowSeconds * 1000;
  let sent = 0;
  while (Date.now() < end) {
    // Due at sent / rate seconds after the start: the rate holds whatever each round trip took.
    const due = start + (sent / rate) * 1000;
    if (due > Date.now()) await sleep(due - Date.now());
    await client.query(statement);
    sent++;
  }
  return sent;
}

interface State {
  name: string;
  /** Each pair's notifications' CPU over its quiet window's, ms a second. */
  over: number[];
  notificationsPerSecond: number;
}

async function measureState(pid: number, client: pg.Client, name: string, statement = NOTIFY): Promise<State> {
  const over: number[] = [];
  let sent = 0;
  for (let i = 0; i < pairs; i++) {
    const quiet = await cpuOver(pid, () => sleep(windowSeconds * 1000));
    const notified = await cpuOver(pid, () => notifying(client, statement));
    over.push(notified.msPerSecond - quiet.msPerSecond);
    sent += notified.result;
  }
  return { name, over, notificationsPerSecond: sent / (pairs * windowSeconds) };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main(): Promise<void> {
  const db = await benchDatabase('wakeups');
  const server = await startServer({ name: 'PostgreSQL', env: { DATABASE_URL: db.url }, cleanup: db.drop }, password, { LOG_LEVEL: 'warn' });
  const auth = `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`;
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  console.log(
    `bench:wakeups — PostgreSQL, ${pairs} pairs of ${windowSeconds} s windows a state (quiet, then ${rate} NOTIFYs a second on 'events'); node ${process.version}`,
  );
  const states: State[] = [];
  try {
    await sleep(10_000); // past the start's own work (migrations, the first rounds, the JIT)
    states.push(await measureState(server.pid, client, 'no webhook, no stream'));
    const controller = new AbortController();
    const res = await fetch(`${server.base}/rest-api/events/`, { headers: { authorization: auth }, signal: controller.signal });
    if (res.status !== 200) throw new Error(`the stream answered ${res.status}`);
    const reading = (async () => {
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      try {
        while (!(await reader.read()).done);
      } catch {
        // aborted
      }
    })();
    await sleep(1000);
    states.push(await measureState(server.pid, client, 'a stream open'));
    states.push(await measureState(server.pid, client, 'a stream open, an event a notification', EVENT));
    controller.abort();
    await reading;
    await sleep(15_000);
    states.push(await measureState(server.pid, client, 'the stream closed 15 s before'));
  } finally {
    await client.end();
    await server.stop();
    await db.drop();
  }
  for (const s of states) {
    const m = median(s.over);
    console.log(
      `${s.name}: the notifications cost the server ${fmt(m, 2)} ms of CPU a second over the quiet baseline, ` +
        `${fmt((m * 1000) / s.notificationsPerSecond)} µs a notification (median of ${s.over.map((o) => fmt(o, 2)).join(', ')}; ${fmt(s.notificationsPerSecond, 1)} a second)`,
    );
  }
  const idle = [states[0], states[3]].map((s) => median(s.over));
  console.log(
    `without webhooks or open streams: ${idle.map((o) => fmt(o, 2)).join(' and ')} ms a second (target ≤ 1): ${idle.every((o) => o <= 1) ? 'met' : 'NOT MET'}`,
  );
}

await main();
