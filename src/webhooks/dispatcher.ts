/**
 * Sends events to webhooks (issue 14 §2), in every server process; the database shares the work:
 *
 * 1. Fan-out: each active webhook's cursor walks the event log (src/campaign/events.ts, commit
 *    order); the events it may see (its owner's, or all for an admin's) and wants (its `events`
 *    patterns) become delivery rows. Webhooks are locked with SKIP LOCKED, so two processes never
 *    fan out the same one.
 * 2. Delivery: a process leases a webhook that has deliveries due (lease_until, SKIP LOCKED) and
 *    sends them one at a time, oldest first, so a receiver gets each webhook's events in order. A
 *    failure backs the delivery off (exponential, with jitter) and holds the ones behind it; 2xx
 *    within DELIVERY_TIMEOUT_MS is success. A webhook failing for GIVE_UP_MS is deactivated, its
 *    waiting deliveries marked failed, and a `webhook.disabled` event written.
 * At least once: a delivery is recorded after it is sent; a process killed in between leaves it
 * pending under a lease that expires, and another process sends it again. Receivers de-duplicate
 * by Dialer-Event-Id.
 */
import { sql } from 'drizzle-orm';
import { type Database, type Db, queryRows } from '../db/database.ts';
import { DeliveryStatus } from '../db/schema.ts';
import { appendEvents, EventType, type EventRow, eventRowOf, presentEvent, pruneEvents, readEvents, typeMatches } from '../campaign/events.ts';
import { postGuarded } from '../http/outbound.ts';
import { EVENT_ID_HEADER, sign, SIGNATURE_HEADER } from './signature.ts';

export const DELIVERY_TIMEOUT_MS = 10_000;
export const GIVE_UP_MS = 24 * 3600_000;
const LEASE_SECONDS = 60;
const FAN_OUT_BATCH = 1000;
const SEND_BATCH = 200;
const TICK_MS = 1000;

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
  url: string;
  secret: string;
  failing_since: string | null;
}

interface DueDelivery {
  id: number;
  attempts: number;
  due: boolean;
  event: EventRow;
}

