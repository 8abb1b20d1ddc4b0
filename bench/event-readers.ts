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
 * It sends { url } (the receiver's) when ready, and { report } when asked.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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
 * Each event's id and created, read from the head every event's JSON starts with. The integrator
 * does not parse every payload: it runs on the engine's two cores here (on a deployment, on its
 * own machines) and whatever CPU it spends the engine loses; every 100th body is parsed whole and
 * must agree, so a malformed one still fails the bench.
 */
const HEAD = /\{"id":"(evt_[0-9a-z]+)","type":"[^"]*","created":"([^"]+)"/g;
function eventsIn(text: string): Event[] {
  const found = Array.from(text.matchAll(HEAD), (m) => ({ id: m[1], created: m[2] }));
  return checked(found, () => {
    const parsed = JSON.parse(text) as Event | Event[];
    return Array.isArray(parsed) ? parsed : [parsed];
  });
}

/** Every 100th read (bodies and stream blocks alike): `found` must be what parsing the whole gives. */
let reads = 0;
function checked(found: Event[], parse: () => Event[]): Event[] {
  if (reads++ % 100 !== 0) return found;
  const whole = parse().map((e) => ({ id: e.id, created: e.created }));
  if (JSON.stringify(whole) !== JSON.stringify(found)) throw new Error(`the integrator read ${JSON.stringify(found)} where parsing the whole gives ${JSON.stringify(whole)}`);
  return found;
}

/**
 * The events of whole Server-Sent Events messages (`text` ends with a blank line): each an id, its
 * type and its JSON, whose head must agree with them. Comments (heartbeats) are skipped. Every
 * 100th block is parsed whole and must agree too.
 */
const MESSAGE = /^id: (evt_[0-9a-z]+)\nevent: ([a-z_.]+)\ndata: \{"id":"\1","type":"\2","created":"([^"]+)"[^\n]*\n\n/gm;
function messagesIn(text: string): Event[] {
  const found = Array.from(text.matchAll(MESSAGE), (m) => ({ id: m[1], created: m[3] }));
  const messages = text.split('\n\n').filter((m) => m !== '' && !m.startsWith(':'));
  if (messages.length !== found.length) throw new Error(`the integrator read ${found.length} events from ${messages.length} messages: ${text.slice(0, 300)}`);
  return checked(found, () => messages.map((m) => JSON.parse(m.slice(m.indexOf('\ndata: ') + 7)) as Event));
}

class Tally {
  readonly seen = new Set<string>();
  readonly lags: number[] = [];
  duplicates = 0;
  first = 0;
  last = 0;

  /** The last `created` parsed, and its time: the events of one transaction share it. */
  private created = '';
  private createdMs = 0;

  take(event: Event): void {
    const now = Date.now();
    if (this.seen.has(event.id)) {
      this.duplicates++;
      return;
    }
    this.seen.add(event.id);
    if (event.created !== this.created) this.createdMs = Date.parse((this.created = event.created));
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
    for (const event of eventsIn(body.toString('latin1'))) hook.take(event);
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
    let pending = '';
    res.on('data', (chunk: Buffer) => {
      // Latin-1: a character a byte, so a chunk never ends inside one; what is read (ids, times) is ASCII.
      const text = pending + chunk.toString('latin1');
      const end = text.lastIndexOf('\n\n');
      if (end < 0) {
        pending = text;
        return;
      }
      pending = text.slice(end + 2);
      for (const event of messagesIn(text.slice(0, end + 2))) live.take(event);
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
    process.disconnect();
  }
});

receiver.listen(0, '127.0.0.1', () => {
  const { port } = receiver.address() as AddressInfo;
  process.send?.({ url: `http://127.0.0.1:${port}/hook` });
});
