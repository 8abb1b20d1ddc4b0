/**
 * Contact caps across campaigns and legal calling hours (issue 16, items 3 and 4): the rules
 * the API (an account's settings), the configuration (the instance-wide ones) and the engine
 * (the claim's gate, src/engine/contact-gate.ts) share. Pure: no database.
 *
 * - Caps count the call attempts to one number across campaigns: at most `attempts` in a
 *   rolling `window_days`, at most `daily` in a rolling 24 hours, and none for `quiet_days`
 *   after a conversation (an answered call that no answering machine took). Each part may be
 *   null (not capped). The preset "regulation_f" is US Regulation F's: 7 in 7 days and a 7-day
 *   quiet period after a conversation.
 * - Calling hours are a window of the day, start ≤ local time < end, read in each contact's
 *   own time zone, on top of the campaign's own window.
 */

export interface ContactCaps {
  attempts: number | null;
  window_days: number | null;
  quiet_days: number | null;
  daily: number | null;
}

export interface CallingHours {
  /** "HH:MM" */
  start: string;
  /** "HH:MM", after start */
  end: string;
}

/** US Regulation F (12 CFR 1006.14): 7 attempts in 7 days; 7 days of quiet after a conversation. */
export const REGULATION_F: ContactCaps = Object.freeze({ attempts: 7, window_days: 7, quiet_days: 7, daily: null });

/** Why a held subscriber waits (`subscribers.wait_reason`), and how the campaign read names it. */
export const WaitReason = {
  Attempts: 'attempts',
  Daily: 'daily',
  Quiet: 'quiet',
  Hours: 'hours',
} as const;
export type WaitReason = (typeof WaitReason)[keyof typeof WaitReason];

/** What each reason means, in the campaign's `dialing_state`. */
export const waitReasonText: Record<WaitReason, string> = {
  attempts: 'attempts cap',
  daily: 'daily cap',
  quiet: 'quiet period after a conversation',
  hours: 'outside legal calling hours',
};

const CAP_KEYS = ['attempts', 'window_days', 'quiet_days', 'daily'] as const;
const MAX_DAYS = 366;
const MAX_ATTEMPTS = 1000;

type Parsed<T> = { value: T } | { error: string };

function wholeNumber(v: unknown, max: number): number | null | undefined {
  if (v === null || v === undefined) return null;
  const n = typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= max ? n : undefined;
}

/**
 * Reads contact caps: null (off), "regulation_f", or an object of the four parts (a missing
 * part is null). `attempts` and `window_days` go together. An object whose parts are all null
 * is off (null).
 */
export function parseContactCaps(value: unknown): Parsed<ContactCaps | null> {
  if (value === null || value === 'off' || value === '') return { value: null };
  if (value === 'regulation_f') return { value: { ...REGULATION_F } };
  if (typeof value === 'string') return { error: 'Expected null, "regulation_f" or an object {attempts, window_days, quiet_days, daily}.' };
  if (typeof value !== 'object' || Array.isArray(value)) return { error: 'Expected null, "regulation_f" or an object {attempts, window_days, quiet_days, daily}.' };
  const input = value as Record<string, unknown>;
  const unknown = Object.keys(input).filter((k) => !(CAP_KEYS as readonly string[]).includes(k));
  if (unknown.length) return { error: `Unknown key(s): ${unknown.join(', ')}; expected attempts, window_days, quiet_days, daily.` };
  const caps = {} as ContactCaps;
  for (const key of CAP_KEYS) {
    const n = wholeNumber(input[key], key === 'attempts' || key === 'daily' ? MAX_ATTEMPTS : MAX_DAYS);
    if (n === undefined) return { error: `${key}: a whole number from 1 to ${key === 'attempts' || key === 'daily' ? MAX_ATTEMPTS : MAX_DAYS}, or null.` };
    caps[key] = n;
  }
  if ((caps.attempts === null) !== (caps.window_days === null)) return { error: 'attempts and window_days go together: give both, or neither.' };
  if (CAP_KEYS.every((k) => caps[k] === null)) return { value: null };
  return { value: caps };
}

/** "H:MM" or "HH:MM" (seconds "HH:MM:00" accepted) → "HH:MM", or undefined. */
function hourMinute(v: unknown): string | undefined {
  const m = typeof v === 'string' ? /^(\d{1,2}):(\d{2})(?::00)?$/.exec(v.trim()) : null;
  if (!m || Number(m[1]) > 24 || Number(m[2]) > 59 || (Number(m[1]) === 24 && m[2] !== '00')) return undefined;
  return `${m[1].padStart(2, '0')}:${m[2]}`;
}

/**
 * Reads calling hours: null (off), an object {start, end}, or the string "HH:MM-HH:MM".
 * The end is after the start (a legal window does not cross midnight; "24:00" is the end of
 * the day).
 */
export function parseCallingHours(value: unknown): Parsed<CallingHours | null> {
  if (value === null || value === 'off' || value === '') return { value: null };
  let start: unknown;
  let end: unknown;
  if (typeof value === 'string') [start, end] = value.split('-');
  else if (typeof value === 'object' && !Array.isArray(value)) ({ start, end } = value as Record<string, unknown>);
  else return { error: 'Expected null or an object {"start": "08:00", "end": "21:00"}.' };
  const s = hourMinute(start);
  const e = hourMinute(end);
  if (!s || !e) return { error: 'start and end are times of day, "HH:MM" (e.g. {"start": "08:00", "end": "21:00"}).' };
  if (s >= e || s === '24:00') return { error: 'end must be after start (the window may not cross midnight).' };
  return { value: { start: s, end: e } };
}

/** Both windows at once (the account's and the instance's): their overlap; null when neither is set; 'never' when they do not overlap. */
export function combinedHours(a: CallingHours | null, b: CallingHours | null): CallingHours | null | 'never' {
  if (!a || !b) return a ?? b;
  const start = a.start > b.start ? a.start : b.start;
  const end = a.end < b.end ? a.end : b.end;
  return start < end ? { start, end } : 'never';
}

/** Whether caps have anything to count. */
export function capsOn(caps: ContactCaps | null | undefined): caps is ContactCaps {
  return Boolean(caps && CAP_KEYS.some((k) => caps[k] !== null));
}
