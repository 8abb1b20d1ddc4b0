import { and, asc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { CampaignStatus, campaignPhonebooks, campaigns, phonebooks } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ownedBy } from '../../http/scope.ts';

export type PhonebookRow = typeof phonebooks.$inferSelect;

/** The phonebooks `user` may see. */
export const visiblePhonebooks = (user: AuthUser): SQL | undefined => ownedBy(user, phonebooks.user_id);

export async function findPhonebook(db: Db, user: AuthUser, id: number): Promise<PhonebookRow | undefined> {
  return (await db.select().from(phonebooks).where(and(eq(phonebooks.id, id), visiblePhonebooks(user))))[0];
}

export function countPhonebooks(db: Db, where: SQL | undefined): Promise<number> {
  return db.$count(phonebooks, where);
}

export function listPhonebooks(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<PhonebookRow[]> {
  return db.select().from(phonebooks).where(where).orderBy(asc(phonebooks.id)).limit(limit).offset(offset);
}

export async function insertPhonebook(db: Db, values: typeof phonebooks.$inferInsert): Promise<PhonebookRow> {
  return (await db.insert(phonebooks).values(values).returning())[0];
}

export async function updatePhonebook(db: Db, id: number, values: Partial<typeof phonebooks.$inferInsert>): Promise<void> {
  await db
    .update(phonebooks)
    .set({ ...values, updated_date: sql`now()` })
    .where(eq(phonebooks.id, id));
}

/**
 * Whether a campaign in START dials this phonebook (its delete is then a 409). The campaigns
 * that use it are locked (for share) so none starts between this check and the delete.
 */
export async function isDialedByRunningCampaign(db: Db, id: number): Promise<boolean> {
  const using = db
    .select({ id: campaignPhonebooks.campaign_id })
    .from(campaignPhonebooks)
    .where(eq(campaignPhonebooks.phonebook_id, id));
  const rows = await db.select({ status: campaigns.status }).from(campaigns).where(inArray(campaigns.id, using)).for('share');
  return rows.some((row) => row.status === CampaignStatus.Start);
}

/**
 * Deletes the phonebook; its contacts go with it (on delete cascade). Campaigns that are not
 * running lose it from their phonebooks, as a DRF many-to-many does; run it in a transaction
 * with the isDialedByRunningCampaign check.
 */
export async function deletePhonebook(db: Db, id: number): Promise<void> {
  await db.delete(campaignPhonebooks).where(eq(campaignPhonebooks.phonebook_id, id));
  await db.delete(phonebooks).where(eq(phonebooks.id, id));
}
