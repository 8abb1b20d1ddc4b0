/**
 * How the console writes times, numbers and money. Times are shown in the browser's own zone,
 * with the UTC instant in the element's title (the <Time> component); numbers and amounts go
 * through Intl in the browser's locale.
 */

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
// The API has no currency: amounts are plain decimals (contract §1, 5 places); shown with at
// least 2 and as many as the amount has, up to 5.
const money = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 5 });
const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });

/** The instant in the browser's zone ("27 Nov 2026, 05:12:03"); '' for none. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}

/** The instant in UTC, ISO 8601, for a title attribute. */
export function utcTitle(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, '')} UTC`;
}

export const formatInteger = (n: number | null | undefined) => (n == null ? '–' : integer.format(n));
export const formatDecimal = (n: number | null | undefined) => (n == null ? '–' : decimal.format(n));
export const formatPercent = (fraction: number | null | undefined) => (fraction == null || !Number.isFinite(fraction) ? '–' : percent.format(fraction));

/** An amount (the API's decimal string or a number). */
export function formatMoney(amount: string | number | null | undefined): string {
  if (amount == null || amount === '') return '–';
  const n = typeof amount === 'number' ? amount : Number(amount);
  return Number.isFinite(n) ? money.format(n) : String(amount);
}

/** A duration in seconds as "1 h 02 min", "3 min 05 s" or "42 s". */
export function formatSeconds(s: number | null | undefined): string {
  if (s == null) return '–';
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = Math.floor(s % 60);
  if (h) return `${h} h ${String(m).padStart(2, '0')} min`;
  if (m) return `${m} min ${String(sec).padStart(2, '0')} s`;
  return `${sec} s`;
}

/** A `datetime-local` input's value (the browser's zone) for an ISO instant, and back. */
export function toLocalInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
export function fromLocalInput(value: string): string | undefined {
  if (!value) return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}
