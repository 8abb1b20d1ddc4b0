/**
 * bench:events' integrator, in a process of its own (forked by events.bench.ts, which lowers its
 * priority): a loopback webhook receiver that checks every signature, and a live stream (SSE)
 * client. On a real deployment they run on the integrator's machines; here they share the two
 * cores with the engine, the server and PostgreSQL, and at the lowest priority they take only
 * what those leave, so the engine's figure is the dialer's own cost of delivering. Their CPU is
 * still printed with the rest.
 *
 * Messages from the parent: { reset: true } to start counting again (a new campaign, a new
 * webhook), { secret } once the webhook is made, { stream: { url, auth, count } }
 * to open `count` streams (their report is the slowest's), { endStream: true }, { report: true }
 * to get what each reader got (Report), { close: true }.
 * It sends { url, sink } (the receiver's URL; the port of a sink that only reads what is written
 * to it, for BENCH_READERS=floor) when ready, and { report } when asked.
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { ID_PREFIX, ROW_WIDTH, TXID_WIDTH } from '../src/campaign/events.ts';
import { verify } from '../src/webhooks/signature.ts';

/** What a reader got: each event once, its lag (receipt − the event's `created`). */
export interface ReaderReport {
  seen: number;
  duplicates: number;
  first: number;
  last: number;
  p50: number;
  p99: number;
}

export interface Report {
  hook: ReaderReport;
  live: ReaderReport;
  badSignatures: number;
  deliveries: number;
}

type Event = { id: string; created: string };

/**
 * The integrator reads bytes, not text. It runs on the engine's two cores here (on a deployment,
 * on its own machines), so whatever CPU it spends the engine loses: an event costs it a few
 * indexOf calls and comparisons over the bytes, a number for its id and, once per transaction, a
 * parsed time; no body, chunk or event becomes a string. Every 100th read is parsed whole and must
 * agree, so a malformed one still fails the bench.
 */
const QUOTE = 34;
const NEWLINE = 10;
const COLON = 58;
/** How each event's JSON starts (the server writes its head in this order, without spaces). */
const HEAD = Buffer.from(`{"id":"${ID_PREFIX}`);
/** Where the id (with its prefix) starts after HEAD's start. */
const ID_AT = HEAD.length - ID_PREFIX.length;
const TYPE = Buffer.from('","type":"');
const CREATED = Buffer.from('","created":"');
const ID_LINE = Buffer.from(`id: ${ID_PREFIX}`);
const EVENT_LINE = Buffer.from('\nevent: ');
const DATA_LINE = Buffer.from('\ndata: ');
const BLANK = Buffer.from('\n\n');
/** An event id after its prefix: base-36 digits of its transaction, then of its row (events.ts). */
const ID_DIGITS = TXID_WIDTH + ROW_WIDTH;

/** The row id in an event id's last base-36 digits (unique per event), read from the bytes (cursorOf, without a string). */
function rowOf(bytes: Buffer, digitsEnd: number): number {
  let n = 0;
  for (let i = digitsEnd - ROW_WIDTH; i < digitsEnd; i++) {
    const c = bytes[i];
    n = n * 36 + (c <= 57 ? c - 48 : c - 87);
  }
  return n;
}

/** Where one event's head was read: its id's digits end at `idEnd`, its `created` is [created, createdEnd). */
interface Head {
  idEnd: number;
  created: number;
  createdEnd: number;
}

/** The head of the event whose JSON starts at `at` (after its id, its type must be `type` when given). */
function headAt(bytes: Buffer, at: number, type?: [number, number]): Head {
  const idEnd = at + HEAD.length + ID_DIGITS;
  if (bytes.compare(TYPE, 0, TYPE.length, idEnd, idEnd + TYPE.length) !== 0) throw malformed(bytes, at);
  const typeAt = idEnd + TYPE.length;
  const typeEnd = bytes.indexOf(QUOTE, typeAt);
  if (type && bytes.compare(bytes, typeAt, typeEnd, type[0], type[1]) !== 0) throw malformed(bytes, at);
  if (bytes.compare(CREATED, 0, CREATED.length, typeEnd, typeEnd + CREATED.length) !== 0) throw malformed(bytes, at);
  const created = typeEnd + CREATED.length;
  return { idEnd, created, createdEnd: bytes.indexOf(QUOTE, created) };
}