export class WebhookDispatcher {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
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
    await this.unlisten?.();
    await this.running;
  }

  /** Runs a round now (or right after the one under way). */
  wake(): void {
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

  /** One round: fan out new events, then send what is due. Resolves when both are done. */
  async round(): Promise<void> {
    while ((await this.fanOut()) === FAN_OUT_BATCH);
    await this.deliverDue();
    if (this.options.retentionDays && Date.now() - this.lastPrune > 3600_000) {
      this.lastPrune = Date.now();
      await pruneEvents(this.db, this.options.retentionDays);
    }
  }

  /** Turns new events into deliveries; returns the most events one webhook read (for paging). */
  private async fanOut(): Promise<number> {
    return this.db.transaction(async (tx) => {
      const hooks = await queryRows<{ id: number; events: string[] | string; cursor_txid: string; cursor_id: string; user_id: number; is_admin: boolean }>(
        tx,
        sql`select w.id, w.events, w.cursor_txid, w.cursor_id, w.user_id, u.is_admin
            from webhooks w join users u on u.id = w.user_id
            where w.active
            order by w.id
            for update of w skip locked`,
      );
      let most = 0;
      for (const hook of hooks) {
        const patterns = typeof hook.events === 'string' ? (JSON.parse(hook.events) as string[]) : hook.events;
        const rows = await readEvents(tx, { txid: Number(hook.cursor_txid), id: Number(hook.cursor_id) }, {}, FAN_OUT_BATCH);
        if (rows.length === 0) continue;
        most = Math.max(most, rows.length);
        const wanted = rows.filter((e) => (hook.is_admin || e.user_id === hook.user_id) && typeMatches(e.type, patterns)).map((e) => e.id);
        if (wanted.length) {
          await queryRows(
            tx,
            sql`insert into webhook_deliveries (webhook_id, event_id)
                select ${hook.id}, unnest(${`{${wanted.join(',')}}`}::bigint[])
                on conflict do nothing`,
          );
        }
        const last = rows[rows.length - 1];
        await queryRows(tx, sql`update webhooks set cursor_txid = ${last.txid}, cursor_id = ${last.id} where id = ${hook.id}`);
      }
      return most;
    });
  }

  /** Leases the webhooks with deliveries due and sends them, webhooks side by side. */
  private async deliverDue(): Promise<void> {
    const leased = await queryRows<LeasedWebhook>(
      this.db,
      sql`update webhooks set lease_until = now() + make_interval(secs => ${LEASE_SECONDS})
          where id in (
            select w.id from webhooks w
            where w.active and (w.lease_until is null or w.lease_until < now())
              and exists (select 1 from webhook_deliveries d
                          where d.webhook_id = w.id and d.status = ${DeliveryStatus.Pending} and d.next_attempt <= now())
            order by w.id
            limit 50
            for update skip locked)
          returning id, user_id, url, secret, failing_since`,
    );
    await Promise.all(leased.map((hook) => this.sendQueue(hook).finally(() => this.release(hook.id))));
  }

  private async release(id: number): Promise<void> {
    await queryRows(this.db, sql`update webhooks set lease_until = null where id = ${id}`);
  }

  /** Sends the webhook's pending deliveries in order until one fails or one is not due yet. */
  private async sendQueue(hook: LeasedWebhook): Promise<void> {
    for (;;) {
      const queue = await this.pending(hook.id);
      for (const delivery of queue) {
        if (this.stopped || !delivery.due) return;
        if (!(await this.send(hook, delivery))) return;
      }
      if (queue.length < SEND_BATCH) return;
    }
  }

  private async pending(webhookId: number): Promise<DueDelivery[]> {
    const rows = await queryRows<EventRow & { delivery_id: number; attempts: number; due: boolean }>(
      this.db,
      sql`select d.id as delivery_id, d.attempts, d.next_attempt <= now() as due,
                 e.id, e.txid, e.type, e.user_id, e.campaign_id, e.data, e.created
          from webhook_deliveries d join events e on e.id = d.event_id
          where d.webhook_id = ${webhookId} and d.status = ${DeliveryStatus.Pending}
          order by d.id
          limit ${SEND_BATCH}`,
    );
    return rows.map((r) => ({
      id: Number(r.delivery_id),
      attempts: Number(r.attempts),
      due: r.due === true || (r.due as unknown) === 't',
      event: eventRowOf(r),
    }));
  }

  /** Sends one delivery and records the attempt; true when the receiver took it (2xx). */
  private async send(hook: LeasedWebhook, delivery: DueDelivery): Promise<boolean> {
    const event = presentEvent(delivery.event, this.options.publicUrl);
    const body = JSON.stringify(event);
    const started = Date.now();
    let status: number | null = null;
    let excerpt: string | null = null;
    let error: string | null = null;
    try {
      const answer = await postGuarded(
        hook.url,
        body,
        { [SIGNATURE_HEADER]: sign(hook.secret, body), [EVENT_ID_HEADER]: event.id, 'user-agent': 'campaign-dialer-webhooks' },
        { allowPrivate: this.options.allowPrivate, timeoutMs: DELIVERY_TIMEOUT_MS },
      );
      status = answer.status;
      excerpt = answer.body.slice(0, 500);
    } catch (err) {
      error = (err as Error).message.slice(0, 500);
    }
    const latency = Date.now() - started;
    const ok = status !== null && status >= 200 && status < 300;
    if (ok) {
      await queryRows(
        this.db,
        sql`update webhook_deliveries
            set status = ${DeliveryStatus.Delivered}, attempts = attempts + 1, response_status = ${status},
                latency_ms = ${latency}, response_excerpt = ${excerpt}, error = null, delivered_at = now()
            where id = ${delivery.id}`,
      );
      if (hook.failing_since !== null) {
        await queryRows(this.db, sql`update webhooks set failing_since = null where id = ${hook.id}`);
        hook.failing_since = null;
      }
      return true;
    }
    await this.failed(hook, delivery, { status, excerpt, error: error ?? `answered ${status}`, latency });
    return false;
  }

  private async failed(
    hook: LeasedWebhook,
    delivery: DueDelivery,
    attempt: { status: number | null; excerpt: string | null; error: string; latency: number },
  ): Promise<void> {
    const base = this.options.retryBaseMs ?? 1000;
    const delay = Math.min(base * 2 ** delivery.attempts, 3600_000) * (0.5 + Math.random());
    await this.db.transaction(async (tx) => {
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
    });
  }
}
