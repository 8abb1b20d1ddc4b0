/**
 * npm run bench:engine — the dialer engine end to end with the simulator driver at zero ring and
 * talk time. On PostgreSQL: a BENCH_SUBSCRIBERS (default 1,000,000) subscriber voice campaign,
 * no pace limit, run by `campaign-dialer serve --role engine` in a child process (the API in
 * another). Prints the spool time of the real start (PATCH status=1) against the baseline, a raw
 * INSERT … SELECT of the same rows into a scratch table shaped like `subscribers`; the sustained
 * rate of calls fully recorded (callrequest, CDR, billing, statuses); the engine's RSS at start
 * and its peak; the slowdown with a BENCH_DNC (default 10,000,000) number DNC list loaded (two
 * BENCH_DNC_SUBSCRIBERS campaigns, before and after loading it); and the pacing of a frequency
 * 600 campaign over BENCH_PACE_SECONDS (default 60) of real time, in 10-second windows. On
 * PGlite (one process: `serve --role all`): BENCH_PGLITE_SUBSCRIBERS (default 50,000), spool,
 * rate and RSS only. BENCH_CAPS_SUBSCRIBERS (default 100,000; 0 skips): the cost of contact caps and
 * calling hours, the same campaign with them off and on (issue 16). Targets: spool ≤ 10 s; ≥ 2,000 calls/s on PostgreSQL, ≥ 300/s on PGlite;
 * each pacing window within ±5 % of 100 starts; DNC slowdown ≤ 10 %; RSS flat, ≤ 300 MB.
 * BENCH_DB=postgres or pglite runs one; BENCH_PROFILE=<dir> writes the engine's CPU profile there.
 */
import { sql } from 'drizzle-orm';
import { type Database, openDatabase, queryRows } from '../src/db/database.ts';
import { type Backend, backends, cli, fmt, type Server, startServer, type Worker } from './support.ts';
import { campaign, check, fixture, type Fixture, one, password, patchStatus, phonebook, runToEnd, simulator, sleep, startEngine, walSince, walState } from './campaign.ts';

const subscribersPg = Number(process.env.BENCH_SUBSCRIBERS ?? 1_000_000);
const subscribersPglite = Number(process.env.BENCH_PGLITE_SUBSCRIBERS ?? 50_000);
const dncRows = Number(process.env.BENCH_DNC ?? 10_000_000);
const dncSubscribers = Number(process.env.BENCH_DNC_SUBSCRIBERS ?? 200_000);
const paceSeconds = Number(process.env.BENCH_PACE_SECONDS ?? 60);
const eventsSubscribers = Number(process.env.BENCH_EVENTS_SUBSCRIBERS ?? 150_000);
const capsSubscribers = Number(process.env.BENCH_CAPS_SUBSCRIBERS ?? 100_000);

/**
 * The cost of contact caps and legal calling hours (issue 16: ≤ 10 %): four campaigns on ONE
 * phonebook, so each number has one more attempt in its history at each round, in the order
 * off, on, on, off. On: the owner's caps count every number's attempts (7 in 7 days, 10 a day),
 * look for its last conversation (a quiet period of a day) and read its calling hours
 * (00:00–24:00) in each contact's zone — the gate's whole statement runs at each claim and holds
 * nobody: before each round the earlier rounds' calls are moved two days back, so the attempts
 * window still counts them but neither the daily cap nor the quiet period holds the number (a
 * quiet period over them would hold the answered numbers, and the campaign would not end).
 */
