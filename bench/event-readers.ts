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
import { ID_PREFIX, ROW_WIDTH, TXID_WIDTH } from '../src/campaign/event-id.ts';
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
 * on its own machines), so whatever CPU it spends the engine loses: an event costs it a search
 * for its end, a few short comparisons over the bytes (loops here: a call into Buffer's native
 * compare or indexOf costs more than the dozen bytes it looks at), a number for its id, a bit
 * for it having been seen and a count in a histogram of lags; once per transaction, a parsed
 * time. No body, chunk or event becomes a string. Every 100th read is parsed whole and must agree,
 * so a malformed one still fails the bench.
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

/** Whether bytes[at…] starts with `expected`. */
function startsWith(bytes: Buffer, at: number, expected: Buffer): boolean {
  if (at + expected.length > bytes.length) return false;
  for (let i = 0; i < expected.length; i++) if (bytes[at + i] !== expected[i]) return false;
  return true;
}

/** Whether bytes[a, a + length) and bytes[b, b + length) are the same bytes. */
function same(bytes: Buffer, a: number, b: number, length: number): boolean {
  if (a + length > bytes.length || b + length > bytes.length) return false;
  for (let i = 0; i < length; i++) if (bytes[a + i] !== bytes[b + i]) return false;
  return true;
}

/** Where the next `byte` is from `at` on (a short way ahead: a type, a time); -1 if none. */
function next(bytes: Buffer, byte: number, at: number): number {
  for (let i = at; i < bytes.length; i++) if (bytes[i] === byte) return i;
  return -1;
}

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
  if (!startsWith(bytes, idEnd, TYPE)) throw malformed(bytes, at);
  const typeAt = idEnd + TYPE.length;
  const typeEnd = next(bytes, QUOTE, typeAt);
  if (typeEnd < 0 || (type && (typeEnd - typeAt !== type[1] - type[0] || !same(bytes, typeAt, type[0], typeEnd - typeAt)))) throw malformed(bytes, at);
  if (!startsWith(bytes, typeEnd, CREATED)) throw malformed(bytes, at);
  const created = typeEnd + CREATED.length;
  const createdEnd = next(bytes, QUOTE, created);
  if (createdEnd < 0) throw malformed(bytes, at);
  return { idEnd, created, createdEnd };
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
  const now = Date.now();
  for (let at = body.indexOf(HEAD); at >= 0; at = body.indexOf(HEAD, at + 1)) {
    const head = headAt(body, at);
    tally.take(rowOf(body, head.idEnd), body, head.created, head.createdEnd, now);
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
  const now = Date.now();
  for (let at = 0; at < end; ) {
    if (bytes[at] === COLON) {
      // A comment (a heartbeat), up to its blank line; never missing here (`end` follows a blank
      // line), and a loop sent back to the start would never end.
      const blank = bytes.indexOf(BLANK, at);
      if (blank < 0) throw malformed(bytes, at);
      at = blank + BLANK.length;
      continue;
    }
    if (!startsWith(bytes, at, ID_LINE)) throw malformed(bytes, at);
    const idAt = at + ID_LINE.length;
    const typeAt = idAt + ID_DIGITS + EVENT_LINE.length;
    if (!startsWith(bytes, idAt + ID_DIGITS, EVENT_LINE)) throw malformed(bytes, at);
    const typeEnd = next(bytes, NEWLINE, typeAt);
    const json = typeEnd + DATA_LINE.length;
    if (typeEnd < 0 || !startsWith(bytes, typeEnd, DATA_LINE) || !startsWith(bytes, json, HEAD) || !same(bytes, idAt, json + HEAD.length, ID_DIGITS)) {
      throw malformed(bytes, at);
    }
    const head = headAt(bytes, json, [typeAt, typeEnd]);
    // The JSON is one line (JSON escapes every newline in its strings), and the blank line ending
    // the message follows it at once: one search over the payload finds both.
    const jsonEnd = bytes.indexOf(NEWLINE, head.createdEnd);
    if (jsonEnd < 0 || bytes[jsonEnd + 1] !== NEWLINE) throw malformed(bytes, at);
    const after = jsonEnd + BLANK.length;
    tally.take(rowOf(bytes, head.idEnd), bytes, head.created, head.createdEnd, now);
    if (found) {
      found.push(eventOf(bytes, json, head));
      whole.push(JSON.parse(bytes.toString('utf8', json, after - BLANK.length)) as Event);
    }
    at = after;
  }
  if (found) agree(found, whole);
}

