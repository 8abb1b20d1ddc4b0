/**
 * Sends events to webhooks (issue 14 §2), in every server process; the database shares the work.
 *
 * A process leases the active webhooks no other process holds (lease_until, SKIP LOCKED) and,
 * webhooks side by side, sends each one's events in the log's order, one event a delivery (a
 * JSON object) or, for a webhook with a batch_size above 1, up to that many a delivery (a JSON
 * array; the events a delivery carries are taken, or failed, together):
 * 1. first the deliveries waiting for a retry (or asked again by redeliver), oldest first; one
 *    that is not due yet holds everything behind it, so a receiver gets a webhook's events in order;
 * 2. then the events after the webhook's cursor that it may see (its owner's, or all for an
 *    admin's) and wants (its `events` patterns), read from the log (src/campaign/events.ts) a
 *    batch at a time.
 * A batch's outcome is written in one transaction: a delivered row per event taken (2xx within
 * DELIVERY_TIMEOUT_MS), the failed one as pending with its backoff (exponential, with jitter),
 * and the cursor moved past them. At least once: a process killed before that write leaves the
 * cursor where it was, and the batch is sent again (receivers de-duplicate by Dialer-Event-Id).
 * A webhook failing for GIVE_UP_MS is deactivated, its waiting deliveries marked failed, and a
 * `webhook.disabled` event written.
 */
import { sql } from 'drizzle-orm';
import { type Database, type Db, queryRows } from '../db/database.ts';
import { DeliveryStatus } from '../db/schema.ts';
import { appendEvents, EventType, type EventRow, eventId, eventJson, eventRowOf, pruneEvents, readEvents } from '../campaign/events.ts';
import { SpacedWake } from '../campaign/wake-spacing.ts';
import { postGuarded } from '../http/outbound.ts';
import { EVENT_ID_HEADER, sign, SIGNATURE_HEADER } from './signature.ts';

export const DELIVERY_TIMEOUT_MS = 10_000;
export const GIVE_UP_MS = 24 * 3600_000;
const LEASE_SECONDS = 60;
/** Events read from the log and sent before their outcome is written. */
const BATCH = 500;
/** The header of a delivery of several events: how many its array holds. */
export const EVENT_COUNT_HEADER = 'dialer-event-count';
/** Deliveries under way at once to a webhook that is not `ordered`. */
const IN_FLIGHT = 16;
const TICK_MS = 1000;
/** Rounds start at most this often (campaign/wake-spacing.ts): each costs a lease and transactions. */
const ROUND_SPACING_MS = 200;

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

/** A delivery waiting for a retry (or asked again). */
interface WaitingDelivery {
  id: number;
  attempts: number;
  due: boolean;
  event: EventRow;
}

/** An event sent, and how it went. */
interface Sent {
  event: EventRow;
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
  private unlisten: (() => Promise<void>) | undefined;
  private stopped = false;
  private lastPrune = 0;
  private readonly db: Db;

  constructor(private readonly options: DispatcherOptions) {
    this.db = options.database.db;
  }

  async start(): Promise<void> {
    this.unlisten = await this.options.database.listen('events', {
      notify: () => this.wake(),
      up: () => this.wake(), // anything missed while not listening is read from the log
      down: () => undefined, // the interval keeps rounds going meanwhile
    });
    this.timer = setInterval(() => this.wake(), TICK_MS);
    this.timer.unref();
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.spaced.cancel();
    await this.unlisten?.();
    await this.running;
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
      .catch((err) => this.options.log.warn(`webhooks: ${(err as Error).message}`))
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
    await Promise.all(leased.map((hook) => this.drain(hook).finally(() => this.release(hook.id))));
    if (this.options.retentionDays && Date.now() - this.lastPrune > 3600_000) {
      this.lastPrune = Date.now();
      await pruneEvents(this.db, this.options.retentionDays);
    }
  }

