/**
 * bench:events' floor reader (BENCH_READERS=floor), in a process of its own at the server's
 * priority: the least that any deliverer of the event log pays for a webhook and a stream, run
 * beside the engine in place of ours. It is what bench:event-floor calls the floor, live: woken
 * by the log's LISTEN/NOTIFY (at most every 100 ms, as our streams are), it reads the new rows
 * safe to read (the same query and xmin cut as readLog) with `pg` itself, array rows, every value
 * left as text: nothing parsed, nothing rendered. Each 100 rows' bytes are signed (HMAC-SHA256, a
 * webhook's batch) and written to one loopback socket, the whole window's to another (a stream),
 * whose other end (the integrator's sink) only reads them. No HTTP, no JSON, no delivery history:
 * a deliverer must do at least this much, whatever its code, so if this alone slows the engine by
 * more than the issue allows, no reader of the log can meet it on this machine.
 *
 * Messages from the parent: { start: { url, sink } } (the database, the sink's port), answered
 * { ready: true } once it listens from the log's end; { report: true }, answered { report }
 * (FloorReport); { close: true }.
 */
import net from 'node:net';
import pg from 'pg';
import { SpacedWake } from '../src/campaign/wake-spacing.ts';
import { sign } from '../src/webhooks/signature.ts';

export interface FloorReport {
  seen: number;
  first: number;
  last: number;
}

const WINDOW = 1000;
const BATCH = 100;
const SPACING_MS = 100;
const SECRET = 'whsec_bench_floor_reader_0123456789';

const report: FloorReport = { seen: 0, first: 0, last: 0 };
let client: pg.Client | undefined;
let sockets: net.Socket[] = [];
let after: string[] = ['0', '0'];
let reading = false;
let again = false;

/** Writes `bytes` to `socket`, waiting for it to drain when its buffer is full. */
async function send(socket: net.Socket, bytes: Buffer): Promise<void> {
  if (!socket.write(bytes)) await new Promise((resolve) => socket.once('drain', resolve));
}

/** Reads the log from `after` to its end (safe part), signing and writing every window. */
async function readToEnd(db: pg.Client): Promise<void> {
  for (;;) {
    const result = await db.query({
      text: `select id, txid, type, user_id, campaign_id, data::text as data, created from events
             where (txid, id) > ($1::bigint, $2::bigint)
               and txid < (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint
             order by txid, id limit ${WINDOW}`,
      values: after,
      rowMode: 'array',
    });
    const rows = result.rows as string[][];
    if (rows.length > 0) {
      const lines = rows.map((row) => row.join('\t'));
      for (let i = 0; i < lines.length; i += BATCH) {
        const body = Buffer.from(lines.slice(i, i + BATCH).join('\n'));
        sign(SECRET, body);
        await send(sockets[0], body);
      }
      await send(sockets[1], Buffer.from(lines.join('\n')));
      const last = rows[rows.length - 1];
      after = [last[1], last[0]];
      const now = Date.now();
      if (!report.first) report.first = now;
      report.last = now;
      report.seen += rows.length;
    }
    if (rows.length < WINDOW) return;
  }
}

/** A notification: read now, or when SPACING_MS has passed since the last read (as our streams are woken). */
const spaced = new SpacedWake(SPACING_MS, () => void read());
function wake(): void {
  if (reading) again = true;
  else spaced.wake();
}

async function read(): Promise<void> {
  if (!client) return;
  reading = true;
  again = false;
  try {
    await readToEnd(client);
  } finally {
    reading = false;
  }
  if (again) wake();
}

async function start(url: string, sink: number): Promise<void> {
  sockets = await Promise.all(
    [0, 1].map(
      () =>
        new Promise<net.Socket>((resolve, reject) => {
          const socket = net.connect(sink, '127.0.0.1', () => resolve(socket));
          socket.once('error', reject);
        }),
    ),
  );
  const types = { getTypeParser: () => (value: string) => value };
  client = new pg.Client({ connectionString: url, types });
  await client.connect();
  client.on('notification', wake);
  await client.query('LISTEN events');
  const end = await client.query({
    text: `select txid, id from events where txid < (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint order by txid desc, id desc limit 1`,
    rowMode: 'array',
  });
  const row = end.rows[0] as string[] | undefined;
  after = row ? [row[0], row[1]] : ['0', '0'];
  process.send?.({ ready: true });
}

type Message = { start?: { url: string; sink: number }; report?: true; close?: true };

process.on('message', (message: Message) => {
  if (message.start) void start(message.start.url, message.start.sink);
  if (message.report) process.send?.({ report });
  if (message.close) {
    spaced.cancel();
    sockets.forEach((socket) => socket.end());
    void client?.end().finally(() => process.disconnect());
  }
});
