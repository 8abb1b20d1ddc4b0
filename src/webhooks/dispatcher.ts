/**
 * Sends events to webhooks (issue 14 §2), in every server process; the database shares the work.
 *
 * A process leases the active webhooks no other process holds (lease_until, SKIP LOCKED; its own
 * id in lease_owner) for LEASE_SECONDS, renews the lease every RENEW_MS while it sends, and,
 * webhooks side by side, sends each one's events in the log's order, one event a delivery (a
 * JSON object) or, for a webhook with a batch_size above 1, up to that many a delivery (a JSON
 * array; the events a delivery carries are taken, or failed and retried, together). A delivery is
 * one request, and one row of the webhook's history (webhook_deliveries: its first event, and all
 * of them when it carried several):
 * 1. first the deliveries waiting for a retry (or asked again by redeliver), oldest first; one
 *    that is not due yet holds everything behind it, so a receiver gets a webhook's events in order;
 * 2. then the events after the webhook's cursor that it may see (its owner's, or all for an
 *    admin's) and wants (its `events` patterns), a batch at a time, from the process's tail of
 *    the log (src/campaign/event-tail.ts: read once for every webhook and stream).
 * A batch's outcome is written in one transaction: a delivered row per delivery taken (2xx within
 * DELIVERY_TIMEOUT_MS), each failed one as pending with its backoff (exponential, with jitter),
 * and the cursor moved past them. At least once: a process killed before that write leaves the
 * cursor where it was, and the batch is sent again (receivers de-duplicate by Dialer-Event-Id),
 * by another process (or the same one restarted) once its lease has run out, within LEASE_SECONDS.
 * A process that finds its lease gone (its event loop or its database stalled past it, and another
 * process took the webhook) stops sending for it, and its cursor write does not apply.
 * A webhook failing for GIVE_UP_MS is deactivated, its waiting deliveries marked failed, and a
 * `webhook.disabled` event written.
 */
import { randomUUID } from 'node:crypto';
import { type SQL, sql } from 'drizzle-orm';
import { type Database, type Db, queryRows } from '../db/database.ts';
import { DeliveryStatus } from '../db/schema.ts';
import { intArray, json } from '../db/sql.ts';
import { OutageNotice } from '../db/unreachable.ts';
import { appendEvents, EventType, type EventRow, type EventCursor, eventArray, eventRowOf, pruneEvents, renderRows, sentEvent, type StoredEventRow } from '../campaign/events.ts';
import { tailOf } from '../campaign/event-tail.ts';
import { LogMotion, SpacedWake } from '../campaign/wake-spacing.ts';
import { postGuarded } from '../http/outbound.ts';
import { EVENT_ID_HEADER, sign, SIGNATURE_HEADER } from './signature.ts';

export const DELIVERY_TIMEOUT_MS = 10_000;
export const GIVE_UP_MS = 24 * 3600_000;
/** How long a lease lasts unrenewed: how long a killed process's webhooks wait for another. */
export const LEASE_SECONDS = 15;
/** How often a process renews the leases it holds while it sends: a third of a lease. */
const RENEW_MS = 5000;
/** Events read from the log and sent before their outcome is written: a window of the tail (event-tail.ts). */
const BATCH = 1000;
/** The header of a delivery of several events: how many its array holds. */
export const EVENT_COUNT_HEADER = 'dialer-event-count';
/** Deliveries under way at once to a webhook that is not `ordered`. */
const IN_FLIGHT = 16;
const TICK_MS = 1000;
/** Rounds start at most this often (campaign/wake-spacing.ts): each costs a lease and transactions. */
const ROUND_SPACING_MS = 200;
/** A process that has leased no webhook for this long stops listening to the log (listening()). */
const IDLE_AFTER_MS = 10_000;

export interface DispatcherOptions {
  database: Database;
  /** Links in payloads are made absolute with it (PUBLIC_URL). */
  publicUrl: string;
  allowPrivate: boolean;
  log: { warn(message: string): void };
  /** The first retry's delay; each next one doubles (up to an hour), ±50 % jitter. */
  retryBaseMs?: number;
  /** How long a failing webhook is retried before it is deactivated. */
  giveUpMs?: number;
  /** Events older than this many days are pruned (hourly). */
  retentionDays?: number;
}

