/**
 * The SMS campaigns as the engine reads and moves them: the claim's row lock, the START list a
 * pass walks, END for the campaigns whose time is up. (Their engine_state: campaigns.ts noteState.)
 */
import { and, eq, sql } from 'drizzle-orm';
import { campaignEventDataSql } from '../../campaign/events.ts';
import { type Db, queryRows } from '../../db/database.ts';
import { CampaignStatus, SmsSubscriberStatus, smsCampaigns } from '../../db/schema.ts';

export type SmsCampaignRow = typeof smsCampaigns.$inferSelect;

/** The START SMS campaign `id`, locked `for update skip locked`. */
export async function lockStartSmsCampaign(tx: Db, id: number): Promise<SmsCampaignRow | undefined> {
  const [c] = await tx
    .select()
    .from(smsCampaigns)
    .where(and(eq(smsCampaigns.id, id), eq(smsCampaigns.status, CampaignStatus.Start)))
    .for('update', { skipLocked: true });
  return c;
}

/** The ids of the START SMS campaigns, in id order. */
export function startSmsCampaignIds(db: Db): Promise<{ id: number }[]> {
  return queryRows<{ id: number }>(db, sql`select id from sms_campaigns where status = ${CampaignStatus.Start} order by id`);
}

/** END: SMS campaigns past their expiration, and end_when_done ones with every subscriber final; returns their ids. */
export function endDueSmsCampaigns(db: Db, now: string): Promise<{ id: number }[]> {
  const S = SmsSubscriberStatus;
  return queryRows<{ id: number }>(
    db,
    sql`with ended as (
          update sms_campaigns c set status = ${CampaignStatus.End}, ended_date = ${now}::timestamptz, updated_date = now(),
            engine_state = case when c.expirationdate < ${now}::timestamptz then 'finished (expired)' else 'finished (every subscriber done)' end
          where c.status = ${CampaignStatus.Start} and (c.expirationdate < ${now}::timestamptz or (c.end_when_done and not exists (
            select 1 from sms_subscribers s where s.sms_campaign_id = c.id and s.status in (${S.Pending}, ${S.Pause}, ${S.InProcess}))))
          returning c.id, c.user_id, c.name, c.status, c.expirationdate < ${now}::timestamptz as expired
        ), written as (
          insert into events (type, user_id, campaign_id, data)
          select 'campaign.ended', e.user_id, e.id,
            ${campaignEventDataSql('sms-campaigns', 'sms', 'e', sql`, 'why', case when e.expired then 'expired' else 'done' end`)}
          from ended e
        )
        select id from ended`,
  );
}
