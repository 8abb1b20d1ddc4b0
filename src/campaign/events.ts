/**
 * The event log (issue 14): every state change an integrator may want to hear of is a row in
 * `events`, written in the transaction of the change, so an event exists exactly when its change
 * committed. Webhooks, the live stream and pollers all read it here, in commit order.
 *
 * Commit order: ids come from a sequence, so a transaction that took id 10 may commit after
 * one that took id 11; a reader that had passed 11 would skip 10. Each row therefore keeps the
 * id of its transaction (`txid`), and readers go in (txid, id) order and only below the oldest
 * transaction still running (the snapshot's xmin): every transaction there has ended, so nothing
 * can appear behind a reader's position later.
 *
 * Payloads keep links as paths (`/rest-api/campaigns/3/`); `eventJson` makes them absolute
 * with the base URL of whoever reads them.
 */
import { type SQL, sql } from 'drizzle-orm';
import { copyOutBinary, type Db, queryRows } from '../db/database.ts';
import { events } from '../db/schema.ts';
import { json } from '../db/sql.ts';
import { type EventCursor, eventId, ID_BYTES, putEventId } from './event-id.ts';
import type { CampaignKind } from './kinds.ts';

import { EventType, type EventTypeName, eventTypes } from './event-types.ts';

export { EventType, type EventTypeName, eventTypes };
const typeNamed = new Map(eventTypes.map((type) => [type, type]));

export interface NewEvent {
  type: EventTypeName;
  /** The owner: who may see it (admins see every event). */
  userId: number | null;
  campaignId?: number | null;
  data: Record<string, unknown>;
}

/**
 * Whether this session writes events: always, unless the database turns the log off with
 * `ALTER DATABASE … SET dialer.events = 'off'` (an instance nobody integrates with; the baseline
 * of bench:engine). Every statement that writes events is gated by it (insertEventsSql), so a log
 * turned off costs nothing per event: not even building its payload.
 */
export const EVENTS_ON = 'dialer_events_on()'; // migration 0036: the trigger that wakes the readers asks it too

/**
 * The one way into the log: an INSERT of the rows of `select` (columns type, user_id,
 * campaign_id, data, in that order), in the caller's statement and so in its transaction.
 */
export function insertEventsSql(select: SQL): SQL {
  return sql`insert into events (type, user_id, campaign_id, data) select * from (${select}) e where ${sql.raw(EVENTS_ON)}`;
}

/**
 * The `data` of a campaign event as SQL over a row alias with id, name, status (for statements
 * that write events beside a set-based change, e.g. the engine ending campaigns): the same shape
 * as lifecycle.ts's campaignEvent, plus `extra` (SQL key/value pairs).
 */
export function campaignEventDataSql(resource: 'campaigns' | 'sms-campaigns', kind: 'voice' | 'sms', alias: string, extra: SQL = sql``): SQL {
  const a = sql.identifier(alias);
  return sql`json_build_object('campaign', ${`/rest-api/${resource}/`} || ${a}.id || '/', 'kind', ${kind}::text, 'id', ${a}.id,
    'name', ${a}.name, 'status', ${a}.status ${extra})`;
}

/**
 * sms.sent / sms.delivered / sms.failed events for the messages of `alias` (a CTE returning
 * id, user_id, sms_campaign_id, recipient_number, status, error, sent_too), one statement with
 * the change. A message with `sent_too` gets an sms.sent (status 'sent', no error) before the
 * event of its status.
 */
export function smsMessageEventsSql(alias: string): SQL {
  const a = sql.identifier(alias);
  return insertEventsSql(sql`
    select 'sms.' || e.status, ${a}.user_id, ${a}.sms_campaign_id, json_build_object(
      'message', '/rest-api/sms-message/' || ${a}.id || '/',
      'campaign', case when ${a}.sms_campaign_id is null then null else '/rest-api/sms-campaigns/' || ${a}.sms_campaign_id || '/' end,
      'id', ${a}.id, 'recipient_number', ${a}.recipient_number, 'status', e.status, 'error', e.error)
    from ${a} cross join lateral (values (0, 'sent'::text, ''::text, ${a}.sent_too), (1, ${a}.status::text, ${a}.error::text, true)) as e(n, status, error, wanted)
    where e.wanted and e.status in ('sent', 'delivered', 'failed')
    order by ${a}.id, e.n`);
}

