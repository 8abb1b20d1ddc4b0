/** The SQL of recycling (recycle.routes.ts): one set-based UPDATE on the (campaign_id, status) index. */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';
import { SubscriberStatus } from '../../db/schema.ts';

export interface RecycleFilter {
  statuses: number[];
  dispositions: string[] | null;
  lastAttemptBefore: string | null;
}

/**
 * Returns the campaign's matching subscribers to PENDING with their attempts (and completion
 * callbacks) reset, due at once — or at their `scheduled_at`, if later; answers how many.
 */
export async function recycleSubscribers(tx: Db, campaignId: number, f: RecycleFilter): Promise<number> {
  const byDisposition = f.dispositions ? sql`and s.last_disposition = any(${`{${f.dispositions.join(',')}}`}::text[])` : sql``;
  const before = f.lastAttemptBefore ? sql`and s.last_attempt < ${f.lastAttemptBefore}::timestamptz` : sql``;
  const [row] = await queryRows<{ n: number }>(
    tx,
    sql`with recycled as (
          update subscribers s set status = ${SubscriberStatus.Pending}, count_attempt = 0, completion_attempt = 0, reason = '',
            updated_date = now(),
            -- "at once" is no later than when it was last due (engines may run on a test clock)
            next_attempt_at = greatest(least(s.next_attempt_at, now()), s.scheduled_at)
          where s.campaign_id = ${campaignId} and s.status = any(${`{${f.statuses.join(',')}}`}::int[]) ${byDisposition} ${before}
          returning 1
        ) select count(*)::int as n from recycled`,
  );
  return Number(row?.n ?? 0);
}