/** Every 100th read (bodies and stream blocks alike) is parsed whole too: what was read from the bytes must be what parsing gives. */
let reads = 0;
function agree(found: Event[], parsed: Event[]): void {
  const whole = parsed.map((e) => ({ id: e.id, created: e.created }));
  if (JSON.stringify(whole) !== JSON.stringify(found)) throw new Error(`the integrator read ${JSON.stringify(found)} where parsing the whole gives ${JSON.stringify(whole)}`);
}

/** Lags are counted in 1 ms steps up to this (a longer one counts as this long). */
const MAX_LAG_MS = 600_000;

class Tally {
  /**
   * A bit for each event's row id (unique per event), at its place: the bench's database is new,
   * so ids run from 1 to a few million and the bits are a few hundred KB.
   */
  private bits = new Uint8Array(1 << 16);
  seen = 0;
  /** How many events arrived with each lag in ms. */
  private readonly lags = new Uint32Array(MAX_LAG_MS + 1);
  duplicates = 0;
  first = 0;
  last = 0;

  /** The last `created` parsed, its bytes and its time: the events of one transaction share it. */
  private created = Buffer.alloc(0);
  private createdMs = 0;

  /** Event `row`, whose `created` is bytes[from, to), received at `now`. */
  take(row: number, bytes: Buffer, from: number, to: number, now: number): void {
    const byte = row >>> 3;
    const bit = 1 << (row & 7);
    if (byte >= this.bits.length) {
      const grown = new Uint8Array(Math.max(byte + 1, this.bits.length * 2));
      grown.set(this.bits);
      this.bits = grown;
    }
    if (this.bits[byte] & bit) {
      this.duplicates++;
      return;
    }
    this.bits[byte] |= bit;
    this.seen++;
    if (to - from !== this.created.length || !this.sameCreated(bytes, from)) {
      this.created = Buffer.from(bytes.subarray(from, to));
      this.createdMs = Date.parse(this.created.toString('latin1'));
    }
    this.lags[Math.min(MAX_LAG_MS, Math.max(0, now - this.createdMs))]++;
    if (!this.first) this.first = now;
    this.last = now;
  }

  private sameCreated(bytes: Buffer, from: number): boolean {
    for (let i = 0; i < this.created.length; i++) if (bytes[from + i] !== this.created[i]) return false;
    return true;
  }

  /** The lag that p % of the events had at most. */
  private lagAt(p: number): number {
    const rank = Math.min(this.seen - 1, Math.floor((p / 100) * this.seen));
    let counted = 0;
    for (let ms = 0; ms <= MAX_LAG_MS; ms++) {
      counted += this.lags[ms];
      if (counted > rank) return ms;
    }
    return 0;
  }

  report(): ReaderReport {
    return { seen: this.seen, duplicates: this.duplicates, first: this.first, last: this.last, p50: this.lagAt(50), p99: this.lagAt(99) };
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
    const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
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
    /** The start of a message still coming: what followed the last blank line. */
    let pending: Buffer | undefined;
    res.on('data', (chunk: Buffer) => {
      let from = 0;
      if (pending) {
        // The message begun in `pending` ends at the first blank line across the boundary: only
        // it is joined (copied), not the whole chunk.
        const split = pending[pending.length - 1] === NEWLINE && chunk[0] === NEWLINE; // the blank line itself cut in two
        const at = split ? 0 : chunk.indexOf(BLANK);
        if (at < 0) {
          pending = Buffer.concat([pending, chunk]);
          return;
        }
        const blank = split ? 1 : at + BLANK.length;
        const joined = Buffer.concat([pending, chunk.subarray(0, blank)]);
        pending = undefined;
        takeMessages(joined, joined.length, live);
        from = blank;
      }
      const rest = from > 0 ? chunk.subarray(from) : chunk;
      const end = rest.lastIndexOf(BLANK);
      if (end < 0) {
        if (rest.length > 0) pending = rest;
        return;
      }
      if (end + BLANK.length < rest.length) pending = rest.subarray(end + BLANK.length);
      takeMessages(rest, end + BLANK.length, live);
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