interface LeasedWebhook {
  id: number;
  /** Set when a renewal or a cursor write found the lease held by another process: stop sending for it. */
  lost?: boolean;
  /** Set when the drain has ended and the lease is given back: no more renewals. */
  released?: boolean;
  user_id: number;
  is_admin: boolean;
  ordered: boolean;
  batch_size: number;
  url: string;
  secret: string;
  events: string[] | string;
  cursor_txid: string;
  cursor_id: string;
  failing_since: string | null;
}

/** One request's worth of events: one, or up to the webhook's batch_size. */
interface Delivery {
  events: EventRow[];
  /** Set when it is a delivery that waited for a retry (or was asked again). */
  waiting?: WaitingDelivery;
}

/** A delivery waiting for a retry (or asked again): sent again whole, as it was first. */
interface WaitingDelivery {
  id: number;
  attempts: number;
  due: boolean;
  events: EventRow[];
}

/** A delivery sent, and how it went. */
interface Sent extends Delivery {
  attempt: Attempt;
}

/** One attempt: what the receiver answered, or why there was no answer. */
interface Attempt {
  status: number | null;
  excerpt: string | null;
  error: string | null;
  latency: number;
  ok: boolean;
}

export class WebhookDispatcher {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private readonly spaced = new SpacedWake(ROUND_SPACING_MS, () => this.startRound());
  private readonly motion: LogMotion;
  /** Set while the log's notifications start rounds (listening). */
  private unlisten: (() => Promise<void>) | undefined;
  /** When a round last leased a webhook. */
  private lastLeased = 0;
  private stopped = false;
  /** Rounds that fail because the database is out of reach (one a second, each with its SQL): said once, and once when it is back. */
  private readonly outage: OutageNotice;
  private lastPrune = 0;
  private readonly db: Db;
  /** This process's name on the leases it holds (lease_owner). */
  private readonly owner = randomUUID();

  constructor(private readonly options: DispatcherOptions) {
    this.db = options.database.db;
    this.outage = new OutageNotice((m) => options.log.warn(m), { who: 'webhooks', waiting: 'deliveries wait for it', back: 'deliveries go on' });
    this.motion = new LogMotion(tailOf(this.db), this.spaced);
  }

  /** Starts rounds: the first now, then each TICK_MS, and on the log's notifications while it has webhooks to send for. */
  async start(): Promise<void> {
    this.timer = setInterval(() => this.wake(), TICK_MS);
    this.timer.unref();
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.spaced.cancel();
    await this.running; // rounds turn listening on and off: the last one has ended
    await this.listening(false);
  }

  /**
   * Whether the log's notifications start rounds: only while this process has leased a webhook in
   * the last IDLE_AFTER_MS, and is not polling (round() and LogMotion: the log moves, and rounds
   * follow each other on their own). Without one (none active, or other processes hold them all) each
   * notification would wake the process for nothing, ~80 a second while an engine dials, ~0.3 ms
   * of CPU each on a 2-core machine; the tick's rounds find a webhook created or freed meanwhile.
   */
  private async listening(on: boolean): Promise<void> {
    if (on === (this.unlisten !== undefined)) return;
    if (on) {
      this.unlisten = await this.options.database.listen('events', {
        notify: () => this.wake(),
        up: () => this.wake(), // anything missed while not listening is read from the log
        down: () => undefined, // the tick keeps rounds going meanwhile
      });
      return;
    }
    const unlisten = this.unlisten as () => Promise<void>;
    this.unlisten = undefined;
    await unlisten();
  }

  /** Runs a round soon: now, or when the one under way has ended and ROUND_SPACING_MS has passed since it began. */
  wake(): void {
    if (!this.stopped) this.spaced.wake();
  }

