/**
 * Campaign dates in requests (contract §1): `YYYY-MM-DD HH:MM:SS` or ISO 8601; a value without
 * an offset is a wall-clock time in the instance time zone (TIME_ZONE). Accepted from 1970 to
 * 9999 (UTC), where JavaScript, ISO 8601 text and PostgreSQL's timestamptz all agree, and an
 * expiration never before the start.
 */
import { invalid } from '../../http/errors.ts';
import { isoTime } from '../../http/present.ts';

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
  // Not Date.UTC(year, …): it reads years 0–99 as 1900–1999 ("0001-01-01" became 1901).
  const wall = new Date(0).setUTCFullYear(year, month - 1, day) + ((hour * 60 + minute) * 60 + second) * 1000 + millis;
  if (new Date(wall).getUTCDate() !== day) return undefined; // 2026-02-30
  if (!m[8]) return zonedToUtc(wall, timeZone);
  if (m[8].toUpperCase() === 'Z') return new Date(wall);
  const sign = m[8].startsWith('-') ? -1 : 1;
  const digits = m[8].replace(/[^\d]/g, '');
  const offsetMs = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  return new Date(wall - offsetMs);
}

const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
export const DATE_FORMAT_MESSAGE = 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DD HH:MM:SS, ISO 8601.';
export const DATE_RANGE_MESSAGE = 'Datetime must be between 1970-01-01 00:00:00 and 9999-12-31 23:59:59 UTC.';

/** A date of a request (a campaign's, a CDR filter's): the instant, or the message of its 400. */
export function readCampaignDate(text: string, timeZone: string): Date | string {
  const date = parseCampaignDate(text, timeZone);
  if (!date) return DATE_FORMAT_MESSAGE;
  const ms = date.getTime();
  return ms >= EARLIEST && ms <= LATEST ? date : DATE_RANGE_MESSAGE;
}

interface CampaignDates {
  startingdate?: string | null;
  expirationdate?: string | null;
}

/**
 * 400 `{"expirationdate": [...]}` when the expiration is before the start, each taken from the
 * request (`next`) or, on an update that sets only one of them, from the record (`current`).
 */
export function checkDateOrder(next: CampaignDates, current: CampaignDates = {}): void {
  const start = next.startingdate !== undefined ? next.startingdate : current.startingdate;
  const end = next.expirationdate !== undefined ? next.expirationdate : current.expirationdate;
  if (!start || !end) return;
  if (Date.parse(isoTime(end) as string) < Date.parse(isoTime(start) as string)) {
    throw invalid({ expirationdate: ['The expiration date must not be before the starting date (startingdate).'] });
  }
}