/**
 * subscriber.final events for the rows of `alias` (id, campaign_id, status, reason,
 * duplicate_contact, user_id) that reached a final status, voice or SMS: a statement's CTE writes
 * them beside the change that settles the subscribers. Only voice subscribers have a resource of
 * their own (/subscriber-list/); an SMS one is known by its campaign and number.
 */
export function subscriberFinalEventsSql(kind: Pick<CampaignKind, 'name' | 'resource' | 'subscriberStatuses'>, alias: string): SQL {
  const a = sql.identifier(alias);
  const S = kind.subscriberStatuses;
  const link = kind.name === 'voice' ? sql`'/rest-api/subscriber-list/' || ${a}.id || '/'` : sql`null::text`;
  return insertEventsSql(sql`
    select 'subscriber.final', ${a}.user_id, ${a}.campaign_id, json_build_object(
      'subscriber', ${link}, 'campaign', ${`/rest-api/${kind.resource}/`} || ${a}.campaign_id || '/', 'kind', ${kind.name}::text,
      'id', ${a}.id, 'phone_number', ${a}.duplicate_contact, 'status', ${a}.status, 'reason', ${a}.reason)
    from ${a} where ${a}.status not in (${S.pending}, ${S.in_process}, ${S.pause})`);
}

/**
 * balance.low events for the rows of `alias` (id, username, balance: the new balance, was: the
 * balance before the change, balance_low_threshold): one for each owner whose balance went from
 * at or above the threshold to below it. Written beside every balance change: calls billed,
 * messages billed, payments.
 */
export function balanceLowEventsSql(alias: string): SQL {
  const a = sql.identifier(alias);
  return insertEventsSql(sql`
    select 'balance.low', ${a}.id, null::int, json_build_object('user', '/rest-api/users/' || ${a}.id || '/', 'id', ${a}.id,
      'username', ${a}.username, 'balance', ${a}.balance::text, 'threshold', ${a}.balance_low_threshold::text)
    from ${a} where ${a}.balance < ${a}.balance_low_threshold and ${a}.was >= ${a}.balance_low_threshold`);
}

/** Writes events in one statement, in the caller's transaction. */
export async function appendEvents(db: Db, list: NewEvent[]): Promise<void> {
  if (list.length === 0) return;
  const rows = list.map((e) => ({ type: e.type, user_id: e.userId, campaign_id: e.campaignId ?? null, data: e.data }));
  await db.execute(
    insertEventsSql(sql`select v.type, v.user_id, v.campaign_id, v.data
      from jsonb_to_recordset(${json(rows)}) as v(type text, user_id int, campaign_id int, data json)`),
  );
}

export type { EventCursor };
export const START: EventCursor = { txid: 0, id: 0 };

/** The most events one webhook delivery may carry: a webhook's batch_size (migration 0030 checks it too). */
export const MAX_WEBHOOK_BATCH = 500;

export interface EventRow {
  id: number;
  txid: number;
  type: string;
  user_id: number | null;
  campaign_id: number | null;
  /**
   * The payload's JSON text, as stored, for a row not yet rendered (readLog's rows come rendered). Emptied, with
   * `created`, once the row is rendered (render): its bytes are then in its rendering.
   */
  data: string;
  created: string;
  /** Where its JSON is, once rendered: the rendering of the rows read with it, and its place there. */
  rendering?: Rendering;
  at?: number;
}

export interface EventFilter {
  /** Only this owner's events; undefined: every event (an admin). */
  userId?: number;
  /** Types or patterns (`call.*`, `*`); empty or undefined: every type. */
  types?: readonly string[];
  campaignId?: number;
}

/** Whether `patterns` is a list of known types and `prefix.*` patterns; the first bad one if not. */
export function badEventPattern(patterns: readonly string[]): string | undefined {
  return patterns.find((p) => p !== '*' && !eventTypes.includes(p) && !(p.endsWith('.*') && eventTypes.some((t) => t.startsWith(p.slice(0, -1)))));
}

/** Whether `filter` lets `row` through: every reader's one filter (readLog's, and the tail's for rows in memory). */
export function wantedBy(filter: EventFilter, row: EventRow): boolean {
  if (filter.userId !== undefined && row.user_id !== filter.userId) return false;
  if (filter.campaignId !== undefined && row.campaign_id !== filter.campaignId) return false;
  const patterns = filter.types;
  if (!patterns || patterns.length === 0 || patterns.includes('*')) return true;
  return patterns.some((p) => (p.endsWith('.*') ? row.type.startsWith(p.slice(0, -1)) : row.type === p));
}