  private startRound(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.round()
      .then(() => this.outage.reached())
      .catch((err) => {
        if (!this.outage.failed(err)) this.options.log.warn(`webhooks: ${(err as Error).message}`);
      })
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** One round: every webhook this process can lease sends what it has. Resolves when done. */
  async round(): Promise<void> {
    const leased = await this.lease();
    if (leased.length) this.lastLeased = Date.now();
    const renewing = leased.length ? setInterval(() => void this.renew(leased), RENEW_MS) : undefined;
    try {
      await Promise.all(leased.map((hook) => this.drain(hook).finally(() => this.release(hook))));
    } finally {
      clearInterval(renewing);
    }
    if (this.options.retentionDays && Date.now() - this.lastPrune > 3600_000) {
      this.lastPrune = Date.now();
      await pruneEvents(this.db, this.options.retentionDays);
    }
    // While the log moves, the next round comes ROUND_SPACING_MS after this one on its own, not
    // woken by notifications (LogMotion); without a webhook leased there is nothing to read.
    const polling = this.motion.look(leased.length > 0);
    if (polling) this.again = true;
    // Last: the webhooks leased are released whatever becomes of it.
    if (!this.stopped) await this.listening(!polling && Date.now() - this.lastLeased < IDLE_AFTER_MS);
  }

  /** The active webhooks no other process is sending for, leased for LEASE_SECONDS. */
  private lease(): Promise<LeasedWebhook[]> {
    return queryRows<LeasedWebhook>(
      this.db,
      sql`with leased as (
            update webhooks set lease_until = now() + make_interval(secs => ${LEASE_SECONDS}), lease_owner = ${this.owner}
            where id in (
              select w.id from webhooks w
              where w.active and (w.lease_until is null or w.lease_until < now())
              order by w.id
              limit 50
              for update skip locked)
            returning id, user_id, url, secret, events, ordered, batch_size, cursor_txid, cursor_id, failing_since
          )
          select l.*, u.is_admin from leased l join users u on u.id = l.user_id`,
    );
  }

  /**
   * The leases of `hooks` still being sent for, extended by LEASE_SECONDS; one another process
   * holds now (this one's ran out) is marked lost, and its drain stops.
   */
  private async renew(hooks: LeasedWebhook[]): Promise<void> {
    const held = hooks.filter((hook) => !hook.lost && !hook.released);
    if (!held.length) return;
    try {
      const kept = await queryRows<{ id: number }>(
        this.db,
        sql`update webhooks set lease_until = now() + make_interval(secs => ${LEASE_SECONDS})
            where id = any(${intArray(held.map((hook) => hook.id))}) and lease_owner = ${this.owner}
            returning id`,
      );
      const ids = new Set(kept.map((row) => Number(row.id)));
      // One released while the renewal ran gave its lease back itself: not lost.
      for (const hook of held) if (!ids.has(hook.id) && !hook.released) hook.lost = true;
    } catch (err) {
      // Not renewed this time: the lease has two more chances before it runs out.
      this.options.log.warn(`webhooks: renewing leases: ${(err as Error).message}`);
    }
  }

  private async release(hook: LeasedWebhook): Promise<void> {
    hook.released = true;
    await queryRows(this.db, sql`update webhooks set lease_until = null, lease_owner = null where id = ${hook.id} and lease_owner = ${this.owner}`);
  }

  /**
   * Sends the webhook's waiting deliveries, then its new events, until none are left; an
   * `ordered` webhook stops at a failure or at a delivery not due yet (what is behind it waits).
   */
  private async drain(hook: LeasedWebhook): Promise<void> {
    const limit = Math.ceil(BATCH / Math.max(1, hook.batch_size));
    const waiting = await this.waiting(hook.id, limit);
    if (hook.ordered) {
      // The waiting ones due before the first that is not: in order, up to the first failure.
      const notDue = waiting.findIndex((d) => !d.due);
      const due = notDue < 0 ? waiting : waiting.slice(0, notDue);
      if (due.length) {
        const sent = await this.sendInOrder(hook, due.map((d) => ({ events: d.events, waiting: d })));
        await this.record(hook, sent, undefined);
        if (sent.length < waiting.length || (sent.length && !sent[sent.length - 1].attempt.ok)) return;
      } else if (waiting.length) return;
      if (waiting.length === limit) {
        this.again = true; // more wait behind these: the next round sends them before any new event
        return;
      }
    } else {
      // Not ordered: the retries due go out like new events, side by side, recorded together.
      const due = waiting.filter((d) => d.due);
      if (due.length) await this.record(hook, await this.sendAtOnce(hook, due.map((d) => ({ events: d.events, waiting: d }))), undefined);
    }
    if (this.stopped) return;
    const patterns = typeof hook.events === 'string' ? (JSON.parse(hook.events) as string[]) : hook.events;
    const filter = { userId: hook.is_admin ? undefined : hook.user_id, types: patterns };
    for (;;) {
      const after = { txid: Number(hook.cursor_txid), id: Number(hook.cursor_id) };
      const read = await tailOf(this.db).read(after, filter, BATCH);
      if (this.stopped || hook.lost) return;
      const deliveries = this.deliveries(hook, read.events);
      const sent = hook.ordered ? await this.sendInOrder(hook, deliveries) : await this.sendAtOnce(hook, deliveries);
      // The cursor passes the whole window when every delivery of it went (taken, or failed and
      // now waiting), else only the events of those sent.
      const end = sent.length === deliveries.length ? read.end : sent.at(-1)?.events.at(-1);
      await this.record(hook, sent, end);
      if ((hook.ordered && sent.at(-1)?.attempt.ok === false) || sent.length < deliveries.length || !read.full || hook.lost) return;
    }
  }

  /** The deliveries new `events` make for the webhook, in order: one event each, or up to batch_size. */
  private deliveries(hook: LeasedWebhook, events: EventRow[]): Delivery[] {
    const size = Math.max(1, hook.batch_size);
    const out: Delivery[] = [];
    for (let i = 0; i < events.length; i += size) out.push({ events: events.slice(i, i + size) });
    return out;
  }

  /** One delivery at a time, in order, up to the first failure. */
  private async sendInOrder(hook: LeasedWebhook, deliveries: Delivery[]): Promise<Sent[]> {
    const sent: Sent[] = [];
    for (const delivery of deliveries) {
      if (this.stopped || hook.lost) break;
      const attempt = await this.send(hook, delivery.events);
      sent.push({ ...delivery, attempt });
      if (!attempt.ok) break;
    }
    return sent;
  }

  /**
   * Up to IN_FLIGHT deliveries at a time, started in order; each failure waits for its own retry.
   * Stopped midway: only those before the first not sent count (the cursor may not pass an event not sent).
   */
  private async sendAtOnce(hook: LeasedWebhook, deliveries: Delivery[]): Promise<Sent[]> {
    const sent: (Sent | undefined)[] = new Array(deliveries.length);
    let next = 0;
    const worker = async () => {
      while (next < deliveries.length && !this.stopped && !hook.lost) {
        const at = next++;
        sent[at] = { ...deliveries[at], attempt: await this.send(hook, deliveries[at].events) };
      }
    };
    await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, deliveries.length) }, worker));
    const notSent = sent.findIndex((s) => s === undefined);
    return (notSent < 0 ? sent : sent.slice(0, notSent)) as Sent[];
  }

  /**
   * The outcome of deliveries sent, in one transaction: a row for each delivery taken (or the
   * waiting one's row updated), each failed one pending with its backoff, and the cursor moved
   * to `end` (past new events read; a failed one now waits as a delivery of its own). The cursor
   * moves only while this process holds the lease: one that lost it leaves the events after the
   * cursor, and its failures, to the process that holds it now.
   */
  private async record(hook: LeasedWebhook, sent: Sent[], end: EventCursor | undefined): Promise<void> {
    const moved = end !== undefined && (end.txid !== Number(hook.cursor_txid) || end.id !== Number(hook.cursor_id));
    if (sent.length === 0 && !moved) return;
    const taken = sent.filter((s) => s.attempt.ok);
    const failures = hook.lost ? [] : sent.filter((s) => !s.attempt.ok);
    // What went and where the cursor is now: one statement (a round trip and a commit), which is
    // all a batch that went whole (most of the day) writes.
    const delivered = taken.length ? deliveredSql(hook.id, taken) : undefined;
    const cursor = moved
      ? sql`update webhooks set cursor_txid = ${end.txid}, cursor_id = ${end.id} where id = ${hook.id} and lease_owner = ${this.owner} returning id`
      : undefined;
    const statement = delivered && cursor ? sql`with delivered as (${delivered}) ${cursor}` : (delivered ?? cursor);
    const write = async (db: Db) => {
      if (!statement) return;
      const rows = await queryRows(db, statement);
      if (cursor && rows.length === 0) hook.lost = true;
    };
    if (failures.length === 0) await write(this.db);
    else {
      await this.db.transaction(async (tx) => {
        await write(tx);
        for (const failure of failures) {
          if (failure.waiting) {
            await this.failed(hook, failure.waiting, failure.attempt, tx);
            continue;
          }
          const { e, ids } = firstAndAll(failure.events);
          const [row] = await queryRows<{ id: number }>(
            tx,
            sql`insert into webhook_deliveries (webhook_id, event_id, event_ids) values (${hook.id}, ${e}, ${ids}::bigint[])
                on conflict (webhook_id, event_id) do update set status = ${DeliveryStatus.Pending}, event_ids = excluded.event_ids
                returning id`,
          );
          await this.failed(hook, { id: Number(row.id), attempts: 0, due: true, events: failure.events }, failure.attempt, tx);
        }
      });
    }
    if (moved && !hook.lost) {
      hook.cursor_txid = String(end.txid);
      hook.cursor_id = String(end.id);
    }
    if (sent.length && !hook.lost && sent.every((s) => s.attempt.ok)) await this.recovered(hook);
  }

  /** A webhook that was failing took a delivery: it is no longer failing. */
  private async recovered(hook: LeasedWebhook): Promise<void> {
    if (hook.failing_since === null) return;
    await queryRows(this.db, sql`update webhooks set failing_since = null where id = ${hook.id}`);
    hook.failing_since = null;
  }

  /** The webhook's deliveries waiting for a retry or asked again, oldest first (up to `limit`), each with its events in order. */
  private async waiting(webhookId: number, limit: number): Promise<WaitingDelivery[]> {
    const rows = await queryRows<StoredEventRow & { delivery_id: number; attempts: number; due: boolean }>(
      this.db,
      sql`select d.id as delivery_id, d.attempts, d.next_attempt <= now() as due,
                 e.id, e.txid, e.type, e.user_id, e.campaign_id, e.data::text as data, e.created
          from (select id, attempts, next_attempt, event_id, event_ids from webhook_deliveries
                where webhook_id = ${webhookId} and status = ${DeliveryStatus.Pending}
                order by id
                limit ${limit}) d
          cross join lateral unnest(coalesce(d.event_ids, array[d.event_id])) with ordinality as u(event_id, n)
          join events e on e.id = u.event_id
          order by d.id, u.n`,
    );
    const out: WaitingDelivery[] = [];
    for (const r of rows) {
      const id = Number(r.delivery_id);
      if (out.at(-1)?.id !== id) out.push({ id, attempts: Number(r.attempts), due: r.due === true || (r.due as unknown) === 't', events: [] });
      (out.at(-1) as WaitingDelivery).events.push(eventRowOf(r));
    }
    renderRows(out.flatMap((delivery) => delivery.events)); // rendered together, as a window of the log is
    return out;
  }

  /**
   * Sends one delivery to the webhook: the event as an object with its id in Dialer-Event-Id, or
   * (batch_size above 1, or a waiting delivery of several) the events as an array with their number in Dialer-Event-Count. What
   * the receiver answered (ok: a 2xx).
   */
  private async send(hook: LeasedWebhook, events: EventRow[]): Promise<Attempt> {
    const { publicUrl } = this.options;
    const array = hook.batch_size > 1 || events.length > 1;
    // Encoded once: the signature and the request read the same bytes.
    const single = array ? undefined : sentEvent(events[0], publicUrl);
    const body = single ? single.json : eventArray(events, publicUrl);
    const which: Record<string, string> = single ? { [EVENT_ID_HEADER]: single.id } : { [EVENT_COUNT_HEADER]: String(events.length) };
    const started = Date.now();
    let status: number | null = null;
    let excerpt: string | null = null;
    let error: string | null = null;
    try {
      const answer = await postGuarded(
        hook.url,
        body,
        { [SIGNATURE_HEADER]: sign(hook.secret, body), ...which, 'user-agent': 'campaign-dialer-webhooks' },
        { allowPrivate: this.options.allowPrivate, timeoutMs: DELIVERY_TIMEOUT_MS },
      );
      status = answer.status;
      excerpt = answer.body.slice(0, 500);
    } catch (err) {
      error = (err as Error).message.slice(0, 500);
    }
    const ok = status !== null && status >= 200 && status < 300;
    return { status, excerpt, error: ok ? null : (error ?? `answered ${status}`), latency: Date.now() - started, ok };
  }

  /** A failed attempt: its backoff, and the webhook deactivated when it has failed for too long. */
  private async failed(hook: LeasedWebhook, delivery: WaitingDelivery, attempt: Attempt, inTransaction?: Db): Promise<void> {
    const base = this.options.retryBaseMs ?? 1000;
    const delay = Math.min(base * 2 ** delivery.attempts, 3600_000) * (0.5 + Math.random());
    const write = async (tx: Db) => {
      await queryRows(
        tx,
        sql`update webhook_deliveries
            set attempts = attempts + 1, response_status = ${attempt.status}, latency_ms = ${attempt.latency},
                response_excerpt = ${attempt.excerpt}, error = ${attempt.error},
                next_attempt = now() + make_interval(secs => ${delay / 1000})
            where id = ${delivery.id}`,
      );
      const [state] = await queryRows<{ failing_for_ms: number }>(
        tx,
        sql`update webhooks set failing_since = coalesce(failing_since, now()) where id = ${hook.id}
            returning (extract(epoch from now() - failing_since) * 1000)::float8 as failing_for_ms`,
      );
      if (Number(state?.failing_for_ms ?? 0) < (this.options.giveUpMs ?? GIVE_UP_MS)) return;
      // Failing too long: the endpoint is switched off and what waited for it given up.
      await queryRows(tx, sql`update webhooks set active = false where id = ${hook.id}`);
      await queryRows(
        tx,
        sql`update webhook_deliveries set status = ${DeliveryStatus.Failed}
            where webhook_id = ${hook.id} and status = ${DeliveryStatus.Pending}`,
      );
      await appendEvents(tx, [
        {
          type: EventType.WebhookDisabled,
          userId: hook.user_id,
          data: { webhook: `/rest-api/webhook/${hook.id}/`, id: hook.id, url: hook.url, last_error: attempt.error },
        },
      ]);
    };
    await (inTransaction ? write(inTransaction) : this.db.transaction(write));
  }
}

