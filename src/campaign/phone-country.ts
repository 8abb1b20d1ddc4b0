/**
 * The country a number is read in (contract §1): the `default_country` of the account that owns
 * the record holding it (a phonebook's contact, a DNC list's number, a campaign's subscriber),
 * else the instance's `DEFAULT_COUNTRY`. Every writer of a number asks `phoneKeyOf` for its key.
 */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/database.ts';
import { phoneKey } from '../http/phone.ts';

/** Tables whose rows have an owner (`user_id`) and hold numbers, directly or in children. */
export type NumberOwner = 'phonebooks' | 'dnc_lists' | 'campaigns' | 'sms_campaigns' | 'users';

/** The country of the owner of row `id` of `table` (of user `id` for 'users'), else `fallback`. */
export async function countryOf(db: Db, table: NumberOwner, id: number, fallback: string | undefined): Promise<string | undefined> {
  const owner = table === 'users' ? sql`${id}::integer` : sql`(select r.user_id from ${sql.identifier(table)} r where r.id = ${id})`;
  const [row] = await queryRows<{ country: string | null }>(db, sql`select u.default_country as country from users u where u.id = ${owner}`);
  return row?.country ?? fallback;
}

/** The key of `number` as the owner of row `id` of `table` reads it. */
export async function phoneKeyOf(db: Db, table: NumberOwner, id: number, number: string, fallback: string | undefined): Promise<string> {
  return phoneKey(number, await countryOf(db, table, id, fallback));
}
