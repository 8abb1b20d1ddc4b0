/** The webhooks table and its deliveries, as the webhook resource reads and writes them. */
import crypto from 'node:crypto';
import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import { endOfLog } from '../../campaign/events.ts';
import { type Db, queryRows } from '../../db/database.ts';
import { DeliveryStatus, webhookDeliveries, webhooks } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ownedBy } from '../../http/scope.ts';

export type WebhookRow = typeof webhooks.$inferSelect;

export const visibleWebhooks = (user: AuthUser): SQL | undefined => ownedBy(user, webhooks.user_id);

/** A new signing secret: 32 random bytes, shown to the owner once. */
export const newSecret = () => `whsec_${crypto.randomBytes(32).toString('base64url')}`;

export async function findWebhook(db: Db, user: AuthUser, id: number): Promise<WebhookRow | undefined> {
  return (await db.select().from(webhooks).where(and(eq(webhooks.id, id), visibleWebhooks(user))))[0];
}

export function countWebhooks(db: Db, where: SQL | undefined): Promise<number> {
  return db.$count(webhooks, where);
}

export function listWebhooks(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<WebhookRow[]> {
  return db.select().from(webhooks).where(where).orderBy(asc(webhooks.id)).limit(limit).offset(offset);
}

/**
 * A new webhook starts at the end of the log: it receives what happens from now on.
 */
export async function insertWebhook(db: Db, values: typeof webhooks.$inferInsert): Promise<WebhookRow> {
  const end = await endOfLog(db);
  const [row] = await db
    .insert(webhooks)
    .values({ ...values, cursor_txid: end.txid, cursor_id: end.id })
    .returning();
  return row;
}

export async function updateWebhook(db: Db, id: number, values: Partial<typeof webhooks.$inferInsert>): Promise<void> {
  await db
    .update(webhooks)
    .set({ ...values, updated_date: sql`now()` })
    .where(eq(webhooks.id, id));
}

export async function deleteWebhook(db: Db, id: number): Promise<void> {
  await db.delete(webhooks).where(eq(webhooks.id, id));
}

export interface DeliveryRow {
  id: number;
  event_txid: number;
  event_id: number;
  event_type: string;
  /** Every event of the delivery, in order, as [txid, id] (one for a delivery of one event). */
  events: [number, number][];
  status: string;
  attempts: number;
  response_status: number | null;
  latency_ms: number | null;
  response_excerpt: string | null;
  error: string | null;
  next_attempt: string | null;
  delivered_at: string | null;
  created: string;
}

export function countDeliveries(db: Db, webhookId: number): Promise<number> {
  return db.$count(webhookDeliveries, eq(webhookDeliveries.webhook_id, webhookId));
}

/** A webhook's deliveries, newest first: each with its first event's type and all its events. */
export async function listDeliveries(db: Db, webhookId: number, limit: number, offset: number): Promise<DeliveryRow[]> {
  const rows = await queryRows<DeliveryRow>(
    db,
    sql`select d.id, e.txid as event_txid, e.id as event_id, e.type as event_type, d.status, d.attempts, d.response_status,
               d.latency_ms, d.response_excerpt, d.error,
               case when d.status = ${DeliveryStatus.Pending} then d.next_attempt end as next_attempt,
               d.delivered_at, d.created,
               coalesce((select json_agg(json_build_array(x.txid, x.id) order by u.n)
                         from unnest(d.event_ids) with ordinality as u(event_id, n) join events x on x.id = u.event_id),
                        json_build_array(json_build_array(e.txid, e.id))) as events
        from webhook_deliveries d join events e on e.id = d.event_id
        where d.webhook_id = ${webhookId}
        order by d.id desc
        limit ${limit} offset ${offset}`,
  );
  return rows.map((r) => {
    const events = (typeof r.events === 'string' ? JSON.parse(r.events) : r.events) as [number | string, number | string][];
    return { ...r, id: Number(r.id), event_txid: Number(r.event_txid), event_id: Number(r.event_id), events: events.map(([t, i]) => [Number(t), Number(i)]) };
  });
}

/** Sends a delivery again, now (whatever its state), whole: answers whether it is the webhook's. */
export async function redeliver(db: Db, webhookId: number, deliveryId: number): Promise<boolean> {
  const rows = await db
    .update(webhookDeliveries)
    .set({ status: DeliveryStatus.Pending, next_attempt: sql`now()` })
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.webhook_id, webhookId)))
    .returning({ id: webhookDeliveries.id });
  return rows.length > 0;
}