/** Rows of the log a read of readEvents walks at a time (at least). */
const LOG_WINDOW = 500;

/** What one read of the log found: the events a reader wants, and how far it read. */
export interface LogRead {
  /** The events of the window that pass the filter, in order. */
  events: EventRow[];
  /** The last row read, wanted or not (`after` if none): where the reader goes on from. */
  end: EventCursor;
  /** Whether the window was full: more may follow at once. */
  full: boolean;
}

/**
 * The next `window` rows of the log after `after`, in commit order, only those already safe to
 * read; the events among them that `filter` lets through. The filter is applied to the rows
 * read, not used to find them: the read always walks (txid, id) in order and stops after
 * `window` rows, so its cost is bounded whatever the filter. (Filtered in its WHERE clause, a
 * reader of one owner's events got a plan that sorted everything after its cursor: on a table
 * without statistics the planner took `user_id = …` for rare, and each read of a webhook keeping
 * up with the engine cost PostgreSQL ~80 ms.)
 *
 * On PostgreSQL the window comes as binary COPY (readWindow): values as bytes, not a string each.
 */
export async function readLog(db: Db, after: EventCursor, filter: EventFilter, window: number): Promise<LogRead> {
  const rows = await readWindow(db, after, window);
  const last = rows.at(-1);
  return {
    events: rows.filter((row) => wantedBy(filter, row)),
    end: last ? { txid: last.txid, id: last.id } : after,
    full: rows.length === window,
  };
}

/** Up to `limit` events after `after` that pass `filter`, in commit order (windows of the log read until found, or its end). */
export async function readEvents(db: Db, after: EventCursor, filter: EventFilter, limit: number): Promise<EventRow[]> {
  const found: EventRow[] = [];
  let at = after;
  for (;;) {
    const read = await readLog(db, at, filter, Math.max(limit, LOG_WINDOW));
    found.push(...read.events.slice(0, limit - found.length));
    if (found.length === limit || !read.full) return found;
    at = read.end;
  }
}

/** An event row as a query returns it: bigints as text, `data` as text (json on PGlite). */
export interface StoredEventRow {
  id: number | string;
  txid: number | string;
  type: string;
  user_id: number | null;
  campaign_id: number | null;
  data: unknown;
  created: string;
}

/**
 * An event row as readers keep it, from a row as a query returns it: a new object with every
 * field it will ever have, so every row has one shape. (Typed in place, the query's own object
 * changed its id and txid from text to numbers and was given its rendering later: each change a
 * new shape, ~0.8 µs a row, the most costly step of reading the log. bench:event-floor.)
 */
export function eventRowOf(r: StoredEventRow): EventRow {
  const row = newRow(Number(r.id), Number(r.txid), typeNamed.get(r.type) ?? r.type, r.user_id, r.campaign_id);
  // Fields it already has: set, they keep its shape.
  row.data = typeof r.data === 'string' ? r.data : JSON.stringify(r.data);
  row.created = r.created;
  return row;
}

/**
 * The next `window` rows after `after` that are safe to read (see readLog), in order, as SQL
 * text: the cursor and the window are integers, written in it (COPY takes no parameters).
 */
function windowSelect(after: EventCursor, window: number): string {
  for (const n of [after.txid, after.id, window]) if (!Number.isSafeInteger(n) || n < 0) throw new Error(`not a position in the event log: ${n}`);
  return `select id, txid, type, user_id, campaign_id, data::text as data, created
      from events
      where (txid, id) > (${after.txid}::bigint, ${after.id}::bigint)
        and txid < (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint
      order by txid, id
      limit ${window}`;
}

/** A window read as binary COPY (binaryWindow): its rows, not yet rendered, each one's time as ISO text, and their payloads back to back. */
interface StoredWindow {
  rows: EventRow[];
  iso: string[];
  /** Row i's payload (UTF-8) is data[dataStarts[i], dataStarts[i + 1]). */
  data: Buffer;
  dataStarts: Int32Array;
}

/**
 * The window after `after` (windowSelect), rendered. On PostgreSQL as binary COPY
 * (binaryWindow): the values come as numbers and bytes, read in one pass, and PostgreSQL only
 * sends its rows. As a query each value was a string (pg's parser, a row a message); asking for
 * the window as one row of joined text spared the server that but doubled PostgreSQL's part
 * (bench:event-floor, three runs each: PostgreSQL 4.1–4.6 µs an event that way, 2.1–2.4 µs this
 * way, the server's the same). On PGlite, in this process, as a query whose rows are rendered as
 * any rows read as text are (eventRowOf, renderRows: a webhook's retries too).
 */
