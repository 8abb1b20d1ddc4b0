/**
 * npm run bench:events — the event log end to end on PostgreSQL (issue 14 §6). A
 * BENCH_EVENTS_CALLS (default 1,000,000) call campaign of the bench:engine kind (simulator, zero
 * ring and talk time, no pace limit) run by `serve --role engine`, the API in another process,
 * which also delivers the events: to a webhook on a loopback receiver that checks every
 * signature, and to a live stream (SSE) client, both attached before the start and run by the
 * integrator's process (bench/event-readers.ts) at the lowest priority. Prints the
 * events/s delivered to each, the delivery lag (receipt − the event's `created`) p50 and p99,
 * and the engine's calls/s against the same campaign with the event log off (dialer.events =
 * 'off' in the engine's sessions: no event of its written, nothing to deliver). After a warm-up campaign, BENCH_ROUNDS (default 3)
 * rounds of three campaigns, each by a new engine: log off, log on and not read, log on and read
 * (by a new webhook and new streams), in an order that turns each round. A single run of each
 * differed by up to 12 % from the same run again on these shared machines, more than what is
 * measured; so each round's runs are compared with each other (alike in tables and in the
 * machine's mood) and the slowdown printed is the mean of the rounds' (see `slowdown`). Before each campaign,
 * untimed, the database is vacuumed and analyzed and a checkpoint taken (BENCH_SETTLE=false: not),
 * so each starts from the same state. Prints each run's CPU seconds by process, and the WAL it
 * wrote with the checkpoints in it. BENCH_BATCH_SIZE (default 100) is the webhook's
 * batch_size, BENCH_ORDERED=true makes it ordered, BENCH_READERS=webhook or stream attaches one
 * (none: neither; floor: neither, and bench/floor-reader.ts reads the log instead, the least any
 * deliverer does: a yardstick, see there), BENCH_STREAMS (default 1) opens that many streams, BENCH_BURN=<cores> spins
 * that much CPU beside the engine during each read run (a yardstick: see below).
 * Targets: the webhook keeps up with the engine (≥ 5,000 events/s), lag p99 ≤ 1 s, calls/s at
 * most 10 % below those with the log off (the mean of the rounds).
 */
import { type ChildProcess, fork } from 'node:child_process';
import os from 'node:os';
import { sql } from 'drizzle-orm';
import { openDatabase, queryRows } from '../src/db/database.ts';
import type { ReaderReport, Report } from './event-readers.ts';
import type { FloorReport } from './floor-reader.ts';
import { apiRequest, auth, campaign, type CampaignRun, check, fixture, one, password, patchStatus, phonebook, runToEnd, sleep, startEngine, walSince, walState } from './campaign.ts';
import { backends, cli, cpuSplit, fmt, idle, profiled, startServer, startSpinner } from './support.ts';

const calls = Number(process.env.BENCH_EVENTS_CALLS ?? 1_000_000);
/** Rounds of three campaigns (log off, on and not read, on and read; BENCH_ROUNDS, default 3). */
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
/** The webhook's `ordered` (BENCH_ORDERED=true: one delivery at a time; default false: up to 16 at a time). */
const ordered = process.env.BENCH_ORDERED === 'true';
/** The webhook's `batch_size` (BENCH_BATCH_SIZE; default 100: arrays of up to 100 events; 1: an event a delivery). */
const batchSize = Number(process.env.BENCH_BATCH_SIZE ?? 100);
/** Who reads the log in the measured run (BENCH_READERS; default both): to tell their costs apart. */
const readers = (process.env.BENCH_READERS ?? 'webhook,stream').split(',');
const withWebhook = readers.includes('webhook');
const withStream = readers.includes('stream');
/** BENCH_READERS=floor: the floor reader (bench/floor-reader.ts) reads the log in place of ours. */
const withFloor = readers.includes('floor');
/** How many stream clients (BENCH_STREAMS, default 1): consoles left open on the live page, say. */
const streams = Number(process.env.BENCH_STREAMS ?? 1);
/**
 * BENCH_BURN=<cores> (e.g. 0.25): during the measured run, a process at normal priority that only
 * spins, that share of one core (startSpinner, support.ts: in 10 ms slices, a whole core without pause). With
 * BENCH_READERS=none it measures what that much CPU spent beside the engine costs it on this
 * machine, whatever spends it: the yardstick for the readers' cost.
 */