/** The rows of deliveries taken (2xx), or the rows of waiting ones updated: the webhook's delivery history. */
function deliveredSql(webhookId: number, taken: Sent[]): SQL {
  const rows = taken.map(({ events, attempt }) => ({ ...firstAndAll(events), s: attempt.status, l: attempt.latency, x: attempt.excerpt }));
  return sql`insert into webhook_deliveries (webhook_id, event_id, event_ids, status, attempts, response_status, latency_ms, response_excerpt, delivered_at)
      select ${webhookId}, r.e, r.ids::bigint[], ${DeliveryStatus.Delivered}, 1, r.s, r.l, r.x, now()
      from jsonb_to_recordset(${json(rows)}) as r(e bigint, ids text, s int, l int, x text)
      on conflict (webhook_id, event_id) do update set status = excluded.status, attempts = webhook_deliveries.attempts + 1,
        event_ids = excluded.event_ids, response_status = excluded.response_status, latency_ms = excluded.latency_ms,
        response_excerpt = excluded.response_excerpt, error = null, delivered_at = excluded.delivered_at`;
}

/** A delivery's row keys: its first event, and all of them (a Postgres array literal) when there are several. */
function firstAndAll(events: EventRow[]): { e: number; ids: string | null } {
  return { e: events[0].id, ids: events.length > 1 ? `{${events.map((e) => e.id).join(',')}}` : null };
}
