/**
 * The do-not-call rule (contract §5), written once: a number may not be called or messaged by a
 * campaign of `ownerId` whose own DNC list is `dncId` when its key is on that list, on one
 * of the owner's global lists, or on an admin's global list. Numbers match by key (their E.164
 * digits, else their digits: contract §1, src/http/phone.ts), through the (phone_key, dnc_id)
 * index. The engine uses the SQL condition set-based (voice and SMS claims); `isDoNotCall` asks
 * it for one number. Subscribers' keys are in collation "C" (migration 0023), the DNC list's in
 * the database's: `collate "default"` makes the comparison the one the index answers (without
 * it PostgreSQL reads the whole list).
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/database.ts';
import { phoneKey } from '../http/phone.ts';

/** SQL condition: the number whose key is `key` (an SQL text expression) is barred for a campaign of `ownerId`. */
export function doNotCallSql(key: SQL, ownerId: number, dncId: number | null): SQL {
  return sql`exists (
    select 1 from dnc_contacts d join dnc_lists l on l.id = d.dnc_id
    where d.phone_key = ${key} collate "default"
      and (l.id = ${dncId ?? 0} or (l.is_global and (l.user_id = ${ownerId}
           or l.user_id in (select u.id from users u where u.is_admin)))))`;
}

/**
 * Whether `number` (read in `country`, as its owner reads it) may not be called by a campaign of
 * `ownerId` with its own list `dncId`.
 */
export async function isDoNotCall(db: Db, ownerId: number, dncId: number | null, number: string, country?: string): Promise<boolean> {
  const key = phoneKey(number, country);
  if (key === '') return false;
  const [row] = await queryRows<{ hit: boolean }>(db, sql`select ${doNotCallSql(sql`${key}::text`, ownerId, dncId)} as hit`);
  return row?.hit === true;
}
