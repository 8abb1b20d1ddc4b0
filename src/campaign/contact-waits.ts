/**
 * Subscribers held by the contact caps or the legal calling hours (issue 16, items 3–4): PENDING
 * with a `wait_reason` (the engine's gate, src/engine/contact-gate.ts, sets it). The campaign
 * read counts them (`progress.waiting`, `dialing_state`); a change of the rules releases them.
 * Both read the partial index subscribers_waiting_idx (migration 0025), which holds only them.
 */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/database.ts';
import { SubscriberStatus } from '../db/schema.ts';
import { WaitReason, waitReasonText } from './contact-policy.ts';

/** `progress.waiting` of a voice campaign: PENDING subscribers held now, by reason, and their total. */
export interface WaitingCounts {
  total: number;
  attempts: number;
  daily: number;
  quiet: number;
  hours: number;
}

const none = (): WaitingCounts => ({ total: 0, attempts: 0, daily: 0, quiet: 0, hours: 0 });

/** Held subscribers of each campaign of `ids` (every id present). */
export async function waitingByCampaign(db: Db, ids: number[]): Promise<Map<number, WaitingCounts>> {
  const out = new Map(ids.map((id) => [id, none()]));
  if (!ids.length) return out;
  const rows = await queryRows<{ campaign_id: number; wait_reason: string; n: number }>(
    db,
    sql`select campaign_id, wait_reason, count(*)::int as n from subscribers
        where campaign_id in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)}) and wait_reason is not null
          and status = ${SubscriberStatus.Pending}
        group by 1, 2`,
  );
  for (const r of rows) {
    const counts = out.get(Number(r.campaign_id));
    if (!counts || !(Object.values(WaitReason) as string[]).includes(r.wait_reason)) continue;
    counts[r.wait_reason as WaitReason] += Number(r.n);
    counts.total += Number(r.n);
  }
  return out;
}

/** "waiting: 3 subscribers held (attempts cap 2, outside legal calling hours 1)", for `dialing_state`. */
export function waitingState(w: WaitingCounts): string {
  const parts = Object.values(WaitReason)
    .filter((r) => w[r] > 0)
    .map((r) => `${waitReasonText[r]} ${w[r]}`);
  return `waiting: ${w.total} subscriber${w.total === 1 ? '' : 's'} held (${parts.join(', ')})`;
}

/**
 * Held subscribers are looked at again at once (next_attempt_at now, wait_reason cleared): the
 * owner's (`userId`) after their rules changed, or all of them when an engine starts (the
 * instance's rules may have changed). A subscriber still held is held again at its next claim.
 * A held subscriber was due when it was held, so `now` is never before its retry time.
 */
export async function releaseHeldSubscribers(db: Db, now: string, userId?: number): Promise<number> {
  const owner = userId === undefined ? sql`` : sql` and s.campaign_id in (select id from campaigns where user_id = ${userId})`;
  const rows = await queryRows<{ id: number }>(
    db,
    sql`update subscribers s set wait_reason = null, next_attempt_at = least(s.next_attempt_at, ${now}::timestamptz)
        where s.wait_reason is not null${owner} returning s.id`,
  );
  return rows.length;
}
