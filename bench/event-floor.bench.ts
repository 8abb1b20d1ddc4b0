/**
 * npm run bench:event-floor — what delivering the event log costs a server at the least, on this
 * machine, against what our deliverer spends on the same events (issue 14 §6: why the engine's
 * unpaced ceiling, with the log read, stays more than 10 % lower on two cores).
 *
 * BENCH_FLOOR_EVENTS (default 400,000: what a 200,000-call campaign of bench:events writes)
 * events, half `call.completed` and half `subscriber.final` in the engine's own shapes, in the
 * `events` table of a new PostgreSQL database, in transactions of 500 that share a time as the
 * engine's do. Then, CPU of this one process and of this machine's PostgreSQL processes (from
 * /proc, as bench:events counts them), each read twice (the first warms it; the second is printed):
 * - ours: the server's work for a webhook (batch_size 100) and a stream, without their HTTP —
 *   readLog in windows of 1,000 (what the tail reads), each window's deliveries as JSON arrays
 *   (eventArray) and signed (sign), the window as Server-Sent Events (eventMessages);
 * - the floor, what any reader pays whatever its code: the same rows read with `pg` itself (array
 *   rows, every value left as text: no parsing at all), the same bytes signed with HMAC-SHA256,
 *   and written twice (a webhook and a stream) to a loopback TCP socket whose other end only reads.
 * Prints each in µs an event, PostgreSQL's part apart (how a window is asked for moves work between
 * the server and PostgreSQL: readLog's binary COPY against pg's rows). bench:events prints the server's CPU seconds for a read campaign;
 * divided by its events, it is ours plus HTTP, sockets, timers and the delivery history.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { eventArray, eventMessages, readLog, START } from '../src/campaign/events.ts';
import { openDatabase, queryRows } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { sign } from '../src/webhooks/signature.ts';
import { benchDatabase, fmt, postgresCpuSeconds } from './support.ts';

const count = Number(process.env.BENCH_FLOOR_EVENTS ?? 400_000);
const WINDOW = 1000;
const BATCH = 100;
const BASE = 'http://127.0.0.1:8000';
const SECRET = 'whsec_bench_floor_0123456789abcdef';

/** CPU milliseconds this process spends in `work` (user and system), and PostgreSQL's processes (as bench:events counts them). */
async function cpuMs(work: () => Promise<void>): Promise<{ ms: number; pgMs: number }> {
  const pgBefore = postgresCpuSeconds();
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return { ms: (used.user + used.system) / 1000, pgMs: (postgresCpuSeconds() - pgBefore) * 1000 };
}

/** Twice, the second printed: the first compiles and warms what it runs. */
async function measured(work: () => Promise<void>): Promise<{ ms: number; pgMs: number }> {
  await cpuMs(work);
  return cpuMs(work);
}