async function readWindow(db: Db, after: EventCursor, window: number): Promise<EventRow[]> {
  const select = windowSelect(after, window);
  const copied = await copyOutBinary(db, select);
  if (!copied) {
    const rows = (await queryRows<StoredEventRow>(db, sql.raw(select))).map(eventRowOf);
    renderRows(rows);
    return rows;
  }
  const read = binaryWindow(copied);
  if (read.rows.length > 0) render(read.rows, read.iso, read.data, read.dataStarts);
  return read.rows;
}

/**
 * A row read from the log, not yet rendered: a new object with every field it will ever have,
 * so every row has one shape (the one place an EventRow is made; the type's one shared string).
 */
function newRow(id: number, txid: number, type: string, userId: number | null, campaignId: number | null): EventRow {
  return { id, txid, type, user_id: userId, campaign_id: campaignId, data: '', created: '', rendering: undefined, at: undefined };
}

/** Times as Date#toISOString writes them; rows of one transaction share a time, made once a run. */
class IsoTimes {
  private ms = Number.NaN;
  private text = '';
  of(ms: number): string {
    if (ms !== this.ms) this.text = new Date((this.ms = ms)).toISOString();
    return this.text;
  }
}

/** PGCOPY\n\377\r\n\0: how binary COPY output starts; then flags and a header extension's length (int32 each). */
const COPY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
/** A timestamptz in binary is microseconds since 2000-01-01 UTC; this is that day in ms since 1970. */
const PG_EPOCH_MS = Date.UTC(2000, 0, 1);
const TWO_32 = 2 ** 32;

/**
 * A window from its binary COPY (copyOutBinary; the format: the COPY page of PostgreSQL's manual):
 * a tuple a row (a field count, then each field's int32 length, -1 for null, and its bytes:
 * id int8, txid int8, type text, user_id int4, campaign_id int4, data text, created
 * timestamptz), then -1. The payloads are copied together, as render wants them.
 */
function binaryWindow(bytes: Buffer): StoredWindow {
  if (bytes.length < COPY_SIGNATURE.length + 8 || !bytes.subarray(0, COPY_SIGNATURE.length).equals(COPY_SIGNATURE)) throw new Error('not binary COPY output');
  let at = COPY_SIGNATURE.length + 8 + bytes.readInt32BE(COPY_SIGNATURE.length + 4);
  const rows: EventRow[] = [];
  const iso: string[] = [];
  const payloads: number[] = []; // each row's payload: where, how long
  const times = new IsoTimes();
  /** The length of the field at `at`, passing it (-1: null). */
  const length = (): number => {
    const n = bytes.readInt32BE(at);
    at += 4;
    return n;
  };
  /** An int8 field (an id: below 2^53), passing it. */
  const int8 = (): number => {
    if (length() !== 8) throw new Error('a window of the event log: an int8 field not of 8 bytes');
    at += 8;
    return bytes.readInt32BE(at - 8) * TWO_32 + bytes.readUInt32BE(at - 4);
  };
  /** An int4 field or null, passing it. */
  const int4 = (): number | null => {
    if (length() < 0) return null;
    at += 4;
    return bytes.readInt32BE(at - 4);
  };
  let type = '';
  let typeName: Buffer = Buffer.alloc(0);
  let size = 0;
  for (let fields = bytes.readInt16BE(at); fields !== -1; fields = bytes.readInt16BE(at)) {
    if (fields !== 7) throw new Error(`a window of the event log: a row of ${fields} fields`);
    at += 2;
    const id = int8();
    const txid = int8();
    const typeLength = length();
    // Rows of a type come in runs: its string is made once a run.
    if (!sameBytes(bytes, at, at + typeLength, typeName)) {
      const name = bytes.toString('latin1', at, at + typeLength);
      type = typeNamed.get(name) ?? name;
      typeName = typeBytes(type).name;
    }
    at += typeLength;
    const userId = int4();
    const campaignId = int4();
    const dataLength = length();
    payloads.push(at, dataLength);
    at += dataLength;
    size += dataLength;
    const microseconds = int8();
    iso.push(times.of(PG_EPOCH_MS + Math.floor(microseconds / 1000)));
    rows.push(newRow(id, txid, type, userId, campaignId));
  }
  const data = Buffer.allocUnsafeSlow(size);
  const dataStarts = new Int32Array(rows.length + 1);
  for (let i = 0; i < rows.length; i++) dataStarts[i + 1] = dataStarts[i] + put(data, dataStarts[i], bytes, payloads[2 * i], payloads[2 * i] + payloads[2 * i + 1]);
  return { rows, iso, data, dataStarts };
}

