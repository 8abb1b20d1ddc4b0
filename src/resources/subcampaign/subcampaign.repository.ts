import { and, asc, desc, eq, gt, sql } from 'drizzle-orm';
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

/** The number and its key (README "One identity per phone number") of a contact `user` may see (contract §3: contact → phonebook). */
export async function findVisibleContactNumber(db: Db, user: AuthUser, id: number): Promise<{ contact: string; key: string } | undefined> {
  const [row] = await db
    .select({ contact: contacts.contact, key: contacts.phone_key })
    .from(contacts)
    .innerJoin(phonebooks, eq(phonebooks.id, contacts.phonebook_id))
    .where(and(eq(contacts.id, id), ownedBy(user, phonebooks.user_id)));
  return row;
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

/**
 * The campaign's subscriber for a number, matched by its key (one subscriber per number, in any
 * form: `(203) 555-0101` finds the one made from `+12035550101`), read through
 * subscribers_campaign_key_idx. Rekeying can leave two with one key: the one written as the
 * number is, else the first.
 */
export async function findSubscriberByNumber(db: Db, campaignId: number, number: { contact: string; key: string }): Promise<SubscriberRow | undefined> {
  const [row] = await db
    .select()
    .from(subscribers)
    .where(and(eq(subscribers.campaign_id, campaignId), eq(subscribers.phone_key, number.key)))
    .orderBy(desc(sql`${subscribers.duplicate_contact} = ${number.contact}`), asc(subscribers.id))
    .limit(1);
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
