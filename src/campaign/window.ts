/**
 * When a campaign may dial (contract §5): status START, startingdate ≤ now ≤ expirationdate,
 * today's weekday on, time of day inside daily_start_time..daily_stop_time (a window may cross
 * midnight: 22:00–06:00). The time of day is read in the instance TIME_ZONE, or, with
 * `timezone_dialing`, in each subscriber's zone — then the filter is SQL (`subscriberWindowSql`)
 * so that the claim query picks only subscribers whose local time is inside the window.
 * With a window crossing midnight, the weekday that counts is the local day of the call.
 */
import { type SQL, sql } from 'drizzle-orm';

export interface WindowFields {
  startingdate: string | null;
  expirationdate: string | null;
  daily_start_time: string;
  daily_stop_time: string;
  monday: boolean;
  tuesday: boolean;
  wednesday: boolean;
  thursday: boolean;
  friday: boolean;
  saturday: boolean;
  sunday: boolean;
}

/** ISO weekday (1 Monday … 7 Sunday) → the campaign column that turns it on. */
const weekdayColumns = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

/** The ISO weekdays the campaign dials on. */
export function enabledWeekdays(c: WindowFields): number[] {
  return weekdayColumns.flatMap((name, i) => (c[name] ? [i + 1] : []));
}

/** Local ISO weekday and "HH:MM:SS" of `now` in `timeZone`. */
export function localTime(now: Date, timeZone: string): { isoWeekday: number; time: string } {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(now);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const isoWeekday = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(part('weekday')) + 1;
  return { isoWeekday, time: `${part('hour')}:${part('minute')}:${part('second')}` };
}

/** Whether "HH:MM:SS" is inside start..stop, a window that may cross midnight. */
export function insideDailyWindow(time: string, start: string, stop: string): boolean {
  const [t, a, b] = [time, start, stop].map((s) => s.slice(0, 8).padEnd(8, ':00'));
  return a <= b ? t >= a && t <= b : t >= a || t <= b;
}

/** Why the campaign may not dial now by its dates ('' = dates allow it). */
export function datesBlock(c: WindowFields, now: Date): '' | 'not started yet' | 'expired' {
  if (c.startingdate && now < new Date(c.startingdate)) return 'not started yet';
  if (c.expirationdate && now > new Date(c.expirationdate)) return 'expired';
  return '';
}

/** Why the campaign may not dial now in `timeZone` ('' = it may). */
export function windowBlock(c: WindowFields, now: Date, timeZone: string): string {
  const dates = datesBlock(c, now);
  if (dates) return dates;
  const local = localTime(now, timeZone);
  if (!enabledWeekdays(c).includes(local.isoWeekday)) return 'outside hours (weekday off)';
  if (!insideDailyWindow(local.time, c.daily_start_time, c.daily_stop_time)) return 'outside hours';
  return '';
}

/**
 * SQL condition on `s` (subscribers): the subscriber's local time (tz_code, else gmt_offset,
 * else the instance zone) is on an enabled weekday and inside the daily window.
 */
export function subscriberWindowSql(c: WindowFields, now: Date, instanceZone: string): SQL {
  const local = subscriberLocalSql(sql`${now.toISOString()}::timestamptz`, instanceZone);
  const days = enabledWeekdays(c);
  const dayOk = days.length ? sql`extract(isodow from ${local})::int in (${sql.join(days.map((d) => sql`${d}`), sql`, `)})` : sql`false`;
  const start = sql`${c.daily_start_time}::time`;
  const stop = sql`${c.daily_stop_time}::time`;
  const inside =
    c.daily_start_time <= c.daily_stop_time
      ? sql`(${local})::time between ${start} and ${stop}`
      : sql`((${local})::time >= ${start} or (${local})::time <= ${stop})`;
  return sql`(${dayOk} and ${inside})`;
}

/** SQL: the local time (timestamp without zone) of the subscriber `s` at `at`: tz_code, else gmt_offset, else the instance zone. */
export function subscriberLocalSql(at: SQL, instanceZone: string): SQL {
  return sql`(case when s.tz_code <> '' then (${at} at time zone s.tz_code)
    when s.gmt_offset is not null then (${at} at time zone 'UTC') + s.gmt_offset * interval '1 hour'
    else (${at} at time zone ${instanceZone}) end)`;
}
