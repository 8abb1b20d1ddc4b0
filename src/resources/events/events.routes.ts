/**
 * /rest-api/events/ — the event log (issue 14 §3), as every reader sees it: an admin every
 * event, anyone else their own. Not Newfies' calendar `event` (/rest-api/event/).
 *
 * - Default: a live stream, Server-Sent Events (`text/event-stream`). Each event is sent as
 *   `id: <event id>`, `event: <type>`, `data: <JSON>`; a client that reconnects with
 *   `Last-Event-ID` (or `?after=`) gets everything after it, in order, without gaps; without
 *   either it starts from now. A comment line every HEARTBEAT_MS keeps proxies from closing it.
 *   New events wake the stream through LISTEN/NOTIFY (one listener per process, shared); it
 *   reads them from the process's tail of the log (campaign/event-tail.ts), shared with the
 *   other streams and the webhooks.
 * - `?format=json&after=<id>`: a page of the same log for pollers, `{"next": url|null,
 *   "results": [...]}`, oldest first (`limit`, default 100, at most 1000).
 * Filters for both: `types` (comma-separated types or patterns such as `call.*`) and
 * `campaign_id`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { badEventPattern, endOfLog, type EventCursor, type EventFilter, eventMessages, presentEvent, readEvents, START } from '../../campaign/events.ts';
import { cursorOf } from '../../campaign/event-id.ts';
import { tailOf } from '../../campaign/event-tail.ts';
import { LogMotion, SpacedWake } from '../../campaign/wake-spacing.ts';
import type { Database } from '../../db/database.ts';
import type { AppDeps, Api, Resource } from '../../http/api.ts';
import { invalid } from '../../http/errors.ts';
import { API_PREFIX, baseUrl } from '../../http/links.ts';

const tags = ['events'];
const HEARTBEAT_MS = 15_000;
const STREAM_BATCH = 500;
/** Streams read the log at most this often (campaign/wake-spacing.ts). */
const STREAM_WAKE_MS = 100;
/** The hub stops listening this long after its last stream closed (a client reconnecting finds it still listening). */
const IDLE_AFTER_MS = 10_000;

interface Query {
  format?: string;
  after?: string;
  types?: string;
  campaign_id?: string;
  limit?: string;
}

/** The filters and starting point of a request; 400 for any that is malformed. */
function readQuery(request: FastifyRequest): { filter: EventFilter; after: EventCursor | undefined; limit: number } {
  const q = request.query as Query;
  const errors: Record<string, string[]> = {};
  const types = q.types ? q.types.split(',').map((s) => s.trim()).filter(Boolean) : [];
  const bad = badEventPattern(types);
  if (bad !== undefined) errors.types = [`"${bad}" is not an event type or pattern (such as call.*).`];
  let campaignId: number | undefined;
  if (q.campaign_id !== undefined) {
    if (!/^\d{1,10}$/.test(q.campaign_id)) errors.campaign_id = ['A valid integer is required.'];
    else campaignId = Number(q.campaign_id);
  }
  const lastEventId = request.headers['last-event-id'];
  const position = q.after ?? (typeof lastEventId === 'string' && lastEventId !== '' ? lastEventId : undefined);
  let after: EventCursor | undefined;
  if (position !== undefined) {
    after = position === '0' ? START : cursorOf(position);
    if (!after) errors.after = ['Not an event id.'];
  }
  const limit = q.limit === undefined ? 100 : Number(q.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) errors.limit = ['Ensure this value is between 1 and 1000.'];
  if (Object.keys(errors).length) throw invalid(errors);
  const user = request.user;
  return { filter: { userId: user.is_admin ? undefined : user.id, types, campaignId }, after, limit };
}

/**
 * One LISTEN per process for every open stream: a notification wakes them all (at most every
 * STREAM_WAKE_MS). Only while it is needed (a notification wakes the process, ~80 a second while
 * an engine dials, each ~0.3 ms of CPU on a 2-core machine):
 * - while the log moves, the streams read it every STREAM_WAKE_MS on their own, not listening
 *   (LogMotion): the notifications between two reads would wake the process for nothing;
 * - the last stream closed, the hub stops listening after IDLE_AFTER_MS (a client reconnecting
 *   finds it still listening; a console tab opened once used to keep the notifications coming).
 */
class StreamHub {
  /** Each open stream's wake-up, and how to end it. */
  private readonly wakers = new Map<() => void, () => void>();
  private listening: Promise<() => Promise<void>> | undefined;
  private idle: NodeJS.Timeout | undefined;
  /** Set by endAll: a stream that opens after it (its request came in as the server began to close) is ended at once. */
  private ending = false;
  private readonly spaced = new SpacedWake(STREAM_WAKE_MS, () => this.wakeAll());
  private readonly motion: LogMotion;

  constructor(private readonly database: Database) {
    this.motion = new LogMotion(tailOf(database.db), this.spaced);
  }

  async add(wake: () => void, end: () => void): Promise<void> {
    if (this.ending) return end();
    this.wakers.set(wake, end);
    clearTimeout(this.idle);
    this.idle = undefined;
    if (!this.motion.polling) this.listen(true); // polling: a wake-up is due
    await this.listening;
  }

