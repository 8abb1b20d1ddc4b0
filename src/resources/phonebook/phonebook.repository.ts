/** SQL of the phonebook resource: find, list, insert, update, and a delete that unlinks it from campaigns. */
import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { phonebooks } from '../../db/schema.ts';
import { unlinkPhonebook } from '../../campaign/phonebook-links.ts';
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
 * Deletes the phonebook; its contacts go with it (on delete cascade). Campaigns that are not
 * running, voice or SMS, lose it from their phonebooks (src/campaign/phonebook-links.ts); run it
 * in a transaction with the isDialedByRunningCampaign check.
 */
export async function deletePhonebook(db: Db, id: number): Promise<void> {
  await unlinkPhonebook(db, id);
  await db.delete(phonebooks).where(eq(phonebooks.id, id));
}