  /** The active webhooks no other process is sending for, leased for LEASE_SECONDS. */
  private lease(): Promise<LeasedWebhook[]> {
    return queryRows<LeasedWebhook>(
      this.db,
      sql`with leased as (
            update webhooks set lease_until = now() + make_interval(secs => ${LEASE_SECONDS})
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

  private async release(id: number): Promise<void> {
    await queryRows(this.db, sql`update webhooks set lease_until = null where id = ${id}`);
  }

  /**
   * Sends the webhook's waiting deliveries, then its new events, until none are left; an
   * `ordered` webhook stops at a failure or at a delivery not due yet (what is behind it waits).
   */
  private async drain(hook: LeasedWebhook): Promise<void> {
    const waiting = await this.waiting(hook.id);
    if (hook.ordered) {
      // The waiting ones due before the first that is not: in order, up to the first failure.
      const notDue = waiting.findIndex((d) => !d.due);
      const due = notDue < 0 ? waiting : waiting.slice(0, notDue);
      if (due.length) {
        const sent = await this.sendInOrder(hook, due.map((d) => d.event));
        await this.record(hook, sent, new Map(due.map((d) => [d.event.id, d])));
        if (sent.length < waiting.length || (sent.length && !sent[sent.length - 1].attempt.ok)) return;
      } else if (waiting.length) return;
      if (waiting.length === BATCH) {
        this.again = true; // more wait behind these: the next round sends them before any new event
        return;
      }
    } else {
      // Not ordered: the retries due go out like new events, side by side, recorded together.
      const due = new Map(waiting.filter((d) => d.due).map((d) => [d.event.id, d]));
      if (due.size) await this.record(hook, await this.sendAtOnce(hook, [...due.values()].map((d) => d.event)), due);
    }
    if (this.stopped) return;
    const patterns = typeof hook.events === 'string' ? (JSON.parse(hook.events) as string[]) : hook.events;
    const filter = { userId: hook.is_admin ? undefined : hook.user_id, types: patterns };
    for (;;) {
      const after = { txid: Number(hook.cursor_txid), id: Number(hook.cursor_id) };
      const batch = await readEvents(this.db, after, filter, BATCH);
      if (batch.length === 0 || this.stopped) return;
      const sent = hook.ordered ? await this.sendInOrder(hook, batch) : await this.sendAtOnce(hook, batch);
      if (sent.length === 0) return;
      await this.record(hook, sent);
      if ((hook.ordered && !sent[sent.length - 1].attempt.ok) || batch.length < BATCH) return;
    }
  }

  /** The deliveries `events` make for the webhook, in order: one event each, or up to batch_size. */
  private deliveries(hook: LeasedWebhook, events: EventRow[]): EventRow[][] {
    const size = Math.max(1, hook.batch_size);
    const out: EventRow[][] = [];
    for (let i = 0; i < events.length; i += size) out.push(events.slice(i, i + size));
    return out;
  }

  /** One delivery at a time, in order, up to the first failure. */
  private async sendInOrder(hook: LeasedWebhook, batch: EventRow[]): Promise<Sent[]> {
    const sent: Sent[] = [];
    for (const events of this.deliveries(hook, batch)) {
      if (this.stopped) break;
      const attempt = await this.send(hook, events);
      for (const event of events) sent.push({ event, attempt });
      if (!attempt.ok) break;
    }
    return sent;
  }

  /** Up to IN_FLIGHT deliveries at a time, started in order; each failure waits for its own retry. */
  private async sendAtOnce(hook: LeasedWebhook, batch: EventRow[]): Promise<Sent[]> {
    const sent: Sent[] = [];
    const deliveries = this.deliveries(hook, batch);
    let next = 0;
    const worker = async () => {
      while (next < deliveries.length && !this.stopped) {
        const events = deliveries[next++];
        const attempt = await this.send(hook, events);
        for (const event of events) sent.push({ event, attempt });
      }
    };
    await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, deliveries.length) }, worker));
    // Stopped midway: only a prefix of the batch counts (the cursor may not pass an event not sent).
    const attempted = new Set(sent.map((s) => s.event.id));
    const prefix = batch.findIndex((e) => !attempted.has(e.id));
    const order = new Map(batch.map((e, i) => [e.id, i]));
    return sent.filter((s) => prefix < 0 || (order.get(s.event.id) as number) < prefix).sort((a, b) => (order.get(a.event.id) as number) - (order.get(b.event.id) as number));
  }

  /**
   * A batch's outcome, in one transaction: the deliveries taken, each failed one (pending, with
   * its backoff), and the cursor past them all (a failed one now waits as a delivery of its own).
   * `retried`: the batch was of waiting deliveries (by event id), not new events: the cursor
   * stays, and a failure counts on its delivery's attempts.
   */
  private async record(hook: LeasedWebhook, sent: Sent[], retried?: Map<number, WaitingDelivery>): Promise<void> {
    if (sent.length === 0) return;
    const last = sent[sent.length - 1].event;
    const taken = sent.filter((s) => s.attempt.ok);
    const failures = sent.filter((s) => !s.attempt.ok);
    await this.db.transaction(async (tx) => {
      if (taken.length) {
        const rows = taken.map(({ event, attempt }) => ({ e: event.id, s: attempt.status, l: attempt.latency, x: attempt.excerpt }));
        await queryRows(
          tx,
          sql`insert into webhook_deliveries (webhook_id, event_id, status, attempts, response_status, latency_ms, response_excerpt, delivered_at)
              select ${hook.id}, r.e, ${DeliveryStatus.Delivered}, 1, r.s, r.l, r.x, now()
              from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(e bigint, s int, l int, x text)
              on conflict (webhook_id, event_id) do update set status = excluded.status, attempts = webhook_deliveries.attempts + 1,
                response_status = excluded.response_status, latency_ms = excluded.latency_ms,
                response_excerpt = excluded.response_excerpt, error = null, delivered_at = excluded.delivered_at`,
        );
      }
      if (!retried) await queryRows(tx, sql`update webhooks set cursor_txid = ${last.txid}, cursor_id = ${last.id} where id = ${hook.id}`);
      for (const failure of failures) {
        const waiting = retried?.get(failure.event.id);
        if (waiting) {
          await this.failed(hook, waiting, failure.attempt, tx);
          continue;
        }
        const [row] = await queryRows<{ id: number }>(
          tx,
          sql`insert into webhook_deliveries (webhook_id, event_id) values (${hook.id}, ${failure.event.id})
              on conflict (webhook_id, event_id) do update set status = ${DeliveryStatus.Pending}
              returning id`,
        );
        await this.failed(hook, { id: Number(row.id), attempts: 0, due: true, event: failure.event }, failure.attempt, tx);
      }
    });
    if (!retried) {
      hook.cursor_txid = String(last.txid);
      hook.cursor_id = String(last.id);
    }
    if (failures.length === 0) await this.recovered(hook);
  }

  /** A webhook that was failing took a delivery: it is no longer failing. */
  private async recovered(hook: LeasedWebhook): Promise<void> {
    if (hook.failing_since === null) return;
    await queryRows(this.db, sql`update webhooks set failing_since = null where id = ${hook.id}`);
    hook.failing_since = null;
  }

  /** The webhook's deliveries waiting for a retry or asked again, oldest first. */
  private async waiting(webhookId: number): Promise<WaitingDelivery[]> {
    const rows = await queryRows<EventRow & { delivery_id: number; attempts: number; due: boolean }>(
      this.db,
      sql`select d.id as delivery_id, d.attempts, d.next_attempt <= now() as due,
                 e.id, e.txid, e.type, e.user_id, e.campaign_id, e.data::text as data, e.created
          from webhook_deliveries d join events e on e.id = d.event_id
          where d.webhook_id = ${webhookId} and d.status = ${DeliveryStatus.Pending}
          order by d.id
          limit ${BATCH}`,
    );
    return rows.map((r) => ({
      id: Number(r.delivery_id),
      attempts: Number(r.attempts),
      due: r.due === true || (r.due as unknown) === 't',
      event: eventRowOf(r),
    }));
  }

  /**
   * Sends one delivery to the webhook: the event as an object with its id in Dialer-Event-Id, or
   * (batch_size above 1) the events as an array with their number in Dialer-Event-Count. What
   * the receiver answered (ok: a 2xx).
   */
  private async send(hook: LeasedWebhook, events: EventRow[]): Promise<Attempt> {
    const { publicUrl } = this.options;
    const body = hook.batch_size > 1 ? `[${events.map((e) => eventJson(e, publicUrl)).join(',')}]` : eventJson(events[0], publicUrl);
    const which: Record<string, string> = hook.batch_size > 1 ? { [EVENT_COUNT_HEADER]: String(events.length) } : { [EVENT_ID_HEADER]: eventId(events[0]) };
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