async function main(): Promise<void> {
  console.log(`bench:event-floor — PostgreSQL, ${fmt(count)} events; node ${process.version}`);
  const target = await benchDatabase('floor');
  const database = await openDatabase({ url: target.url });
  const raw = new pg.Client({ connectionString: target.url, types: { getTypeParser: () => (value: string) => value } });
  try {
    await migrate(database);
    // The payloads of subscriberFinalEventsSql and insertBilledLegs (links as paths), written out
    // here rather than through them: those write one transaction's events from subscribers and
    // CDRs, and these rows need the engine's transactions (500 events each) without a campaign.
    await queryRows(
      database.db,
      sql`insert into events (txid, type, user_id, campaign_id, data, created)
          select i / 500, t.type, 2, 3, case when t.type = 'call.completed' then json_build_object(
              'callrequest', '/rest-api/callrequest/' || i || '/', 'results', '[]'::json, 'campaign', '/rest-api/campaigns/3/',
              'callid', md5(i::text)::uuid, 'callerid', '', 'phone_number', '+1555' || lpad(i::text, 7, '0'),
              'starting_date', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), 'duration', 0, 'billsec', 0,
              'billed_duration', 0, 'call_cost', '0.00000', 'hangup_cause_q850', 16, 'disposition', 'ANSWER', 'amd_status', 0)
            else json_build_object(
              'subscriber', '/rest-api/subscriber-list/' || i || '/', 'campaign', '/rest-api/campaigns/3/', 'kind', 'voice',
              'id', i, 'phone_number', '+1555' || lpad(i::text, 7, '0'), 'status', 8, 'reason', 'completed') end,
            now() - make_interval(secs => ((${count})::int / 500 - i / 500) / 25.0)
          from generate_series(1, ${count}) i
          cross join lateral (select case when i % 2 = 0 then 'call.completed' else 'subscriber.final' end as type) t`,
    );
    await database.exec('vacuum analyze events');
    await raw.connect();

    let bytes = 0;
    const bodies: Buffer[] = [];
    const ours = await measured(async () => {
      bytes = 0;
      bodies.length = 0;
      for (let after = START, more = true; more; ) {
        const read = await readLog(database.db, after, {}, WINDOW);
        for (let i = 0; i < read.events.length; i += BATCH) {
          const body = eventArray(read.events.slice(i, i + BATCH), BASE);
          sign(SECRET, body);
          bytes += body.length;
          bodies.push(body);
        }
        eventMessages(read.events, BASE);
        after = read.end;
        more = read.full;
      }
    });

    const read = await measured(async () => {
      for (let after = ['0', '0'], more = true; more; ) {
        const result = await raw.query({
          text: `select id, txid, type, user_id, campaign_id, data::text as data, created from events
                 where (txid, id) > ($1::bigint, $2::bigint) order by txid, id limit ${WINDOW}`,
          values: after,
          rowMode: 'array',
        });
        more = result.rows.length === WINDOW;
        const last = result.rows.at(-1) as string[] | undefined;
        if (last) after = [last[1], last[0]];
      }
    });
    const signing = await measured(async () => void bodies.forEach((body) => sign(SECRET, body)));
    const writing = await measured(() => writeTwice(bodies));

    const per = (ms: number) => fmt((1000 * ms) / count, 2);
    const floor = read.ms + signing.ms + writing.ms;
    console.log(`events: ${fmt(count)}, ${fmt(bytes / count)} bytes each as a webhook sends them`);
    console.log(`ours (read, rendered for a webhook and a stream, signed; no HTTP): ${per(ours.ms)} µs an event, and PostgreSQL ${per(ours.pgMs)} µs`);
    console.log(
      `the floor: ${per(floor)} µs an event — rows read by pg, nothing parsed ${per(read.ms)}, signed ${per(signing.ms)}, written to two loopback sockets ${per(writing.ms)}; and PostgreSQL ${per(read.pgMs)} µs`,
    );
    console.log(`ours against the floor: ${fmt(ours.ms / floor, 1)}×; with PostgreSQL's part, ${fmt((ours.ms + ours.pgMs) / (floor + read.pgMs), 1)}×`);
  } finally {
    await raw.end().catch(() => undefined);
    await database.close();
    await target.drop();
  }
}

/** Writes every body to a loopback TCP socket twice (a webhook's and a stream's bytes), to a process that only reads them. */
async function writeTwice(bodies: Buffer[]): Promise<void> {
  const sink = spawn(process.execPath, ['-e', "const s=require('net').createServer(c=>c.resume().on('end',()=>process.exit(0))).listen(0,'127.0.0.1',()=>console.log(s.address().port))"], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => sink.once('exit', resolve));
  const port = await new Promise<number>((resolve) => sink.stdout.once('data', (d: Buffer) => resolve(Number(d.toString()))));
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  for (let pass = 0; pass < 2; pass++) {
    for (const body of bodies) if (!socket.write(body)) await new Promise((resolve) => socket.once('drain', resolve));
  }
  socket.end();
  await exited; // the sink has read every byte
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