async function capsCost(db: Database, f: Fixture, server: Server): Promise<void> {
  const book = await phonebook(db, f, '747', capsSubscribers);
  const seconds: Record<'off' | 'on', number[]> = { off: [], on: [] };
  for (const [round, mode] of (['off', 'on', 'on', 'off'] as const).entries()) {
    await db.db.execute(
      mode === 'on'
        ? sql`update users set contact_caps = '{"attempts": 7, "window_days": 7, "quiet_days": 1, "daily": 10}', calling_hours = '{"start": "00:00", "end": "24:00"}' where id = ${f.userId}`
        : sql`update users set contact_caps = null, calling_hours = null where id = ${f.userId}`,
    );
    // The earlier rounds' calls two days back (untimed): counted by the window, past the quiet period and the day.
    await db.db.execute(sql`update callrequests set call_time = call_time - interval '2 days'
      where campaign_id in (select id from campaigns where name like 'benchcaps%') and call_time > now() - interval '1 day'`);
    await db.db.execute(sql`analyze callrequests`);
    const id = await campaign(db, f, book, `benchcaps${round}`, 10_000_000);
    await patchStatus(server, id, 1);
    const run = await runToEnd(server, id, capsSubscribers, db);
    await check(db, f, id, capsSubscribers);
    seconds[mode].push(run.seconds);
    console.log(`PostgreSQL: ${fmt(capsSubscribers)} calls with contact caps and calling hours ${mode} (round ${round + 1}): ${fmt(capsSubscribers / run.seconds)} calls/s`);
  }
  await db.db.execute(sql`update users set contact_caps = null, calling_hours = null where id = ${f.userId}`);
  const rate = (mode: 'off' | 'on') => (2 * capsSubscribers) / (seconds[mode][0] + seconds[mode][1]);
  console.log(
    `PostgreSQL: contact caps and calling hours cost ${fmt((1 - rate('on') / rate('off')) * 100, 1)} % of the calls/s ` +
      `(${fmt(rate('on'))} with them, ${fmt(rate('off'))} without; target ≤ 10 %)`,
  );
}

/** The baseline of the spool: the same rows, raw INSERT … SELECT into a table like subscribers. */
async function spoolBaseline(db: Database, book: number): Promise<number> {
  await db.db.execute(sql`create table bench_scratch (like subscribers including defaults including indexes)`);
  const started = Date.now();
  await db.db.execute(sql`insert into bench_scratch (campaign_id, contact_id, duplicate_contact, phone_key, full_name, additional_vars)
    select 0, c.id, c.contact, c.phone_key, c.full_name, c.additional_vars from contacts c where c.phonebook_id = ${book}`);
  const seconds = (Date.now() - started) / 1000;
  await db.db.execute(sql`drop table bench_scratch`);
  return seconds;
}

/** The starts of the paced campaign in 10-second windows from its first call. */
async function paceWindows(db: Database, id: number): Promise<number[]> {
  const rows = await queryRows<{ w: number; n: number }>(
    db.db,
    sql`with first as (select min(call_time) as t0 from callrequests where campaign_id = ${id})
        select floor(extract(epoch from (r.call_time - first.t0)) / 10)::int as w, count(*)::int as n
        from callrequests r, first where r.campaign_id = ${id} group by 1 order by 1`,
  );
  return rows.filter((r) => r.w < paceSeconds / 10).map((r) => r.n);
}

function rssLine(name: string, proc: Worker | Server, startMb: number, during: string): void {
  const peak = proc.peakRssMb();
  console.log(`${name}: engine RSS at start ${fmt(startMb)} MB, peak ${fmt(peak)} MB during ${during} (target ≤ 300 MB, flat)`);
}

