import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { campaigns, contacts, phonebooks, subscribers } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ownedBy } from '../../http/scope.ts';

export type SubscriberRow = typeof subscribers.$inferSelect;

/** The voice campaign's id when `user` may see it. */
export async function findVisibleCampaign(db: Db, user: AuthUser, id: number): Promise<number | undefined> {
  const [row] = await db.select({ id: campaigns.id }).from(campaigns).where(and(eq(campaigns.id, id), ownedBy(user, campaigns.user_id)));
  return row?.id;
}

/** The number of a contact `user` may see (contract §3: contact → phonebook). */
export async function findVisibleContactNumber(db: Db, user: AuthUser, id: number): Promise<string | undefined> {
  const [row] = await db
    .select({ contact: contacts.contact })
    .from(contacts)
    .innerJoin(phonebooks, eq(phonebooks.id, contacts.phonebook_id))
    .where(and(eq(contacts.id, id), ownedBy(user, phonebooks.user_id)));
  return row?.contact;
}

/** The campaign's subscribers after `afterId`, in id order: the keyset batches of the streamed list. */
export function listCampaignSubscribers(db: Db, campaignId: number, afterId: number, limit: number): Promise<SubscriberRow[]> {
  return db
    .select()
    .from(subscribers)
    .where(and(eq(subscribers.campaign_id, campaignId), gt(subscribers.id, afterId)))
    .orderBy(asc(subscribers.id))
    .limit(limit);
}

/** The campaign's subscriber for a number (one per number: the (campaign_id, duplicate_contact) index). */
export async function findSubscriberByNumber(db: Db, campaignId: number, number: string): Promise<SubscriberRow | undefined> {
  const [row] = await db
    .select()
    .from(subscribers)
    .where(and(eq(subscribers.campaign_id, campaignId), eq(subscribers.duplicate_contact, number)));
  return row;
}

export async function updateSubscriberStatus(db: Db, id: number, status: number): Promise<SubscriberRow> {
  const [row] = await db
    .update(subscribers)
    .set({ status, updated_date: sql`now()` })
    .where(eq(subscribers.id, id))
    .returning();
  return row;
}