const malformed = (bytes: Buffer, at: number) => new Error(`the integrator read a malformed event: ${bytes.toString('utf8', at, at + 300)}`);
const eventOf = (bytes: Buffer, at: number, head: Head): Event => ({
  id: bytes.toString('latin1', at + ID_AT, head.idEnd),
  created: bytes.toString('latin1', head.created, head.createdEnd),
});

/** A webhook body's events (one, or an array of them), counted into `tally`; returns how many. */
function takeBody(body: Buffer, tally: Tally): number {
  let count = 0;
  const found: Event[] | undefined = reads++ % 100 === 0 ? [] : undefined;
  for (let at = body.indexOf(HEAD); at >= 0; at = body.indexOf(HEAD, at + 1)) {
    const head = headAt(body, at);
    tally.take(rowOf(body, head.idEnd), body, head.created, head.createdEnd);
    found?.push(eventOf(body, at, head));
    count++;
  }
  if (found) {
    const parsed = JSON.parse(body.toString('utf8')) as Event | Event[];
    agree(found, Array.isArray(parsed) ? parsed : [parsed]);
  }
  return count;
}

/**
 * The Server-Sent Events messages of `bytes` up to `end` (where a blank line ends the last one),
 * counted into `tally`: each an id line, a type line and the JSON, whose head must repeat the id
 * and the type. Comments (heartbeats) are skipped; anything else fails the bench.
 */
function takeMessages(bytes: Buffer, end: number, tally: Tally): void {
  const found: Event[] | undefined = reads++ % 100 === 0 ? [] : undefined;
  const whole: Event[] = []; // what parsing each message gives, when found is kept
  for (let at = 0; at < end; ) {
    const blank = bytes.indexOf(BLANK, at);
    // Never so here (`end` follows a blank line); a loop sent back to the start would never end.
    if (blank < 0) throw malformed(bytes, at);
    const next = blank + BLANK.length;
    if (bytes[at] === COLON) {
      at = next; // a comment (a heartbeat)
      continue;
    }
    if (bytes.compare(ID_LINE, 0, ID_LINE.length, at, at + ID_LINE.length) !== 0) throw malformed(bytes, at);
    const idAt = at + ID_LINE.length;
    const typeAt = idAt + ID_DIGITS + EVENT_LINE.length;
    if (bytes.compare(EVENT_LINE, 0, EVENT_LINE.length, idAt + ID_DIGITS, typeAt) !== 0) throw malformed(bytes, at);
    const typeEnd = bytes.indexOf(NEWLINE, typeAt);
    const json = typeEnd + DATA_LINE.length;
    if (bytes.compare(DATA_LINE, 0, DATA_LINE.length, typeEnd, json) !== 0 || bytes.compare(bytes, idAt, idAt + ID_DIGITS, json + HEAD.length, json + HEAD.length + ID_DIGITS) !== 0) {
      throw malformed(bytes, at);
    }
    const head = headAt(bytes, json, [typeAt, typeEnd]);
    if (bytes.indexOf(NEWLINE, head.createdEnd) !== next - BLANK.length) throw malformed(bytes, at);
    tally.take(rowOf(bytes, head.idEnd), bytes, head.created, head.createdEnd);
    if (found) {
      found.push(eventOf(bytes, json, head));
      whole.push(JSON.parse(bytes.toString('utf8', json, next - BLANK.length)) as Event);
    }
    at = next;
  }
  if (found) agree(found, whole);
}

/** Every 100th read (bodies and stream blocks alike) is parsed whole too: what was read from the bytes must be what parsing gives. */
let reads = 0;
function agree(found: Event[], parsed: Event[]): void {
  const whole = parsed.map((e) => ({ id: e.id, created: e.created }));
  if (JSON.stringify(whole) !== JSON.stringify(found)) throw new Error(`the integrator read ${JSON.stringify(found)} where parsing the whole gives ${JSON.stringify(whole)}`);
}

class Tally {
  /** Each event's row id: unique per event. */
  readonly seen = new Set<number>();
  readonly lags: number[] = [];
  duplicates = 0;
  first = 0;
  last = 0;

  /** The last `created` parsed, its bytes and its time: the events of one transaction share it. */
  private created = Buffer.alloc(0);
  private createdMs = 0;

