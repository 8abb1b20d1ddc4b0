/**
 * A campaign's caller id group: the numbers it may show, with their use today (the rotation of
 * callerid-rotation.ts). The claim locks the group's usable numbers and counts the calls it gives
 * them (one statement per batch); the outcome counts their ended and answered calls and rests a
 * number under its group's answer-rate floor for a day (one statement per batch too).
 */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';
import { json } from '../../db/sql.ts';

/** A number of the group that may be used now, with its calls today and its group's cap. */
export interface UsableCallerId {
  id: number;
  areacode: string;
  callerid_num: string;
  calls_today: number;
  daily_cap: number | null;
}

/**
 * The group's numbers not resting at `now`, with their calls on `day` (a counter of another day
 * reads 0). Locked (`for no key update`): campaigns sharing a group, on engines sharing a
 * database, count their calls one after the other.
 */
export function usableCallerIds(tx: Db, groupId: number, day: string, now: string): Promise<UsableCallerId[]> {
  return queryRows<UsableCallerId>(
    tx,
    sql`select c.id, c.areacode, c.callerid_num, g.daily_cap,
          (case when c.usage_day = ${day}::date then c.calls_today else 0 end)::int as calls_today
        from callerids c join callerid_groups g on g.id = c.callerid_group_id
        where c.callerid_group_id = ${groupId} and (c.resting_until is null or c.resting_until <= ${now}::timestamptz)
        order by c.id
        for no key update of c`,
  );
}

/** Adds the calls each number was given on `day` (a new day starts its counters at 0). */
export async function countCallerIdCalls(tx: Db, day: string, uses: { id: number; n: number }[]): Promise<void> {
  if (!uses.length) return;
  await tx.execute(sql`update callerids c set
      calls_today = (case when c.usage_day = ${day}::date then c.calls_today else 0 end) + u.n,
      ended_today = case when c.usage_day = ${day}::date then c.ended_today else 0 end,
      answered_today = case when c.usage_day = ${day}::date then c.answered_today else 0 end,
      usage_day = ${day}::date,
      calls_total = c.calls_total + u.n
    from jsonb_to_recordset(${json(uses)}) as u(id int, n int)
    where c.id = u.id`);
}

/**
 * Counts ended calls on the numbers they showed (`id`: the caller id; `answered`; `ended`: when
 * the call ended); a number that has ended its group's answer_rate_min_calls today with an answer
 * rate under min_answer_rate rests until a day after its last call ended.
 */
export async function countCallerIdOutcomes(tx: Db, calls: { id: number; answered: boolean; ended: string }[]): Promise<void> {
  if (!calls.length) return;
  await tx.execute(sql`with used as (
      select v.id, count(*)::int as ended, count(*) filter (where v.answered)::int as answered, max(v.ended) as last_end
      from jsonb_to_recordset(${json(calls)}) as v(id int, answered boolean, ended timestamptz)
      group by v.id)
    update callerids c set
      ended_today = c.ended_today + u.ended,
      answered_today = c.answered_today + u.answered,
      answered_total = c.answered_total + u.answered,
      resting_until = case
        when g.min_answer_rate is not null and c.ended_today + u.ended >= g.answer_rate_min_calls
          and c.answered_today + u.answered < g.min_answer_rate * (c.ended_today + u.ended)
        then u.last_end + interval '1 day' else c.resting_until end
    from used u, callerid_groups g
    where c.id = u.id and g.id = c.callerid_group_id`);
}
