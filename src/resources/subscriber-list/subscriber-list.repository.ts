import { and, asc, eq, gt, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { campaigns, contacts, subscribers } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ownedThrough } from '../../http/scope.ts';

export type SubscriberRow = typeof subscribers.$inferSelect;

/** The subscribers `user` may see (contract §3: subscriber → campaign). */
export const visibleSubscribers = (db: Db, user: AuthUser): SQL | undefined =>
  ownedThrough(db, user, subscribers.campaign_id, campaigns);

export async function findSubscriber(db: Db, user: AuthUser, id: number): Promise<SubscriberRow | undefined> {
  return (await db.select().from(subscribers).where(and(eq(subscribers.id, id), visibleSubscribers(db, user))))[0];
}

/** Rows after `afterId` in id order: the keyset batches of the streamed list. */
export function listSubscribersAfter(db: Db, where: SQL | undefined, afterId: number, limit: number): Promise<SubscriberRow[]> {
  return db.select().from(subscribers).where(and(where, gt(subscribers.id, afterId))).orderBy(asc(subscribers.id)).limit(limit);
}

export function listSubscribers(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<SubscriberRow[]> {
  return db.select().from(subscribers).where(where).orderBy(asc(subscribers.id)).limit(limit).offset(offset);
}

export async function findContact(db: Db, id: number) {
  return (await db.select().from(contacts).where(eq(contacts.id, id)))[0];
}

/** Whether the campaign has a subscriber (other than `exceptId`) with the number whose key is `key` (contract §1). */
export async function subscriberExists(db: Db, campaignId: number, key: string, exceptId = 0): Promise<boolean> {
  const rows = await db
    .select({ id: subscribers.id })
    .from(subscribers)
    .where(and(eq(subscribers.campaign_id, campaignId), eq(subscribers.phone_key, key), sql`${subscribers.id} <> ${exceptId}`))
    .limit(1);
  return rows.length > 0;
}

/** Inserts the subscriber and counts it in its campaign's totalcontact. */
export async function insertSubscriber(db: Db, values: typeof subscribers.$inferInsert): Promise<SubscriberRow> {
  const [row] = await db.insert(subscribers).values(values).returning();
  await db.update(campaigns).set({ totalcontact: sql`${campaigns.totalcontact} + 1` }).where(eq(campaigns.id, row.campaign_id));
  return row;
}

export async function updateSubscriber(db: Db, id: number, values: Partial<typeof subscribers.$inferInsert>): Promise<SubscriberRow> {
  return (
    await db
      .update(subscribers)
      .set({ ...values, updated_date: sql`now()` })
      .where(eq(subscribers.id, id))
      .returning()
  )[0];
}

export async function deleteSubscriber(db: Db, id: number): Promise<void> {
  await db.delete(subscribers).where(eq(subscribers.id, id));
}
