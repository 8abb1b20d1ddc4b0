/**
 * The SMS campaigns' subscribers as the engine moves them: the claimed rows, claimed ones on a
 * do-not-call list (NOT_AUTHORIZED), claimed ones IN_PROCESS, ABORT for aborted campaigns, and
 * IN_PROCESS ones with no message in flight back to PENDING (recover.ts). The claim's pick of
 * due subscribers: due-subscribers.ts (shared with voice); settling after a send: sms-messages.ts.
 */
import { inArray, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';
import { CampaignStatus, SmsSubscriberStatus, smsSubscribers } from '../../db/schema.ts';
import { doNotCallSql } from '../../campaign/dnc.ts';
import { subscriberFinalEventsSql } from '../../campaign/events.ts';
import { smsKind } from '../../campaign/kinds.ts';

export type SmsSubscriberRow = typeof smsSubscribers.$inferSelect;

const S = SmsSubscriberStatus;

/** subscriber.final events (issue 14) for the SMS subscribers of `alias` that reached a final status. */
export const finalEvents = (alias: string) => subscriberFinalEventsSql(smsKind, alias);
/** What finalEvents reads of a changed `sms_subscribers s` row (with its owner's user_id beside). */
export const finalColumns = sql`s.id, s.sms_campaign_id as campaign_id, s.status, s.reason, s.duplicate_contact`;

/** The rows of the subscribers `ids` (any order). */
export function smsSubscribersByIds(tx: Db, ids: number[]): Promise<SmsSubscriberRow[]> {
  return tx.select().from(smsSubscribers).where(inArray(smsSubscribers.id, ids));
}

/**
 * Marks the subscribers `ids` on a DNC list NOT_AUTHORIZED (7); returns those hit. SMS campaigns
 * have no list of their own: the owner's global lists and the admins' apply.
 */
export function markSmsDoNotCall(tx: Db, ids: number[], userId: number): Promise<{ id: number }[]> {
  return queryRows<{ id: number }>(
    tx,
    sql`with hit as (
          update sms_subscribers s set status = ${S.NotAuthorized}, reason = 'on a do-not-call list', updated_date = now()
          where s.id in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)}) and ${doNotCallSql(sql`s.phone_key`, userId, null)}
          returning ${finalColumns}, ${userId}::int as user_id
        ), written as (${finalEvents('hit')})
        select id from hit`,
  );
}

/** Marks the subscribers `ids` IN_PROCESS with one more attempt at `now`. */
export async function markSmsInProcess(tx: Db, ids: number[], now: string): Promise<void> {
  await tx
    .update(smsSubscribers)
    .set({ status: S.InProcess, count_attempt: sql`${smsSubscribers.count_attempt} + 1`, last_attempt: now, updated_date: now })
    .where(inArray(smsSubscribers.id, ids));
}

/** ABORT: the pending subscribers of aborted SMS campaigns, each with its subscriber.final event; returns those changed. */
export function abortPendingSmsSubscribers(db: Db): Promise<{ id: number }[]> {
  return queryRows<{ id: number }>(
    db,
    sql`with aborted as (
          update sms_subscribers s set status = ${S.Abort}, reason = 'campaign aborted', updated_date = now()
          from sms_campaigns c where c.id = s.sms_campaign_id and c.status = ${CampaignStatus.Abort}
            and s.status in (${S.Pending}, ${S.Pause})
          returning ${finalColumns}, c.user_id
        ), written as (${finalEvents('aborted')})
        select id from aborted`,
  );
}

/** A subscriber of a START or PAUSE campaign IN_PROCESS without a message in flight (a hand-edited row): back to PENDING. */
export async function releaseStrandedSmsSubscribers(db: Db): Promise<void> {
  await db.execute(sql`update sms_subscribers s set status = ${S.Pending}
    where s.sms_campaign_id in (select id from sms_campaigns where status in (${CampaignStatus.Start}, ${CampaignStatus.Pause}))
      and s.status = ${S.InProcess} and not exists (select 1 from sms_messages m
      where m.sms_subscriber_id = s.id and m.engine_id <> '')`);
}