async function postgres(backend: Backend): Promise<void> {
  const n = subscribersPg;
  const db = await openDatabase({ url: backend.env.DATABASE_URL });
  const f = await fixture(db);
  const book = await phonebook(db, f, '203', n);
  const main = await campaign(db, f, book, 'benchmain', 10_000_000);
  await db.db.execute(sql`vacuum analyze contacts`);
  // Each timed write starts with no checkpoint due from the one before (the contacts' WAL, then
  // the baseline's half gigabyte), so neither pays for the other's flush.
  await db.db.execute(sql`checkpoint`);
  const baseline = await spoolBaseline(db, book);
  const server = await startServer(backend, 'bench-admin-password');
  // BENCH_PROFILE=<dir>: the engine writes a CPU profile there (node --cpu-prof) when it stops.
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  let engine = await startEngine(backend, db, 'on', profile);
  try {
    const rssStart = engine.rssMb();
    engine.resetPeak();
    await db.db.execute(sql`checkpoint`);
    const before = await walState(db);
    const spool = await patchStatus(server, main, 1);
    const wal = await walSince(db, before);
    console.log(
      `PostgreSQL: spool of ${fmt(n)} subscribers ${fmt(spool, 1)} s (target ≤ 10 s); baseline raw INSERT … SELECT ${fmt(baseline, 1)} s; ` +
        `the spool wrote ${fmt(wal.mb)} MB of WAL, ${wal.checkpoints} checkpoint(s) during it`,
    );
    const run = await runToEnd(server, main, n, db);
    await check(db, f, main, n);
    console.log(
      `PostgreSQL: ${fmt(n)} calls recorded in ${fmt(run.seconds, 1)} s (${fmt(run.overall)} calls/s overall, ` +
        (run.sustained === undefined ? 'too short a campaign for the sustained rate' : `${fmt(run.sustained)} calls/s sustained between 10 % and 90 %`) +
        '; target ≥ 2,000)',
    );
    rssLine('PostgreSQL', engine, rssStart, `${fmt(n)} calls`);

    if (eventsSubscribers > 0) {
      // The cost of the event log (issue 14: ≤ 10 %): the same campaign with the log turned off
      // (dialer.events = 'off' in the engine's sessions: no event built or stored) and on, in the
      // order off, on, on, off so that neither side has the fresher tables; a new engine each.
      const seconds: Record<'off' | 'on', number[]> = { off: [], on: [] };
      for (const [round, mode] of (['off', 'on', 'on', 'off'] as const).entries()) {
        await engine.stop();
        engine = await startEngine(backend, db, mode, profile);
        const book = await phonebook(db, f, `6${round}0`, eventsSubscribers);
        const id = await campaign(db, f, book, `benchevents${round}`, 10_000_000);
        await patchStatus(server, id, 1);
        const run = await runToEnd(server, id, eventsSubscribers, db);
        await check(db, f, id, eventsSubscribers);
        seconds[mode].push(run.seconds);
        console.log(`PostgreSQL: ${fmt(eventsSubscribers)} calls with the event log ${mode}: ${fmt(eventsSubscribers / run.seconds)} calls/s`);
      }
      // The parts after this one run with the log on, as an operator's engine does.
      await engine.stop();
      engine = await startEngine(backend, db, 'on', profile);
      const rate = (mode: 'off' | 'on') => (2 * eventsSubscribers) / (seconds[mode][0] + seconds[mode][1]);
      const [events] = await queryRows<{ n: number }>(db.db, sql`select count(*)::int as n from events where type in ('call.completed', 'subscriber.final')`);
      console.log(
        `PostgreSQL: the event log costs ${fmt((1 - rate('on') / rate('off')) * 100, 1)} % of the calls/s ` +
          `(${fmt(rate('on'))} with it, ${fmt(rate('off'))} without; target ≤ 10 %); ${fmt(events.n)} call and subscriber events written in all`,
      );
    }

    if (capsSubscribers > 0) await capsCost(db, f, server);

    if (dncRows > 0 && dncSubscribers > 0) {
      const dncBook = await phonebook(db, f, '475', dncSubscribers);
      const before = await campaign(db, f, dncBook, 'benchnodnc', 10_000_000);
      await patchStatus(server, before, 1);
      const a = await runToEnd(server, before, dncSubscribers, db);
      console.log(`PostgreSQL: ${fmt(dncSubscribers)} calls without a DNC list: ${fmt(a.seconds, 1)} s (${fmt(dncSubscribers / a.seconds)} calls/s)`);
      const loadStarted = Date.now();
      const list = await one<{ id: number }>(db, sql`insert into dnc_lists (name, user_id, is_global) values ('bench', ${f.userId}, true) returning id`);
      // Numbers of the same shape as the campaign's, none of them on it (the lookups all miss).
      await db.db.execute(sql`insert into dnc_contacts (dnc_id, phone_number, phone_key)
        select ${list.id}, '+1' || (3000000000::bigint + g)::text, '1' || (3000000000::bigint + g)::text from generate_series(1, ${dncRows}) g`);
      const load = (Date.now() - loadStarted) / 1000;
      // The load's upkeep is done now, not during the run it is compared by: VACUUM (else
      // autovacuum, woken by ten million inserts, scans the list during that run) and the
      // flush of its gigabyte of dirty pages.
      await db.db.execute(sql`vacuum analyze dnc_contacts`);
      await db.db.execute(sql`checkpoint`);
      const after = await campaign(db, f, dncBook, 'benchdnc', 10_000_000);
      await patchStatus(server, after, 1);
      const b = await runToEnd(server, after, dncSubscribers, db);
      await check(db, f, after, dncSubscribers);
      const slowdown = (b.seconds / a.seconds - 1) * 100;
      console.log(
        `PostgreSQL: ${fmt(dncSubscribers)} calls ${fmt(dncSubscribers / a.seconds)} calls/s without DNC, ${fmt(dncSubscribers / b.seconds)} calls/s ` +
          `with ${fmt(dncRows)} DNC numbers (loaded in ${fmt(load, 1)} s): slowdown ${fmt(slowdown, 1)} % (target ≤ 10 %)`,
      );
    }

    if (paceSeconds > 0) {
      const paceBook = await phonebook(db, f, '860', paceSeconds * 10 + 200);
      const paced = await campaign(db, f, paceBook, 'benchpace', 600);
      await patchStatus(server, paced, 1);
      await sleep(paceSeconds * 1000 + 2000);
      await patchStatus(server, paced, 4);
      const windows = await paceWindows(db, paced);
      const worst = Math.max(...windows.map((w) => Math.abs(w - 100)));
      console.log(`PostgreSQL: pacing at frequency 600 over ${paceSeconds} s, starts per 10 s window: ${windows.join(', ')} (worst ±${worst} %, target ±5 %)`);
    }
    rssLine('PostgreSQL', engine, rssStart, 'the whole run (main, DNC and pacing campaigns)');
  } finally {
    await engine.stop();
    await server.stop();
    await db.close();
  }
}

