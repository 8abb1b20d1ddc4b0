/**
 * Parsed campaign request fields → campaign columns, for voice and SMS campaigns alike: each
 * kind lists its plain fields and its links (API name → column); status and phonebook are the
 * service's. And the date defaults of contract §5.
 */

/** How the request fields of a kind become its columns. */
export interface ColumnMap {
  /** Fields stored under their own name. */
  plain: readonly string[];
  /** Link fields → their `_id` column. */
  links: Readonly<Record<string, string>>;
  /** Fields a null sets to null; a null leaves any other (not-null) column unchanged. */
  nullable: ReadonlySet<string>;
}

/** The fields every kind stores under their own name: name, dates, pace, retries, the window. */
const sharedPlain = [
  'name', 'description', 'callerid', 'startingdate', 'expirationdate', 'frequency', 'callmaxduration', 'maxretry',
  'intervalretry', 'daily_start_time', 'daily_stop_time', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday',
  'saturday', 'sunday', 'end_when_done',
];

/** A kind's column map: the shared plain fields (of which only the dates take a null) and its own. */
export function columnMap(own: { plain: readonly string[]; links: Record<string, string>; nullableLinks?: readonly string[] }): ColumnMap {
  return {
    plain: [...sharedPlain, ...own.plain],
    links: own.links,
    nullable: new Set(['startingdate', 'expirationdate', ...(own.nullableLinks ?? [])]),
  };
}

/** The columns the request sets. */
export function requestColumns(map: ColumnMap, values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const take = (field: string, column: string) => {
    const v = values[field];
    if (v === undefined || (v === null && !map.nullable.has(field))) return;
    out[column] = v;
  };
  for (const field of map.plain) take(field, field);
  for (const [field, column] of Object.entries(map.links)) take(field, column);
  return out;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Contract §5 defaults: starting now, expiring a day after the start (voice and SMS campaigns). */
export function withDateDefaults<T extends { startingdate?: string | null; expirationdate?: string | null }>(columns: T, now: Date): T {
  const start = columns.startingdate ?? now.toISOString();
  const expiration = columns.expirationdate ?? new Date(new Date(start).getTime() + DAY_MS).toISOString();
  return { ...columns, startingdate: start, expirationdate: expiration };
}
