/**
 * The voice campaigns as the engine reads and moves them: the claim's row lock, the START list a
 * pass walks, END for the campaigns whose time is up, the ABORTed among those with calls in
 * flight, and `noteState` (engine_state and the pace, for voice and SMS campaigns alike).
 */
import { and, eq, sql } from 'drizzle-orm';
import { appendEvents, campaignEventDataSql, EventType, insertEventsSql } from '../../campaign/events.ts';
import type { CampaignKind } from '../../campaign/kinds.ts';
import { campaignEvent } from '../../campaign/lifecycle.ts';
import { type Db, queryRows } from '../../db/database.ts';
import { CampaignStatus, campaigns } from '../../db/schema.ts';

export type CampaignRow = typeof campaigns.$inferSelect;

/**
 * The START campaign `id`, locked `for no key update skip locked` (engines sharing a PostgreSQL
 * take turns on it, while outcomes — whose CDRs reference the campaign — go on being written).
 */
export async function lockStartCampaign(tx: Db, id: number): Promise<CampaignRow | undefined> {
  const [c] = await tx
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.id, id), eq(campaigns.status, CampaignStatus.Start)))
    .for('no key update', { skipLocked: true });
  return c;
}

/** The ids of the START campaigns of the kind, in id order. */
export function startCampaignIds(db: Db, kind: CampaignKind): Promise<{ id: number }[]> {
  return queryRows<{ id: number }>(db, sql`select id from ${kind.tables.campaigns} where status = ${CampaignStatus.Start} order by id`);
}

/**
 * END: the kind's campaigns past their expiration, and end_when_done ones with every subscriber
 * final, each with its campaign.ended event (why: expired or done); returns their ids.
 */
export function endDueCampaigns(db: Db, kind: CampaignKind, now: string): Promise<{ id: number }[]> {
  const t = kind.tables;
  const S = kind.subscriberStatuses;
  return queryRows<{ id: number }>(
    db,
    sql`with ended as (
          update ${t.campaigns} c set status = ${CampaignStatus.End}, ended_date = ${now}::timestamptz, updated_date = now(),
            engine_state = case when c.expirationdate < ${now}::timestamptz then 'finished (expired)' else 'finished (every subscriber done)' end
          where c.status = ${CampaignStatus.Start} and (c.expirationdate < ${now}::timestamptz or (c.end_when_done and not exists (
            select 1 from ${t.subscribers} s where s.${t.campaignColumn} = c.id and s.status in (${S.pending}, ${S.pause}, ${S.in_process}))))
          returning c.id, c.user_id, c.name, c.status, c.expirationdate < ${now}::timestamptz as expired
        ), written as (
          ${insertEventsSql(sql`select 'campaign.ended', e.user_id, e.id,
            ${campaignEventDataSql(kind.resource, kind.name, 'e', sql`, 'why', case when e.expired then 'expired' else 'done' end`)}
          from ended e`)}
        )
        select id from ended`,
  );
}

/** Which of the campaigns `ids` are ABORT. */
export function abortedCampaignIds(db: Db, ids: number[]): Promise<{ id: number }[]> {
  return queryRows<{ id: number }>(
    db,
    sql`select id from campaigns where status = ${CampaignStatus.Abort} and id in (${sql.join(ids.map((i) => sql`${i}`), sql`, `)})`,
  );
}

/** Writes engine_state when it changed (a voice or SMS campaign read shows it as `dialing_state`), and the pace. */
export async function noteState(
  tx: Db,
  table: 'campaigns' | 'sms_campaigns',
  c: { id: number; engine_state: string | null },
  state: string,
  nextCallAt?: string,
): Promise<void> {
  if (c.engine_state === state && nextCallAt === undefined) return;
  await tx.execute(sql`update ${sql.identifier(table)} set engine_state = ${state},
      next_call_at = coalesce(${nextCallAt ?? null}::timestamptz, next_call_at) where id = ${c.id}`);
}

/**
 * A campaign that cannot dial or send now (credit, hours, gateway …): its engine_state, and a
 * campaign.waiting event when the reason is new.
 */
export async function noteWaiting(
  tx: Db,
  kind: CampaignKind,
  c: { id: number; user_id: number; name: string; status: number; engine_state: string | null },
  reason: string,
): Promise<void> {
  if (c.engine_state !== reason) await appendEvents(tx, [campaignEvent(kind, c, EventType.CampaignWaiting, { why: reason })]);
  await noteState(tx, kind.name === 'voice' ? 'campaigns' : 'sms_campaigns', c, reason);
}
