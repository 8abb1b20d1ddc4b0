/**
 * The claim's pick, one implementation for both kinds (voice `subscribers`, SMS
 * `sms_subscribers`): a campaign's PENDING subscribers whose next attempt is due, locked
 * `for update skip locked` (engines sharing a PostgreSQL never claim the same one), due retries
 * first (oldest due first), then new ones by id. Voice campaigns dialling by the subscribers'
 * own time zones add a window filter; SMS campaigns have none.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';
import { SmsSubscriberStatus, SubscriberStatus } from '../../db/schema.ts';

/** The subscriber table of each kind, its campaign column, and its PENDING status. */
const tables = {
  voice: { from: sql.raw('subscribers s'), campaign: sql.raw('s.campaign_id'), pending: SubscriberStatus.Pending },
  sms: { from: sql.raw('sms_subscribers s'), campaign: sql.raw('s.sms_campaign_id'), pending: SmsSubscriberStatus.Pending },
};

export type SubscriberKind = keyof typeof tables;

/** One statement: up to `n` due subscribers of one group (`extra`), in `order`, locked. */
function pickDue(tx: Db, kind: SubscriberKind, campaignId: number, now: string, extra: SQL, order: SQL, n: number, window?: SQL) {
  const t = tables[kind];
  const inWindow = window ? sql` and ${window}` : sql``;
  return queryRows<{ id: number }>(
    tx,
    sql`select s.id from ${t.from} where ${t.campaign} = ${campaignId} and s.status = ${t.pending}
          and s.next_attempt_at <= ${now}::timestamptz and ${extra}${inWindow}
          order by ${order} limit ${n} for update skip locked`,
  );
}

/** Claims (locks) up to `limit` due subscribers of a campaign: due retries first, then new ones by id. */
export async function claimDueSubscribers(tx: Db, kind: SubscriberKind, campaignId: number, now: string, limit: number, window?: SQL): Promise<number[]> {
  const retries = await pickDue(tx, kind, campaignId, now, sql`s.count_attempt > 0`, sql`s.next_attempt_at, s.id`, limit, window);
  const fresh = retries.length < limit ? await pickDue(tx, kind, campaignId, now, sql`s.count_attempt = 0`, sql`s.id`, limit - retries.length, window) : [];
  return [...retries, ...fresh].map((r) => Number(r.id));
}
