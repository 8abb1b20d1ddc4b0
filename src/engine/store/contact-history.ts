/**
 * The SQL of the contact caps and legal calling hours (issue 16, items 3–4; the rules:
 * src/campaign/contact-policy.ts, the gate: ../contact-gate.ts). A number's attempts are its
 * callrequests (CALLING ones included: a call in flight is an attempt), found by the number's
 * key through callrequests_key_time_idx (migration 0029); a conversation is a SUCCESS callrequest whose
 * A-leg CDR no answering machine took.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';
import { AmdStatus, CallRequestStatus, LegType } from '../../db/schema.ts';
import type { CallingHours, ContactCaps } from '../../campaign/contact-policy.ts';
import { subscriberLocalSql } from '../../campaign/window.ts';
import { idArray } from '../../db/sql.ts';

/**
 * THE one place where a callrequest's number is matched to a subscriber's (`key`, an expression
 * of collation "C"): by their keys (contract §1: E.164 digits in the owner's country), so
 * `2035550101` and `+1 (203) 555-0101` are one number to the caps, through the index on
 * (phone_key, call_time).
 */
export function sameNumberSql(callrequest: string, key: SQL): SQL {
  return sql`${sql.raw(callrequest)}.phone_key = ${key}`;
}

const days = (n: number) => sql`make_interval(days => ${n}::int)`;

/**
 * Columns a, d, q (timestamptz or null) of one scope's caps for the subscriber `s`: when the
 * attempts cap, the daily cap and the quiet period let the number be called again. `ownerId`
 * limits the history to that owner's campaigns; undefined counts every campaign.
 */
function capsLateral(caps: ContactCaps, at: SQL, ownerId: number | undefined): SQL {
  const nth = (n: number | null, span: SQL) =>
    n === null ? sql`null::timestamptz` : sql`(array_agg(r.call_time order by r.call_time desc) filter (where r.call_time > ${at} - ${span}))[${n}::int] + ${span}`;
  const quiet =
    caps.quiet_days === null
      ? sql`null::timestamptz`
      : // A conversation: the call's own flag (migration 0034); calls settled before it read their CDR (coalesce stops at the flag).
        sql`max(r.call_time) filter (where r.status = ${CallRequestStatus.Success} and coalesce(r.conversation, not exists (select 1 from cdrs d
          where d.callrequest_id = r.id and d.leg_type = ${LegType.A} and d.amd_status = ${AmdStatus.Machine}))) + ${days(caps.quiet_days)}`;
  const span = Math.max(caps.window_days ?? 1, caps.quiet_days ?? 1, 1);
  // A scalar subquery, not EXISTS: the planner would flatten EXISTS into a loop over every
  // campaign of the owner (a bitmap scan each); this reads the number's few rows first.
  const owner = ownerId === undefined ? sql`` : sql` and (select k.user_id from campaigns k where k.id = r.campaign_id) = ${ownerId}`;
  return sql`select ${nth(caps.attempts, caps.window_days === null ? days(1) : days(caps.window_days))} as a,
      ${nth(caps.daily, sql`interval '1 day'`)} as d, ${quiet} as q
    from callrequests r
    where ${sameNumberSql('r', sql`s.phone_key`)} and r.call_time > ${at} - ${days(span)}${owner}`;
}

/** When the subscriber `s`, outside the hours now, may be called (its next local start); null inside them. */
function hoursUntil(hours: CallingHours | 'never', at: SQL): SQL {
  if (hours === 'never') return sql`${at} + interval '1 day'`;
  const lt = sql`z.lt`; // the local time of day, worked out once per subscriber (holdSql's lateral z)
  const start = sql`${hours.start}::time`;
  const end = sql`${hours.end === '24:00' ? '24:00:00' : hours.end}::time`;
  // Measured from now: a DST change on the way makes it up to an hour early (the gate holds it
  // again) or late, never inside forbidden hours.
  return sql`case when ${lt} >= ${start} and ${lt} < ${end} then null::timestamptz
    when ${lt} < ${start} then ${at} + (${start} - ${lt})
    else ${at} + (interval '24 hours' - (${lt} - ${start})) end`;
}

