/**
 * The voice campaigns' subscribers as the engine moves them: claimed ones on a do-not-call list
 * (NOT_AUTHORIZED), claimed ones IN_PROCESS, ABORT for
 * aborted campaigns, and IN_PROCESS ones with no call in flight back to PENDING (recover.ts).
 * The claim's pick of due subscribers: due-subscribers.ts (shared with SMS); their settling after
 * their calls: settle-subscribers.ts.
 */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';
import { CallRequestStatus, CampaignStatus, SubscriberStatus, subscribers } from '../../db/schema.ts';
import { doNotCallSql } from '../../campaign/dnc.ts';
import { subscriberFinalEventsSql } from '../../campaign/events.ts';
import { voiceKind } from '../../campaign/kinds.ts';
import { idArray } from '../../db/sql.ts';

export type SubscriberRow = typeof subscribers.$inferSelect;

/** subscriber.final events (issue 14) for the voice subscribers of `alias` that reached a final status. */
const finalEvents = (alias: string) => subscriberFinalEventsSql(voiceKind, alias);

/** Marks the subscribers `ids` on a DNC list (the owner's, the campaign's) NOT_AUTHORIZED (7); returns those hit. */
export function markDoNotCall(tx: Db, ids: number[], userId: number, dncId: number | null): Promise<{ id: number }[]> {
  return queryRows<{ id: number }>(
    tx,
    sql`with hit as (
          update subscribers s set status = ${SubscriberStatus.NotAuthorized}, reason = 'on a do-not-call list', updated_date = now()
          where s.id = any(${idArray(ids)}) and ${doNotCallSql(sql`s.phone_key`, userId, dncId)}
          returning s.id, s.campaign_id, s.status, s.reason, s.duplicate_contact, ${userId}::int as user_id
        ), written as (${finalEvents('hit')})
        select id from hit`,
  );
}

/** Marks the subscribers `ids` IN_PROCESS with one more attempt at `now`; returns their rows. */
export function markInProcess(tx: Db, ids: number[], now: string): Promise<SubscriberRow[]> {
  return tx
    .update(subscribers)
    .set({ status: SubscriberStatus.InProcess, count_attempt: sql`${subscribers.count_attempt} + 1`, last_attempt: now, updated_date: now })
    .where(sql`${subscribers.id} = any(${idArray(ids)})`)
    .returning();
}

/** ABORT: the pending subscribers of aborted campaigns, each with its subscriber.final event; returns those changed. */
export function abortPendingSubscribers(db: Db): Promise<{ id: number }[]> {
  return queryRows<{ id: number }>(
    db,
    sql`with aborted as (
          update subscribers s set status = ${SubscriberStatus.Abort}, reason = 'campaign aborted', updated_date = now()
          from campaigns c where c.id = s.campaign_id and c.status = ${CampaignStatus.Abort}
            and s.status in (${SubscriberStatus.Pending}, ${SubscriberStatus.Pause})
          returning s.id, s.campaign_id, s.status, s.reason, s.duplicate_contact, c.user_id
        ), written as (${finalEvents('aborted')})
        select id from aborted`,
  );
}

/**
 * A subscriber IN_PROCESS with no CALLING callrequest (crash between writes is impossible —
 * they share a transaction — but a hand-edited row is not): back to PENDING. Looked up per
 * campaign, so the (campaign_id, status) index answers it instead of a scan of every subscriber.
 */
export async function releaseStrandedSubscribers(db: Db): Promise<void> {
  await db.execute(sql`update subscribers s set status = ${SubscriberStatus.Pending}
    where s.campaign_id in (select id from campaigns) and s.status = ${SubscriberStatus.InProcess}
      and not exists (select 1 from callrequests r
      where r.subscriber_id = s.id and r.status = ${CallRequestStatus.Calling})`);
}
