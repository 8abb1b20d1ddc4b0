/**
 * Recurring events (Newfies' Rule, after dateutil's rrule): once an event with a rule has
 * started, the engine makes its next occurrence — a new event whose `parent_event` is the first
 * one, start and end moved by the rule, with copies of its alarms armed again (their notice
 * moved by as much) — and marks the started one COMPLETED. Read from the rule: `frequency` and
 * the params `interval` (1) and `count` (occurrences in all, the first included); the series
 * also stops after `end_recurring_period`. Other rrule params (byweekday …) are not read. The
 * step is taken in UTC: a daily 10:00 in a zone with summer time moves by an hour across it.
 */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';
import { AlarmStatus, EventStatus } from '../../db/schema.ts';
import type { EngineContext } from '../context.ts';

/** The rule's params as numbers (`count:3;interval:2` → {count: 3, interval: 2}; lists keep their first value). */
export function ruleParams(params: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of params.split(';')) {
    const [name, values] = item.split(':');
    const first = Number((values ?? '').split(',')[0]);
    if (name && Number.isFinite(first)) out[name.trim()] = first;
  }
  return out;
}

/** The start of the occurrence after `start` (ISO) by `frequency` every `interval`; undefined for an unknown frequency. */
export function nextStart(start: string, frequency: string, interval: number): Date | undefined {
  const d = new Date(start);
  const n = Math.max(1, interval);
  const ms: Record<string, number> = { WEEKLY: 7 * 86_400_000, DAILY: 86_400_000, HOURLY: 3_600_000, MINUTELY: 60_000, SECONDLY: 1000 };
  if (frequency in ms) return new Date(d.getTime() + n * ms[frequency]);
  if (frequency === 'MONTHLY' || frequency === 'YEARLY') {
    const months = frequency === 'MONTHLY' ? n : 12 * n;
    const next = new Date(d);
    next.setUTCMonth(d.getUTCMonth() + months);
    // 31 January + 1 month is not 3 March: such a month has no occurrence, as in rrule; take the month's last day instead.
    if (next.getUTCDate() !== d.getUTCDate()) next.setUTCDate(0);
    return next;
  }
  return undefined;
}

interface Started {
  id: number;
  start: string;
  end: string;
  root: number;
  frequency: string;
  params: string;
  end_recurring_period: string | null;
  occurrences: number;
}

/** Makes the next occurrence of each recurring event that has started; returns how many were made. */
export async function spawnOccurrences(ctx: EngineContext): Promise<number> {
  const now = ctx.clock.now().toISOString();
  return ctx.db.transaction(async (tx) => {
    const started = await queryRows<Started>(
      tx,
      sql`select e.id, e.start::text as start, e."end"::text as "end", coalesce(e.parent_event_id, e.id) as root, r.frequency, r.params,
            e.end_recurring_period::text as end_recurring_period, root.occ_count as occurrences
          from calendar_events e join calendar_rules r on r.id = e.rule_id
          join calendar_events root on root.id = coalesce(e.parent_event_id, e.id)
          where e.status = ${EventStatus.Pending} and e.start <= ${now}::timestamptz
          order by e.id limit 100
          for update of e skip locked`,
    );
    let made = 0;
    for (const e of started) {
      const params = ruleParams(e.params);
      const next = nextStart(e.start, e.frequency, params.interval ?? 1);
      const more = next && (params.count === undefined || e.occurrences + 1 < params.count) && (!e.end_recurring_period || next <= new Date(e.end_recurring_period));
      if (next && more) {
        await copyEvent(tx, e, next.getTime() - new Date(e.start).getTime());
        made++;
      }
      await tx.execute(sql`update calendar_events set status = ${EventStatus.Completed} where id = ${e.id}`);
    }
    return made;
  });
}

/** The next occurrence of `e`, `shiftMs` later, with its alarms armed again; the first event counts it. */
async function copyEvent(tx: Db, e: Started, shiftMs: number): Promise<void> {
  const shift = sql`${shiftMs} * interval '1 millisecond'`;
  const [child] = await queryRows<{ id: number }>(
    tx,
    sql`insert into calendar_events (user_id, calendar_id, title, description, start, "end", creator_id, end_recurring_period, rule_id, data, status, parent_event_id)
        select user_id, calendar_id, title, description, start + ${shift}, "end" + ${shift}, creator_id, end_recurring_period, rule_id, data,
          ${EventStatus.Pending}, ${e.root}
        from calendar_events where id = ${e.id}
        returning id`,
  );
  await tx.execute(sql`insert into alarms (user_id, event_id, alarm_phonenumber, alarm_email, daily_start, daily_stop, advance_notice, maxretry,
        retry_delay, method, mail_template_id, sms_template_id, date_start_notice, status, url_cancel, url_confirm, phonenumber_transfer,
        phonenumber_sms_failure, next_attempt_at)
      select user_id, ${child.id}, alarm_phonenumber, alarm_email, daily_start, daily_stop, advance_notice, maxretry, retry_delay, method,
        mail_template_id, sms_template_id, date_start_notice + ${shift}, ${AlarmStatus.Pending}, url_cancel, url_confirm, phonenumber_transfer,
        phonenumber_sms_failure, date_start_notice + ${shift} - advance_notice * interval '1 second'
      from alarms where event_id = ${e.id} order by id`);
  await tx.execute(sql`update calendar_events set occ_count = occ_count + 1 where id = ${e.root}`);
}
