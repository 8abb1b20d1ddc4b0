/** The SQL of recycling (recycle.routes.ts): one set-based UPDATE per kind on the (campaign, status) index. */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';
import { SmsSubscriberStatus, SubscriberStatus } from '../../db/schema.ts';
import { intArray } from '../../db/sql.ts';

export interface RecycleFilter {
  statuses: number[];
  /** Voice: the disposition of the last call; SMS: the status of the last message (null: any). */
  outcomes: string[] | null;
  lastAttemptBefore: string | null;
}

/** The filter's words (dispositions, message statuses: checked against fixed lists, no commas) as one text[] parameter. */
const textList = (list: string[]) => sql`${`{${list.join(',')}}`}::text[]`;

/** `last_attempt_before`, the same for both kinds. */
const lastAttemptBefore = (f: RecycleFilter) => (f.lastAttemptBefore ? sql`and s.last_attempt < ${f.lastAttemptBefore}::timestamptz` : sql``);

/** Runs the UPDATE … RETURNING 1 and answers how many rows it changed. */
async function countUpdated(tx: Db, update: SQL): Promise<number> {
  const [row] = await queryRows<{ n: number }>(tx, sql`with recycled as (${update}) select count(*)::int as n from recycled`);
  return Number(row?.n ?? 0);
}

/**
 * Returns the voice campaign's matching subscribers to PENDING with their attempts (and
 * completion callbacks) reset, due at once — or at their `scheduled_at`, if later; answers how many.
 */
export function recycleSubscribers(tx: Db, campaignId: number, f: RecycleFilter): Promise<number> {
  const byDisposition = f.outcomes ? sql`and s.last_disposition = any(${textList(f.outcomes)})` : sql``;
  return countUpdated(
    tx,
    sql`update subscribers s set status = ${SubscriberStatus.Pending}, count_attempt = 0, completion_attempt = 0, reason = '',
          updated_date = now(),
          -- "at once" is no later than when it was last due (engines may run on a test clock)
          next_attempt_at = greatest(least(s.next_attempt_at, now()), s.scheduled_at)
        where s.campaign_id = ${campaignId} and s.status = any(${intArray(f.statuses)}) ${byDisposition} ${lastAttemptBefore(f)}
        returning 1`,
  );
}

/**
 * Returns the SMS campaign's matching subscribers to PENDING with their attempts reset, due at
 * once; answers how many. The status of a subscriber's last message is its newest row in
 * sms_messages (the subscriber index): a COMPLETE one whose delivery report failed is found by it.
 */
export function recycleSmsSubscribers(tx: Db, campaignId: number, f: RecycleFilter): Promise<number> {
  const byMessage = f.outcomes
    ? sql`and (select m.status from sms_messages m where m.sms_subscriber_id = s.id order by m.id desc limit 1) = any(${textList(f.outcomes)})`
    : sql``;
  return countUpdated(
    tx,
    sql`update sms_subscribers s set status = ${SmsSubscriberStatus.Pending}, count_attempt = 0, reason = '', updated_date = now(),
          -- at once: a failure leaves it due intervalretry later; no later than its last send (a test clock)
          next_attempt_at = least(s.next_attempt_at, s.last_attempt, now())
        where s.sms_campaign_id = ${campaignId} and s.status = any(${intArray(f.statuses)}) ${byMessage} ${lastAttemptBefore(f)}
        returning 1`,
  );
}
