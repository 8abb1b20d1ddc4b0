/**
 * The day a caller id's daily counters count (issue 16 item 5): the engine's rotation writes them
 * and the callerid resource reads them with the same day, so a counter of an earlier day reads 0.
 */

/** The calendar day of `now` in `timeZone` (TIME_ZONE), as YYYY-MM-DD. */
export function usageDay(now: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

/** A caller id's counters as read on `day`: today's are 0 unless they count that day. */
export function usageOn(
  row: { usage_day: string | null; calls_today: number; ended_today: number; answered_today: number },
  day: string,
): { calls_today: number; ended_today: number; answered_today: number } {
  const current = row.usage_day === day;
  return {
    calls_today: current ? row.calls_today : 0,
    ended_today: current ? row.ended_today : 0,
    answered_today: current ? row.answered_today : 0,
  };
}