/** Where the log ends now (the newest event safe to read): a reader that wants only what comes next starts here. */
export async function endOfLog(db: Db): Promise<EventCursor> {
  const [row] = await queryRows<{ txid: string; id: string }>(
    db,
    sql`select txid, id from ${events}
        where txid < (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint
        order by txid desc, id desc limit 1`,
  );
  return row ? { txid: Number(row.txid), id: Number(row.id) } : START;
}

/**
 * The event as every reader sees it, as JSON text: links made absolute with `base` (e.g.
 * http://host:8000). Built from the stored text without parsing it: a webhook or stream sends
 * thousands a second, and parsing and re-serialising each payload was a tenth of their CPU.
 */
export function eventJson(row: EventRow, base: string): string {
  return sentEvent(row, base).json.toString('utf8');
}

/**
 * The event's id and its JSON for `base` (eventJson) as UTF-8, as a webhook delivering one event
 * sends it: a view of its rendering's bytes (render), joined with a base once for all the
 * rows rendered with it. The tail's rows (event-tail.ts) go to every live reader, webhooks with
 * PUBLIC_URL as their base and streams with their request's.
 */
export function sentEvent(row: EventRow, base: string): { readonly id: string; readonly json: Buffer } {
  const { rendering, at } = rendered(row);
  const form = rendering.form('array', base);
  // The array form keeps a comma after each row's JSON.
  return { id: eventId(row), json: form.bytes.subarray(form.starts[at], form.starts[at + 1] - 1) };
}

/** The events as one JSON array for `base` (a webhook's delivery of several), as UTF-8. */
export function eventArray(rows: readonly EventRow[], base: string): Buffer {
  if (rows.length === 0) return Buffer.from('[]');
  // Each row's JSON is followed by a comma: after '[' the rows' bytes, the last comma made ']'.
  const out = copyRuns(rows, base, 'array', 1);
  out[0] = OPEN_BRACKET;
  out[out.length - 1] = CLOSE_BRACKET;
  return out;
}

/**
 * The events as Server-Sent Events messages for `base`, back to back, as UTF-8: for each,
 * `id: <event id>`, `event: <type>`, `data: <its JSON>` and a blank line.
 */
export function eventMessages(rows: readonly EventRow[], base: string): Buffer {
  return copyRuns(rows, base, 'stream', 0);
}

/** Row's rendering and its place there, rendering it (alone) if it was not yet. */
function rendered(row: EventRow): { rendering: Rendering; at: number } {
  if (row.rendering === undefined) renderRows([row]);
  return { rendering: row.rendering as Rendering, at: row.at as number };
}

/**
 * `rows` in `form` for `base`, after `before` bytes left for the caller: each run of rows that
 * lie next to each other in one rendering (a reader that wants every event of a window gets
 * the whole window as one run) is copied in one go, so sending costs nothing per row; a single
 * run with nothing before it is not copied at all (a view of the form's bytes).
 */
function copyRuns(rows: readonly EventRow[], base: string, form: Form, before: number): Buffer {
  renderRows(rows);
  const runs: { form: RenderedForm; from: number; to: number }[] = [];
  let length = before;
  let from: Rendering | undefined;
  let bytes: RenderedForm | undefined;
  for (const row of rows) {
    const { rendering, at } = rendered(row);
    if (rendering !== from) bytes = (from = rendering).form(form, base); // the form looked up once a rendering, not once a row
    const last = runs.at(-1);
    if (last && last.form === bytes && last.to === at) last.to = at + 1;
    else runs.push({ form: bytes as RenderedForm, from: at, to: at + 1 });
  }
  // One run and nothing before it (a stream that wants every row of a window): the form's own bytes.
  if (runs.length === 1 && before === 0) return runs[0].form.bytes.subarray(runs[0].form.starts[runs[0].from], runs[0].form.starts[runs[0].to]);
  for (const run of runs) length += run.form.starts[run.to] - run.form.starts[run.from];
  const out = Buffer.allocUnsafe(length);
  let to = before;
  for (const { form: f, from, to: end } of runs) to += f.bytes.copy(out, to, f.starts[from], f.starts[end]);
  return out;
}

