/** SQL helpers: list and row parameters passed as one value each (the engine store, the campaign and resource layers). */
import { type SQL, sql } from 'drizzle-orm';

/** One SQL parameter holding a list of ids (`= any(…)`): no statement with thousands of parameters. */
export const idArray = (ids: number[]): SQL => sql`${`{${ids.join(',')}}`}::bigint[]`;

/** The same as int[] (campaign and phonebook ids, statuses). */
export const intArray = (ids: number[]): SQL => sql`${`{${ids.join(',')}}`}::int[]`;

/** Rows as one jsonb parameter, for `jsonb_to_recordset` (set-based writes). */
export const json = (rows: unknown[]): SQL => sql`${JSON.stringify(rows)}::jsonb`;