export interface GatePolicy {
  ownerId: number;
  ownerCaps: ContactCaps | null;
  instanceCaps: ContactCaps | null;
  hours: CallingHours | null | 'never';
  instanceZone: string;
}

/**
 * Of the claimed subscribers `ids` (locked), those a cap or the hours hold now: each stays
 * PENDING, its next_attempt_at moved to when it is allowed (the latest of what holds it) and
 * its wait_reason set; the others' wait_reason is cleared. One statement; returns the held ids.
 */
export async function holdSubscribers(tx: Db, ids: number[], now: string, p: GatePolicy): Promise<number[]> {
  const statement = holdSql(ids, now, p);
  if (!statement) return [];
  const rows = await queryRows<{ id: number }>(tx, statement);
  return rows.map((r) => Number(r.id));
}

/** The statement of holdSubscribers (exported for EXPLAIN); undefined when no rule is on. */
export function holdSql(ids: number[], now: string, p: GatePolicy): SQL | undefined {
  const at = sql`${now}::timestamptz`;
  const joins: SQL[] = [];
  const candidates: SQL[] = [];
  for (const [alias, caps, owner] of [['o', p.ownerCaps, p.ownerId], ['i', p.instanceCaps, undefined]] as const) {
    if (!caps) continue;
    joins.push(sql` left join lateral (${capsLateral(caps, at, owner)}) ${sql.raw(alias)} on true`);
    for (const [col, reason] of [['a', 'attempts'], ['d', 'daily'], ['q', 'quiet']]) candidates.push(sql`(${sql.raw(`${alias}.${col}`)}, ${reason})`);
  }
  if (p.hours) {
    joins.push(sql` cross join lateral (select (${subscriberLocalSql(at, p.instanceZone)})::time as lt) z`);
    candidates.push(sql`(${hoursUntil(p.hours, at)}, 'hours')`);
  }
  if (!candidates.length) return undefined;
  return sql`with g as (
          select s.id, s.wait_reason as was, hold.until, hold.reason
          from subscribers s${sql.join(joins, sql``)}
          left join lateral (select v.until, v.reason from (values ${sql.join(candidates, sql`, `)}) v(until, reason)
            where v.until > ${at} order by v.until desc limit 1) hold on true
          where s.id = any(${idArray(ids)})
        ), changed as (
          -- The ids again, so the update finds its rows by the primary key: joined with g alone, the
          -- planner inlined g and hash-joined a scan of the whole subscribers table (~9 ms a claim per
          -- 100,000 subscribers, all campaigns', growing with the table).
          update subscribers s set next_attempt_at = coalesce(g.until, s.next_attempt_at), wait_reason = g.reason
          from g where s.id = any(${idArray(ids)}) and s.id = g.id and (g.until is not null or g.was is not null)
          returning s.id, g.until
        )
        select id from changed where until is not null`;
}

/**
 * The owner's own caps and hours (users.contact_caps, calling_hours); in the same round trip,
 * JIT off for the rest of the claim's transaction: holdSubscribers' cost estimate (a guess per
 * number of its history) passes PostgreSQL's JIT thresholds, and compiling it took 2.4 s a
 * claim in bench:engine, for a statement that runs in ~20 ms.
 */
export async function ownerPolicy(tx: Db, userId: number): Promise<{ contact_caps: unknown; calling_hours: unknown } | undefined> {
  const [row] = await queryRows<{ contact_caps: unknown; calling_hours: unknown }>(
    tx,
    sql`select contact_caps, calling_hours, set_config('jit', 'off', true) as jit from users where id = ${userId}`,
  );
  return row;
}