/**
 * Renders the rows not yet rendered, together, from their stored text: as render does for a
 * window of the log, for rows read otherwise (a webhook's deliveries waiting for a retry). Their
 * stored text is let go.
 */
export function renderRows(rows: readonly EventRow[]): void {
  const todo = rows.filter((row) => row.rendering === undefined);
  if (todo.length === 0) return;
  // The rows of one transaction share its time (now()): a run of them rewrites it once.
  let created = '';
  let time = '';
  const iso = new Array<string>(todo.length);
  const starts = new Int32Array(todo.length + 1);
  for (let i = 0; i < todo.length; i++) {
    const row = todo[i];
    if (row.created !== created) time = isoTime((created = row.created));
    iso[i] = time;
    starts[i + 1] = starts[i] + Buffer.byteLength(row.data);
  }
  const data = Buffer.allocUnsafeSlow(starts[todo.length]);
  todo.forEach((row, i) => data.write(row.data, starts[i], 'utf8'));
  render(todo, iso, data, starts);
}

/**
 * Renders rows together: each one's head (`{"id":…,"type":…,"created":…,"data":`, ASCII, written
 * byte by byte: no string a row), its payload (data[dataStarts[i], dataStarts[i + 1]), with
 * links as paths), and where a base goes in the payloads. The rows keep it (rendering, at).
 */
function render(rows: EventRow[], iso: readonly string[], data: Buffer, dataStarts: Int32Array): void {
  const headStarts = new Int32Array(rows.length + 1);
  for (let i = 0; i < rows.length; i++) headStarts[i + 1] = headStarts[i] + HEAD_BYTES + typeBytes(rows[i].type).json.length + iso[i].length;
  const heads = Buffer.allocUnsafeSlow(headStarts[rows.length]);
  let time = '';
  let timeBytes = Buffer.alloc(0);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (iso[i] !== time) timeBytes = Buffer.from((time = iso[i]), 'latin1');
    let to = putEventId(heads, putAll(heads, headStarts[i], HEAD_ID), row);
    to = putAll(heads, to, HEAD_TYPE);
    to = putAll(heads, to, typeBytes(row.type).json);
    to = putAll(heads, to, HEAD_CREATED);
    to = putAll(heads, to, timeBytes);
    putAll(heads, to, HEAD_DATA);
  }
  const cuts = linkCuts(data);
  // Row i's cuts are cuts[cutsFrom[i], cutsFrom[i + 1]): no link spans two rows.
  const cutsFrom = new Int32Array(rows.length + 1);
  for (let i = 0, c = 0; i <= rows.length; i++) {
    while (c < cuts.length && cuts[c] < dataStarts[i]) c++;
    cutsFrom[i] = c;
  }
  const rendering = new Rendering(heads, headStarts, data, dataStarts, cuts, cutsFrom, rows.map((row) => row.type));
  rows.forEach((row, i) => {
    row.rendering = rendering;
    row.at = i;
    row.data = '';
    row.created = '';
  });
}

const ascii = (text: string) => Buffer.from(text, 'latin1');
const HEAD_ID = ascii('{"id":"');
const HEAD_TYPE = ascii('","type":');
const HEAD_CREATED = ascii(',"created":"');
const HEAD_DATA = ascii('","data":');
/** A head's bytes but its type's and its time's. */
const HEAD_BYTES = HEAD_ID.length + ID_BYTES + HEAD_TYPE.length + HEAD_CREATED.length + HEAD_DATA.length;
/** Where the id starts in an event's JSON: after `{"id":"`. */
const ID_AT = HEAD_ID.length;

/** Each type's name and its JSON string, as bytes (a Server-Sent Events message's `event:` line, an event's `type`). */
const typeBytesOf = new Map<string, { name: Buffer; json: Buffer }>();
function typeBytes(type: string): { name: Buffer; json: Buffer } {
  let bytes = typeBytesOf.get(type);
  if (!bytes) typeBytesOf.set(type, (bytes = { name: Buffer.from(type), json: Buffer.from(JSON.stringify(type)) }));
  return bytes;
}

/** Whether bytes[from, end) are `other`'s bytes. */
function sameBytes(bytes: Buffer, from: number, end: number, other: Buffer): boolean {
  if (end - from !== other.length) return false;
  for (let i = 0; i < other.length; i++) if (bytes[from + i] !== other[i]) return false;
  return true;
}