const burn = Number(process.env.BENCH_BURN ?? 0);
/**
 * BENCH_BURN_IDLE=true: the burner under SCHED_IDLE (a core's time only when nothing else wants
 * it). If it still slows the engine, what slows it is the CPU spent beside it, not the scheduler.
 */
const burnIdle = process.env.BENCH_BURN_IDLE === 'true';
/** BENCH_INTEGRATOR=idle: the integrator under SCHED_IDLE rather than only at nice 19. */
const integratorIdle = process.env.BENCH_INTEGRATOR === 'idle';
/**
 * BENCH_SERVER=idle: the server (the API and the deliverer) under SCHED_IDLE, all its threads: it
 * runs when a core is free, and any other task that wakes takes the core from it at once.
 */
const serverIdle = process.env.BENCH_SERVER === 'idle';
/**
 * BENCH_SERVER_NODE_OPTIONS: node's options for the server only (e.g. --max-semi-space-size=64,
 * a larger young generation: what the deliverer's garbage collection costs with it).
 */
const serverNodeOptions = process.env.BENCH_SERVER_NODE_OPTIONS;
/** Node's (and V8's) command-line flags from the environment variable `name`, space-separated. */
const nodeFlags = (name: string) => (process.env[name] ?? '').split(' ').filter(Boolean);
/** BENCH_SERVER_NODE_FLAGS: node's (and V8's) flags for the server only, e.g. --single-threaded-gc, which NODE_OPTIONS refuses. */
const serverNodeFlags = nodeFlags('BENCH_SERVER_NODE_FLAGS');
/** BENCH_INTEGRATOR_NODE_FLAGS: the same for the integrator (e.g. --trace-gc: its collections, printed with the bench's output). */
const integratorNodeFlags = nodeFlags('BENCH_INTEGRATOR_NODE_FLAGS');
/**
 * BENCH_CALLS_PER_SECOND=<n>: each campaign paced at n calls a second (its `frequency`, n × 60 a
 * minute) rather than as fast as the engine goes: whether an engine dialing at a set pace keeps it
 * with the log read. Default: no pace limit, the engine's ceiling (what the issue's target is about).
 */
const pacedAt = Number(process.env.BENCH_CALLS_PER_SECOND ?? 0);
const frequency = pacedAt > 0 ? Math.round(pacedAt * 60) : 10_000_000;
/** BENCH_SETTLE=false: campaigns start on the database as the one before left it (no vacuum, no checkpoint first). */
const settle = process.env.BENCH_SETTLE !== 'false';

