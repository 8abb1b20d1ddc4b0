/** The do-not-call check the engine makes before each call (contract §5). */
import { and, eq, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { dncContacts, dncLists, users } from '../../db/schema.ts';
import { phoneDigits } from '../../http/phone.ts';

/**
 * Whether `number` may not be called by a campaign of `campaignOwnerId` whose own DNC list is
 * `campaignDncId`: it is on that list, on one of the owner's global lists, or on an admin's
 * global list. Numbers match by digits only (contract §1), through the digits index.
 */
export async function isDoNotCall(
  db: Db,
  campaignOwnerId: number,
  campaignDncId: number | null,
  number: string,
): Promise<boolean> {
  const digits = phoneDigits(number);
  if (digits === '') return false;
  const globalList = and(
    eq(dncLists.is_global, true),
    or(eq(dncLists.user_id, campaignOwnerId), eq(users.is_admin, true)),
  );
  const rows = await db
    .select({ one: sql<number>`1` })
    .from(dncContacts)
    .innerJoin(dncLists, eq(dncLists.id, dncContacts.dnc_id))
    .innerJoin(users, eq(users.id, dncLists.user_id))
    .where(
      and(
        eq(dncContacts.digits, digits),
        campaignDncId === null ? globalList : or(eq(dncLists.id, campaignDncId), globalList),
      ),
    )
    .limit(1);
  return rows.length > 0;
}
