/** Value formats shared by every presenter (contract §1: times, decimals). */

/**
 * PostgreSQL timestamptz text in UTC ("2026-11-21 10:37:58.35+00") → ISO 8601 with microseconds
 * and Z ("2026-11-21T10:37:58.350000Z").
 */
export function isoTime(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?(?:Z|\+00(?::?00)?)?$/.exec(value);
  if (!m) return new Date(value).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
  return `${m[1]}T${m[2]}.${(m[3] ?? '').padEnd(6, '0')}Z`;
}

/** A numeric column's text as a string with `places` decimals ("1" → "1.00000"). */
export function decimalString(value: string | number, places = 5): string {
  const text = String(value);
  const [whole, fraction = ''] = text.split('.');
  if (fraction.length <= places) return `${whole}.${fraction.padEnd(places, '0')}`;
  return Number(text).toFixed(places);
}

/** A numeric column's text as a JSON number (user balance and rates, contract §1). */
export function decimalNumber(value: string | number): number {
  return Number(value);
}
