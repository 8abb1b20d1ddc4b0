/**
 * Campaign dates in requests (contract §1): `YYYY-MM-DD HH:MM:SS` or ISO 8601; a value without
 * an offset is a wall-clock time in the instance time zone (TIME_ZONE).
 */

/** The offset of `timeZone` at the instant `ms`, in milliseconds (east positive). */
function offsetAt(ms: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(ms));
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'));
  return wall - Math.floor(ms / 1000) * 1000;
}

/** The instant of a wall-clock time (as UTC fields in `wallMs`) in `timeZone`. */
export function zonedToUtc(wallMs: number, timeZone: string): Date {
  let guess = wallMs - offsetAt(wallMs, timeZone);
  // Once more at the guess: the offset may differ across a DST change.
  guess = wallMs - offsetAt(guess, timeZone);
  return new Date(guess);
}

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Parses a campaign date; returns the instant, or undefined when the text is not a date.
 * Without an offset the time is read in `timeZone`.
 */
export function parseCampaignDate(text: string, timeZone: string): Date | undefined {
  const m = DATE_TIME.exec(text.trim());
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((v) => Number(v ?? 0));
  const millis = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return undefined;
  const wall = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  if (new Date(wall).getUTCDate() !== day) return undefined; // 2026-02-30
  if (!m[8]) return zonedToUtc(wall, timeZone);
  if (m[8].toUpperCase() === 'Z') return new Date(wall);
  const sign = m[8].startsWith('-') ? -1 : 1;
  const digits = m[8].replace(/[^\d]/g, '');
  const offsetMs = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  return new Date(wall - offsetMs);
}