async function pglite(backend: Backend): Promise<void> {
  const n = subscribersPglite;
  let db = await openDatabase({ dataDir: backend.env.DATA_DIR });
  const f = await fixture(db);
  const book = await phonebook(db, f, '203', n);
  const main = await campaign(db, f, book, 'benchmain', 10_000_000);
  const baseline = await spoolBaseline(db, book);
  await db.close();
  // One process per PGlite database: the API and the engine together.
  const server = await startServer(backend, 'bench-admin-password', {}, 'all');
  try {
    const rssStart = server.rssMb();
    server.resetPeak();
    const spool = await patchStatus(server, main, 1);
    console.log(`PGlite: spool of ${fmt(n)} subscribers ${fmt(spool, 1)} s; baseline raw INSERT … SELECT ${fmt(baseline, 1)} s`);
    const run = await runToEnd(server, main, n);
    console.log(`PGlite: ${fmt(n)} calls recorded in ${fmt(run.seconds, 1)} s (${fmt(run.overall)} calls/s overall; target ≥ 300)`);
    rssLine('PGlite (API and engine in one process)', server, rssStart, `${fmt(n)} calls`);
  } finally {
    await server.stop();
  }
  db = await openDatabase({ dataDir: backend.env.DATA_DIR });
  try {
    await check(db, f, main, n);
  } finally {
    await db.close();
  }
}

async function main(): Promise<void> {
  console.log(
    `bench:engine — PostgreSQL ${fmt(subscribersPg)} subscribers, PGlite ${fmt(subscribersPglite)}; simulator ${JSON.stringify(simulator)}; node ${process.version}`,
  );
  for (const backend of await backends('engine')) {
    try {
      cli(['user', 'create', '--username', 'bench', '--password', password], backend.env);
      await (backend.name === 'PostgreSQL' ? postgres(backend) : pglite(backend));
    } finally {
      await backend.cleanup();
    }
  }
}

await main();