  /** Event `row`, whose `created` is bytes[from, to). */
  take(row: number, bytes: Buffer, from: number, to: number): void {
    const now = Date.now();
    if (this.seen.has(row)) {
      this.duplicates++;
      return;
    }
    this.seen.add(row);
    if (this.created.compare(bytes, from, to) !== 0) {
      this.created = Buffer.from(bytes.subarray(from, to));
      this.createdMs = Date.parse(this.created.toString('latin1'));
    }
    this.lags.push(now - this.createdMs);
    if (!this.first) this.first = now;
    this.last = now;
  }

  report(): ReaderReport {
    const sorted = [...this.lags].sort((a, b) => a - b);
    const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
    return { seen: this.seen.size, duplicates: this.duplicates, first: this.first, last: this.last, p50: at(50), p99: at(99) };
  }
}

let hook = new Tally();
const lives: Tally[] = [];
let secret = '';
let badSignatures = 0;
let deliveries = 0;

/** Answers 200 at once to each correctly signed delivery (an event, or an array of them). */
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    if (!verify(secret, body, String(req.headers['dialer-signature'] ?? ''))) {
      badSignatures++;
      res.writeHead(400).end();
      return;
    }
    const count = takeBody(body, hook);
    const said = req.headers['dialer-event-count'];
    if (said !== undefined && Number(said) !== count) throw new Error(`a delivery of ${said} events held ${count}`);
    deliveries++;
    res.writeHead(200).end();
  });
});
receiver.keepAliveTimeout = 60_000;

const closers: (() => void)[] = [];

/** What the streams got: the slowest's count and lags (each stream is tallied on its own). */
function liveReport(): ReaderReport {
  const all = lives.map((t) => t.report());
  if (all.length === 0) return new Tally().report();
  return {
    seen: Math.min(...all.map((r) => r.seen)),
    duplicates: all.reduce((n, r) => n + r.duplicates, 0),
    first: Math.min(...all.map((r) => r.first)),
    last: Math.max(...all.map((r) => r.last)),
    p50: Math.max(...all.map((r) => r.p50)),
    p99: Math.max(...all.map((r) => r.p99)),
  };
}

/** Reads /rest-api/events/ from now on. */
function openStream(url: string, auth: string): void {
  const live = new Tally();
  lives.push(live);
  const req = http.get(url, { headers: { authorization: auth, accept: 'text/event-stream' } }, (res) => {
    let pending: Buffer | undefined;
    res.on('data', (chunk: Buffer) => {
      const bytes = pending ? Buffer.concat([pending, chunk]) : chunk;
      const end = bytes.lastIndexOf(BLANK);
      if (end < 0) {
        pending = bytes;
        return;
      }
      // What follows the last blank line is the start of a message still coming.
      pending = end + BLANK.length < bytes.length ? bytes.subarray(end + BLANK.length) : undefined;
      takeMessages(bytes, end + BLANK.length, live);
    });
  });
  req.on('error', () => undefined);
  closers.push(() => req.destroy());
}

type Message = { reset?: true; secret?: string; stream?: { url: string; auth: string; count: number }; endStream?: true; report?: true; close?: true };
const closeStreams = () => closers.splice(0).forEach((close) => close());

process.on('message', (message: Message) => {
  if (message.reset) {
    closeStreams();
    hook = new Tally();
    lives.length = 0;
    deliveries = 0;
  }
  if (message.secret !== undefined) secret = message.secret;
  if (message.stream) for (let i = 0; i < message.stream.count; i++) openStream(message.stream.url, message.stream.auth);
  if (message.endStream) closeStreams();
  if (message.report) process.send?.({ report: { hook: hook.report(), live: liveReport(), badSignatures, deliveries } satisfies Report });
  if (message.close) {
    closeStreams();
    receiver.close();
    sink.close();
    process.disconnect();
  }
});

/** The floor reader's (bench/floor-reader.ts) other end: reads every byte, looks at none. */
const sink = net.createServer((socket) => socket.resume());

receiver.listen(0, '127.0.0.1', () => {
  const { port } = receiver.address() as AddressInfo;
  sink.listen(0, '127.0.0.1', () => {
    process.send?.({ url: `http://127.0.0.1:${port}/hook`, sink: (sink.address() as AddressInfo).port });
  });
});
