/** The engine store's SQL helpers: list and row parameters passed as one value each. */
import { type SQL, sql } from 'drizzle-orm';

/** One SQL parameter holding a list of ids (`= any(…)`): no statement with thousands of parameters. */
export const idArray = (ids: number[]): SQL => sql`${`{${ids.join(',')}}`}::bigint[]`;

/** The same for int ids (campaign ids, as the report reads them). */
export const intIdArray = (ids: number[]): SQL => sql`${`{${ids.join(',')}}`}::int[]`;

/** Rows as one jsonb parameter, for `jsonb_to_recordset` (set-based writes). */
export const json = (rows: unknown[]): SQL => sql`${JSON.stringify(rows)}::jsonb`;