/** Copies all of `source` into `out` at `to`; returns where it ends. */
function putAll(out: Buffer, to: number, source: Buffer): number {
  return to + put(out, to, source, 0, source.length);
}

/**
 * How readers send rows: `array`, each row's JSON followed by a comma (a webhook's delivery, a
 * JSON array, is a run of them); `stream`, each row a Server-Sent Events message.
 */
type Form = 'array' | 'stream';

/** Rows in a form for a base: row i is bytes[starts[i], starts[i + 1]). */
interface RenderedForm {
  base: string;
  form: Form;
  bytes: Buffer;
  starts: Int32Array;
}

/** Forms a rendering keeps: a webhook's and a stream's, for one or two bases, as readers ask all day. */
const FORMS_KEPT = 3;

/**
 * Rows rendered together: their heads in one buffer, their payloads in another, and the forms
 * readers send them in (with links made absolute for their base) for the last few asked. Bytes
 * outside the JS heap, and no object for each row: the tail keeps thousands of rows for up to a
 * second, and a young-generation collection costs what survives it. With a Buffer, an id and
 * arrays for each row, ~900 bytes a row were copied twice: 120 collections of ~15 ms CPU each in
 * a server delivering a 100,000-call campaign.
 */
class Rendering {
  private forms: RenderedForm[] = [];

  constructor(
    /** Row i's head is heads[headStarts[i], headStarts[i + 1]). */
    private readonly heads: Buffer,
    private readonly headStarts: Int32Array,
    /** Row i's payload is data[dataStarts[i], dataStarts[i + 1]). */
    private readonly data: Buffer,
    private readonly dataStarts: Int32Array,
    /** Where a base goes in data (just inside the quote of a link), ascending. */
    private readonly cuts: Int32Array,
    /** Row i's cuts are cuts[cutsFrom[i], cutsFrom[i + 1]). */
    private readonly cutsFrom: Int32Array,
    /** Row i's type (the one shared string for each type). */
    private readonly types: readonly string[],
  ) {}

  /** The rows in `form` with their links made absolute with `base`. */
  form(form: Form, base: string): RenderedForm {
    const kept = this.forms.find((f) => f.base === base && f.form === form);
    if (kept) return kept;
    const made = form === 'array' ? this.array(base) : this.stream(base);
    this.forms = [made, ...this.forms.slice(0, FORMS_KEPT - 1)];
    return made;
  }

  /** Each row's JSON (its head, its payload with `base` in its links, a brace) and a comma after it. */
  private array(base: string): RenderedForm {
    const link = Buffer.from(JSON.stringify(base).slice(1, -1));
    const { heads, headStarts, data, dataStarts, cuts, cutsFrom } = this;
    const rows = this.types.length;
    const out = Buffer.allocUnsafeSlow(heads.length + data.length + cuts.length * link.length + 2 * rows);
    const starts = new Int32Array(rows + 1);
    let to = 0;
    let c = 0;
    for (let i = 0; i < rows; i++) {
      starts[i] = to;
      to += put(out, to, heads, headStarts[i], headStarts[i + 1]);
      let from = dataStarts[i];
      for (; c < cutsFrom[i + 1]; c++) {
        to += put(out, to, data, from, cuts[c]);
        to = putAll(out, to, link);
        from = cuts[c];
      }
      to += put(out, to, data, from, dataStarts[i + 1]);
      out[to++] = CLOSE_BRACE;
      out[to++] = COMMA;
    }
    starts[rows] = to;
    return { base, form: 'array', bytes: out, starts };
  }

  /** Each row as a Server-Sent Events message: `id: …`, `event: …`, `data: ` and its JSON for `base`, a blank line. */
  private stream(base: string): RenderedForm {
    const array = this.form('array', base);
    const { heads, headStarts, types } = this;
    const rows = types.length;
    let length = array.bytes.length + rows * (SSE_ID.length + ID_BYTES + SSE_EVENT.length + SSE_DATA.length + 1); // a comma out, "\n\n" in
    for (const type of types) length += typeBytes(type).name.length;
    const out = Buffer.allocUnsafeSlow(length);
    const starts = new Int32Array(rows + 1);
    let to = 0;
    for (let i = 0; i < rows; i++) {
      starts[i] = to;
      to = putAll(out, to, SSE_ID);
      to += put(out, to, heads, headStarts[i] + ID_AT, headStarts[i] + ID_AT + ID_BYTES);
      to = putAll(out, to, SSE_EVENT);
      to = putAll(out, to, typeBytes(types[i]).name);
      to = putAll(out, to, SSE_DATA);
      to += put(out, to, array.bytes, array.starts[i], array.starts[i + 1] - 1);
      out[to++] = NEWLINE;
      out[to++] = NEWLINE;
    }
    starts[rows] = to;
    return { base, form: 'stream', bytes: out, starts };
  }
}
const SSE_ID = ascii('id: ');
const SSE_EVENT = ascii('\nevent: ');
const SSE_DATA = ascii('\ndata: ');