  remove(wake: () => void): void {
    this.wakers.delete(wake);
    if (this.wakers.size > 0 || !this.listening || this.idle) return;
    this.idle = setTimeout(() => {
      this.idle = undefined;
      this.listen(false);
    }, IDLE_AFTER_MS);
    this.idle.unref();
  }

  /** Wakes every stream; reads on its own clock while the log moves, and listens once it is still. */
  private wakeAll(): void {
    const polling = this.motion.look(this.wakers.size > 0);
    if (this.wakers.size === 0) return;
    for (const wake of this.wakers.keys()) wake();
    this.listen(!polling);
    if (polling) this.spaced.wake(); // the next read, STREAM_WAKE_MS from this one
  }

  private listen(on: boolean): void {
    if (on) {
      this.listening ??= this.database.listen('events', {
        notify: () => this.spaced.wake(),
        up: () => this.spaced.wake(), // what committed before the listening began is read then
        down: () => undefined,
      });
      return;
    }
    const listening = this.listening;
    this.listening = undefined;
    void listening?.then((unlisten) => unlisten()).catch(() => undefined);
  }

  /**
   * Ends every open stream: the server is closing, and it waits for every response to end, so
   * one browser tab left open on the console would keep it from ever stopping. Clients
   * reconnect (EventSource does) with Last-Event-ID and miss nothing.
   */
  endAll(): void {
    this.ending = true;
    for (const end of [...this.wakers.values()]) end();
  }

  async close(): Promise<void> {
    clearTimeout(this.idle);
    this.spaced.cancel();
    const unlisten = await this.listening;
    await unlisten?.();
  }
}

async function stream(request: FastifyRequest, reply: FastifyReply, database: Database, hub: StreamHub): Promise<void> {
  const { filter, after } = readQuery(request);
  const base = baseUrl(request);
  let cursor = after ?? (await endOfLog(database.db));
  reply.hijack();
  const out = reply.raw;
  // A client gone while the first read was awaited: its 'close' has been emitted already, so the
  // listeners below would never run, and the heartbeat and the hub's wake-ups would go on for
  // ever (the heartbeat, a timer, even kept a stopped server's process alive).
  if (out.destroyed) return;
  out.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'x-request-id': request.id,
  });
  // HEAD: the headers and nothing more. (A HEAD response has no body, so the stream's writes
  // never sent even its headers, and the client waited for ever: the fuzzer found it.)
  if (request.method === 'HEAD') {
    out.end();
    return;
  }
  out.write(': stream open\n\n');
  let closed = false;
  let busy = false;
  let again = false;
  const send = async () => {
    if (closed) return;
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      do {
        again = false;
        for (;;) {
          // A window of the log at a time, the payloads of only what this client may see and wants.
          const read = await tailOf(database.db).read(cursor, filter, STREAM_BATCH);
          if (closed) break;
          cursor = read.end;
          if (read.events.length) {
            if (!out.write(eventMessages(read.events, base))) await new Promise((resolve) => out.once('drain', resolve));
          }
          if (!read.full) break;
        }
      } while (again && !closed);
    } catch (err) {
      request.log.warn({ err }, 'event stream read failed');
    } finally {
      busy = false;
    }
  };
  const wake = () => void send();
  const heartbeat = setInterval(() => out.write(': heartbeat\n\n'), HEARTBEAT_MS);
  const close = () => {
    closed = true;
    clearInterval(heartbeat);
    hub.remove(wake);
  };
  request.raw.on('close', close);
  out.on('close', close);
  // Ended by the hub (the server closes): nothing is written after the end (a write after it
  // would be an 'error' on the response).
  await hub.add(wake, () => {
    close();
    out.end();
  });
  if (closed) hub.remove(wake); // gone while being added: its close found nothing to remove
  await send();
}

function routes(api: Api, { database }: AppDeps) {
  const hub = new StreamHub(database);
  api.addHook('preClose', async () => hub.endAll());
  api.addHook('onClose', () => hub.close());

  api.get('/events/', { schema: { tags, description: 'Server-Sent Events; ?format=json&after=<id> for a page' } }, async (request, reply) => {
    if ((request.query as Query).format !== 'json') return stream(request, reply, database, hub);
    const { filter, after, limit } = readQuery(request);
    const rows = await readEvents(database.db, after ?? START, filter, limit);
    const base = baseUrl(request);
    const results = rows.map((row) => presentEvent(row, base));
    const last = results[results.length - 1];
    const next = rows.length === limit && last ? nextUrl(request, last.id) : null;
    return { next, results };
  });
}

function nextUrl(request: FastifyRequest, after: string): string {
  const url = new URL(request.url, `${baseUrl(request)}/`);
  url.searchParams.set('after', after);
  return `${baseUrl(request)}${API_PREFIX}/events/?${url.searchParams.toString()}`;
}

// Not in the API root: a stream, not a paged list (the root lists resources whose lists page).
export const eventsResource: Resource = { name: 'events', listed: false, routes };