/** The integrator (bench/event-readers.ts): the receiver and the stream client, in a process at the lowest priority. */
async function readersProcess(): Promise<{ url: string; sink: number; pid: number; send: (m: object) => void; report: () => Promise<Report>; close: () => void }> {
  const child = fork(new URL('./event-readers.ts', import.meta.url), [], { execArgv: [...profiled(process.execArgv), ...integratorNodeFlags], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { url, sink } = await new Promise<{ url: string; sink: number }>((resolve, reject) => {
    child.once('message', (m: { url: string; sink: number }) => resolve(m));
    child.once('exit', (code) => reject(new Error(`the readers' process exited with ${code}`)));
  });
  os.setPriority(child.pid as number, 19);
  if (integratorIdle) {
    // SCHED_IDLE: it runs only on a core nothing else wants, and gives it up at once to any other
    // task that wakes (nice 19 under the kernel's fair scheduler still takes its turns).
    idle(child.pid as number);
  }
  return { url, sink, pid: child.pid as number, send: (m) => child.send(m), ...controls<Report>(child) };
}

/** How the bench asks a process it forked for its report ({ report: true }, answered { report }) and closes it. */
function controls<R>(child: ChildProcess): { report: () => Promise<R>; close: () => void } {
  return {
    report: () =>
      new Promise<R>((resolve) => {
        child.once('message', (m: { report: R }) => resolve(m.report));
        child.send({ report: true });
      }),
    close: () => {
      child.send({ close: true });
      setTimeout(() => child.kill(), 1000).unref();
    },
  };
}

/** The floor reader (bench/floor-reader.ts), at the server's priority, reading from the log's end into the integrator's sink. */
async function floorProcess(databaseUrl: string, sink: number): Promise<{ pid: number; report: () => Promise<FloorReport>; close: () => void }> {
  const child = fork(new URL('./floor-reader.ts', import.meta.url), [], { execArgv: profiled(process.execArgv), stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the floor reader exited with ${code}`)));
    child.send({ start: { url: databaseUrl, sink } });
  });
  return { pid: child.pid as number, ...controls<FloorReport>(child) };
}

const rate = (r: Pick<ReaderReport, 'seen' | 'first' | 'last'>) => r.seen / Math.max((r.last - r.first) / 1000, 0.001);

/** The three kinds of campaign a round runs, each by a new engine. */
const KINDS = ['off', 'alone', 'read'] as const;
type Kind = (typeof KINDS)[number];
const LABEL: Record<Kind, string> = { off: 'event log off', alone: 'event log on, not read', read: 'event log on, read' };
/**
 * Their order in each round: each kind comes first, second and third once in three rounds, so
 * neither the tables growing campaign after campaign nor the machine's moods favour one kind.
 */
const ORDERS: Kind[][] = [
  ['off', 'alone', 'read'],
  ['read', 'off', 'alone'],
  ['alone', 'read', 'off'],
];

/**
 * One kind's slowdown against another over the rounds, in %: from the mean of the rounds'
 * log(pace ratio). The campaigns' paces drift over a bench (here up to a third from the first
 * campaign to the last: the machine's mood, tables growing), and each round's comparison carries
 * the drift between its two runs' places. The orders turn (ORDERS) so that over each three rounds
 * each kind is first, second and third once: a steady drift then cancels in the mean, not in the
 * median, which printed here until 2026-11-28 and kept a step of drift: with paces falling over
 * the bench, in favour of the read runs against the log off (and against them beside the log not
 * read); with paces rising, the other way.
 */
const slowdown = (ratios: number[]) => (1 - Math.exp(ratios.reduce((sum, r) => sum + Math.log(r), 0) / ratios.length)) * 100;
const percents = (values: number[]) => values.map((v) => `${fmt(v, 1)} %`).join(', ');

/** A campaign measured: its pace, the CPU line printed, its size, and each process's CPU seconds. */
type Measured = CampaignRun & { split: string; size: number; cpu: Record<string, number> };

/** What the readers got in one read campaign. */
interface Delivered {
  expected: number;
  got: Report;
  /** What the floor reader read (BENCH_READERS=floor). */
  floor?: FloorReport;
  /** Seconds from the campaign's end to the webhook's last delivery. */
  behind: number;
  /** The events written during the campaign, by type: each call's two, and the campaign's start and end. */
  types: { type: string; n: number }[];
}

async function main(): Promise<void> {
  console.log(
    `bench:events — PostgreSQL, ${fmt(calls)} calls a campaign${pacedAt > 0 ? `, paced at ${fmt(pacedAt)} calls/s` : ''}, ${rounds} round${rounds === 1 ? '' : 's'}, the webhook ${ordered ? 'ordered' : 'not ordered'}, batch_size ${batchSize}; node ${process.version}`,
  );
  const [backend] = await backends('events').then((all) => all.filter((b) => b.name === 'PostgreSQL'));
  if (!backend) throw new Error('bench:events runs on PostgreSQL (BENCH_DB=postgres)');
  const integrator = await readersProcess();
  try {
    cli(['user', 'create', '--username', 'bench', '--password', password], backend.env);
    const db = await openDatabase({ url: backend.env.DATABASE_URL });
    const f = await fixture(db);
    const server = await startServer(
      backend,
      'bench-admin-password',
      { WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'warn', ...(serverNodeOptions ? { NODE_OPTIONS: serverNodeOptions } : {}) },
      'api',
      serverNodeFlags,
    );
    if (serverIdle) idle(server.pid);
    let campaigns = 0;
    /** One campaign of `size` subscribers run to its end by a new engine; its pace and where the CPU went. */
    const measure = async (name: string, log: 'on' | 'off', before?: () => Promise<Record<string, number> | void>, size = calls) => {
      const engine = await startEngine(backend, db, log);
      const book = await phonebook(db, f, String(705 + 5 * campaigns++), size);
      const id = await campaign(db, f, book, name, frequency);
      // Every campaign starts from the same state of the database (untimed): its tables vacuumed
      // and analyzed (autovacuum may be off, as on these machines, or may start at any moment
      // when on), and a checkpoint just done, so none falls inside a campaign from the writes of
      // the one before and each pays the same full-page images after it.
      if (settle) {
        await db.db.execute(sql`vacuum analyze`);
        await db.db.execute(sql`checkpoint`);
      }
      const more = (await before?.()) ?? {};
      const wal = await walState(db);
      const cpu = cpuSplit({ engine: engine.pid, server: server.pid, integrator: integrator.pid, ...more });
      await patchStatus(server, id, 1);
      const result = await runToEnd(server, id, size, db);
      const spent = cpu();
      const written = await walSince(db, wal);
      await check(db, f, id, size);
      await engine.stop();
      // pg_stat_database's commits lag by up to a stats flush (~1 s at most): a rounding at this size.
      const perCall = (n: number) => fmt(n / size, 3);
      const split =
        `${spent.text}; WAL ${fmt(written.mb)} MB, ${written.checkpoints} checkpoint${written.checkpoints === 1 ? '' : 's'}; ` +
        `${fmt(written.commits)} commits (${perCall(written.commits)} a call), ${fmt(written.syncs)} WAL flushes (${perCall(written.syncs)} a call)`;
      return { ...result, split, size, cpu: spent.seconds } satisfies Measured;
    };
    const show = (what: string, run: Measured, note = '') => {
      const sustained = run.sustained === undefined ? 'too short for the sustained rate' : `${fmt(run.sustained)} calls/s sustained`;
      console.log(`${what}: ${fmt(run.size)} calls in ${fmt(run.seconds, 1)} s, ${fmt(run.overall)} calls/s overall, ${sustained}`);
      console.log(`  CPU over the campaign: ${run.split}${note}`);
    };

    /**
     * A campaign read by a new webhook (it starts at the log's end) and new streams, attached
     * before the start; waits until they have every event it wrote, then detaches them.
     */
    const readCampaign = async (name: string) => {
      let webhookId = 0;
      let since = '';
      let stopBurner = () => undefined as void;
      let floor: Awaited<ReturnType<typeof floorProcess>> | undefined;
      const attach = async (): Promise<Record<string, number>> => {
        integrator.send({ reset: true });
        if (withWebhook) {
          const created = await apiRequest(server, 'POST', '/rest-api/webhook/', { url: integrator.url, description: 'bench:events', ordered, batch_size: batchSize });
          if (created.status !== 201) throw new Error(`webhook create answered ${created.status}: ${await created.text()}`);
          const made = (await created.json()) as { secret: string; id: number };
          webhookId = made.id;
          integrator.send({ secret: made.secret });
        }
        if (withStream) integrator.send({ stream: { url: `${server.base}/rest-api/events/`, auth, count: streams } });
        if (burn > 0) stopBurner = startSpinner(burn, { idle: burnIdle });
        since = (await one<{ now: string }>(db, sql`select now()::text as now`)).now;
        if (withFloor) floor = await floorProcess(backend.env.DATABASE_URL, integrator.sink);
        return floor ? { 'floor reader': floor.pid } : {};
      };
      const run = await measure(name, 'on', attach);
      stopBurner();
      const endedAt = Date.now();
      // The events the campaign wrote, by type: every transaction of it began after `since` (the
      // BRIN index on created finds them); what each reader must get is their sum.
      const types = await queryRows<{ type: string; n: number }>(
        db.db,
        sql`select type, count(*)::int as n from events where created >= ${since}::timestamptz and user_id = ${f.userId} group by type order by type`,
      );
      const expected = types.reduce((sum, t) => sum + t.n, 0);
      const deadline = Date.now() + 600_000;
      let got = await integrator.report();
      let floorGot = await floor?.report();
      while (((withWebhook && got.hook.seen < expected) || (withStream && got.live.seen < expected) || (floorGot && floorGot.seen < expected)) && Date.now() < deadline) {
        await sleep(200);
        got = await integrator.report();
        floorGot = await floor?.report();
      }
      integrator.send({ endStream: true });
      floor?.close();
      if (webhookId) await apiRequest(server, 'PATCH', `/rest-api/webhook/${webhookId}/`, { active: false });
      return { run, delivered: { expected, got, floor: floorGot, behind: (got.hook.last - endedAt) / 1000, types } satisfies Delivered };
    };

    try {
      // A campaign not measured first: the first of a run was always the slowest, by up to 25 %
      // (cold caches, a database without statistics), whatever it measured.
      show('warm-up, event log off, not measured', await measure('benchwarm', 'off', undefined, Math.ceil(calls / 4)));
      const paces: Record<Kind, Measured>[] = [];
      const deliveries: Delivered[] = [];
      for (let round = 0; round < rounds; round++) {
        const pace = {} as Record<Kind, Measured>;
        for (const kind of ORDERS[round % ORDERS.length]) {
          const name = `bench${kind}${round + 1}`;
          const what = `round ${round + 1}, ${LABEL[kind]}`;
          if (kind === 'read') {
            const { run, delivered } = await readCampaign(name);
            show(what, run, withFloor ? ' (the floor reader reads the log, the integrator only drains its sockets)' : ` (the server sends to the integrator's ${readers.join(' and ')}, at the lowest priority)`);
            deliveries.push(delivered);
            pace.read = run;
          } else {
            const run = await measure(name, kind === 'off' ? 'off' : 'on');
            show(what, run);
            pace[kind] = run;
          }
        }
        paces.push(pace);
      }

      for (const [i, d] of deliveries.entries()) {
        // Each call writes call.completed and subscriber.final, the campaign campaign.started and campaign.ended.
        const want: Record<string, number> = { 'call.completed': calls, 'subscriber.final': calls, 'campaign.started': 1, 'campaign.ended': 1 };
        const counted = new Map(d.types.map((t) => [t.type, t.n]));
        const wrong = [...new Set([...Object.keys(want), ...counted.keys()])].filter((type) => (counted.get(type) ?? 0) !== (want[type] ?? 0));
        console.log(
          `round ${i + 1}: the events the campaign wrote, by type: ${d.types.map((t) => `${t.type} ${fmt(t.n)}`).join(', ')}` +
            (wrong.length ? `; NOT ONE EACH OF ITS CALLS' TWO AND ITS START AND END: ${wrong.map((type) => `${type} ${fmt(counted.get(type) ?? 0)} (expected ${fmt(want[type] ?? 0)})`).join(', ')}` : '; as expected'),
        );
        if (d.floor) {
          console.log(`round ${i + 1}: ${fmt(d.expected)} events; the floor reader read ${fmt(d.floor.seen)}, ${fmt(rate(d.floor))} events/s`);
          continue;
        }
        const { hook, live } = d.got;
        console.log(
          `round ${i + 1}: ${fmt(d.expected)} events; webhook ${fmt(hook.seen)} delivered in ${fmt(d.got.deliveries)} requests (${hook.duplicates} again), ${fmt(rate(hook))} events/s, ` +
            `lag p50 ${fmt(hook.p50)} ms, p99 ${fmt(hook.p99)} ms, last ${fmt(Math.max(d.behind, 0), 1)} s after the campaign ended, ${d.got.badSignatures} bad signatures; ` +
            `stream${streams > 1 ? `s (${streams}, the slowest)` : ''} ${fmt(live.seen)} received, ${fmt(rate(live))} events/s, lag p50 ${fmt(live.p50)} ms, p99 ${fmt(live.p99)} ms`,
        );
      }
      const hookP99 = Math.max(...deliveries.map((d) => d.got.hook.p99));
      const liveP99 = Math.max(...deliveries.map((d) => d.got.live.p99));
      const slowest = Math.min(...deliveries.map((d) => Math.min(withWebhook ? rate(d.got.hook) : Infinity, withStream ? rate(d.got.live) : Infinity)));
      const complete = deliveries.every(
        (d) => (!withWebhook || d.got.hook.seen === d.expected) && (!withStream || d.got.live.seen === d.expected) && (!withFloor || d.floor?.seen === d.expected),
      );
      console.log(
        withFloor
          ? `delivery: the floor reader ${complete ? 'read every event' : 'MISSED EVENTS'} (no webhook, no stream: BENCH_READERS=floor)`
          : withWebhook || withStream
          ? `delivery: ${complete ? 'every event to each reader' : 'EVENTS MISSING'}; the slowest reader ${fmt(slowest)} events/s (target ≥ 5,000); lag p99 at worst: webhook ${fmt(hookP99)} ms, stream ${fmt(liveP99)} ms (target ≤ 1,000 ms)`
          : 'delivery: no reader attached (BENCH_READERS=none)',
      );
      // The sustained rates (10 % to 90 % of the calls) if every campaign was long enough to give
      // one, else the rates over the whole campaigns, so that a round never compares one with the other.
      const basis = paces.every((p) => KINDS.every((k) => p[k].sustained !== undefined)) ? 'sustained' : 'overall';
      const at = paces.map((p) => Object.fromEntries(KINDS.map((k) => [k, p[k][basis] ?? 0])) as Record<Kind, number>);
      console.log(
        `calls/s by round (off / on, not read / on, read), ${basis === 'sustained' ? 'sustained' : 'over the whole campaign (a campaign too short for the sustained rate)'}: ` +
          at.map((p) => `${fmt(p.off)} / ${fmt(p.alone)} / ${fmt(p.read)}`).join('; '),
      );
      // What the engine and PostgreSQL spent a call: with the log read they do the same work as with
      // it not read. Whether they spend more on it beside the readers (the scheduler, caches and
      // cores shared; the readers' queries are in PostgreSQL's, a few % of it) is the part of the
      // slowdown no leaner deliverer removes; the readers' own CPU is the part it can. Seen on
      // this machine at 200,000 calls: +28 % in one run, +1.8 % (rounds -3, +12, -3 %) in another.
      const perCall = (r: Measured, name: string) => ((r.cpu[name] ?? 0) / r.size) * 1e6;
      const callCpu = (name: string) => at.map((_, i) => KINDS.map((k) => fmt(perCall(paces[i][k], name))).join(' / ')).join('; ');
      const both = (r: Measured) => perCall(r, 'engine') + perCall(r, 'PostgreSQL');
      const grew = slowdown(paces.map((p) => both(p.read) / both(p.alone))); // negative: more
      const readersCpu = paces.map((p) => (['server', 'integrator'] as const).reduce((sum, name) => sum + perCall(p.read, name) - perCall(p.alone, name), 0));
      console.log(
        `CPU a call by round (off / on, not read / on, read), µs: engine ${callCpu('engine')}; PostgreSQL ${callCpu('PostgreSQL')}. ` +
          `With the log read the engine and PostgreSQL spent ${fmt(-grew, 1)} % more a call than with it not read (the mean of the rounds), the readers themselves ${readersCpu.map((v) => fmt(v)).join(', ')} µs a call more (server and integrator)`,
      );
      // Each round's runs against each other: the tables and the machine are as alike as they get.
      const ratios = { read: at.map((p) => p.read / p.off), log: at.map((p) => p.alone / p.off), readers: at.map((p) => p.read / p.alone) };
      const rounds3 = rounds % ORDERS.length === 0 ? '' : ` (BENCH_ROUNDS=${rounds} is not a multiple of ${ORDERS.length}: the drift between campaigns does not cancel)`;
      const each = (r: number[]) => percents(r.map((x) => (1 - x) * 100));
      console.log(
        `engine: ${fmt(slowdown(ratios.read), 1)} % fewer calls/s with the event log read by ${readers.join(' and ')} than with it off, the mean of the rounds' ${each(ratios.read)} (target ≤ 10 %); ` +
          `with the log not read ${fmt(slowdown(ratios.log), 1)} % (${each(ratios.log)}); the readers alone ${fmt(slowdown(ratios.readers), 1)} % (${each(ratios.readers)})${rounds3}`,
      );
      const history = await queryRows<{ status: string; n: number; retried: number; error: string | null }>(
        db.db,
        sql`select status, count(*)::int as n, count(*) filter (where attempts > 1)::int as retried, max(error) as error
            from webhook_deliveries group by status order by status`,
      );
      const shown = history.map((h) => `${h.status} ${fmt(h.n)} (${fmt(h.retried)} after a retry${h.error ? `; e.g. "${h.error}"` : ''})`);
      console.log(`delivery history: ${shown.join(', ')}; server peak RSS ${fmt(server.peakRssMb())} MB`);
    } finally {
      await server.stop();
      await db.close();
    }
  } finally {
    integrator.close();
    await backend.cleanup();
  }
}

await main();