/**
 * Copies source[from, end) into `out` at `to`; returns how many bytes. A short piece byte by byte:
 * in Node 20 Buffer#copy makes a view of the source for each call, and the forms copy a few short
 * pieces a row (the text between two links).
 */
function put(out: Buffer, to: number, source: Buffer, from: number, end: number): number {
  if (end - from > SHORT_PIECE) return source.copy(out, to, from, end);
  for (let i = from; i < end; i++) out[to++] = source[i];
  return end - from;
}
const SHORT_PIECE = 64;

const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const COMMA = 44;
const CLOSE_BRACE = 125;
const NEWLINE = 10;
const LINK = Buffer.from('"/rest-api/');
const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
/** JSON's whitespace between tokens: space, tab, line feed, carriage return. */
const isSpace = (byte: number) => byte === 32 || byte === 9 || byte === 10 || byte === 13;

/**
 * Where a base URL goes in events' JSON as UTF-8: just inside the opening quote of every string
 * value that starts with /rest-api/. A string token opens with a quote that no backslash escapes
 * (inside a string a quote is \"); one whose string is followed by a colon is a key, left alone.
 * The scan reads bytes: the characters it looks for are ASCII, and in UTF-8 no byte of another
 * character equals one. (A scan with indexOf: the regular expression it replaces, and the Date
 * and JSON.stringify of the head, were most of ~10 µs a row.)
 */
function linkCuts(bytes: Buffer): Int32Array {
  const cuts: number[] = [];
  for (let at = bytes.indexOf(LINK); at >= 0; at = bytes.indexOf(LINK, at + 1)) {
    if (bytes[at - 1] === BACKSLASH) continue; // a quote inside a string
    // The string's closing quote, then what follows it: a colon makes it a key.
    let end = at + LINK.length;
    while (end < bytes.length && bytes[end] !== QUOTE) end += bytes[end] === BACKSLASH ? 2 : 1;
    let next = end + 1;
    while (next < bytes.length && isSpace(bytes[next])) next++;
    if (bytes[next] !== COLON) cuts.push(at + 1);
    at = end;
  }
  return Int32Array.from(cuts);
}

/** PostgreSQL's text for a timestamptz in a UTC session, e.g. `2026-11-27 22:51:32.683972+00`. */
const PG_UTC_TIME = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/;

/**
 * `created` as Date#toISOString writes it (UTC, milliseconds; finer digits cut, as Date cuts
 * them): PostgreSQL's text rewritten directly (parsing it as a Date took ~2 µs a row), any
 * other form through Date.
 */
export function isoTime(created: string | Date): string {
  const m = typeof created === 'string' ? PG_UTC_TIME.exec(created) : null;
  if (!m) return new Date(created).toISOString();
  return `${m[1]}T${m[2]}.${((m[3] ?? '') + '000').slice(0, 3)}Z`;
}

/** The event as an object (the JSON page of the log). */
export function presentEvent(row: EventRow, base: string): { id: string; type: string; created: string; data: unknown } {
  return JSON.parse(eventJson(row, base)) as { id: string; type: string; created: string; data: unknown };
}

/** Deletes events older than `days` (EVENT_RETENTION_DAYS); returns how many. */
export async function pruneEvents(db: Db, days: number): Promise<number> {
  // The deliveries of the period first (their history goes with the events; no foreign key
  // cascades it row by row: migration 0021), then the events.
  const rows = await queryRows<{ n: number }>(
    db,
    sql`with cutoff as (select now() - make_interval(days => ${days}) as t),
        deliveries as (delete from webhook_deliveries where created < (select t from cutoff)),
        gone as (delete from ${events} where created < (select t from cutoff) returning 1)
        select count(*)::int as n from gone`,
  );
  return Number(rows[0]?.n ?? 0);
}
