import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { contacts, phonebooks } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { allOf, ownedThrough } from '../../http/scope.ts';

export type ContactRow = typeof contacts.$inferSelect;

/** The contacts `user` may see: those of their phonebooks (contract §3). */
export const visibleContacts = (db: Db, user: AuthUser): SQL | undefined =>
  ownedThrough(db, user, contacts.phonebook_id, phonebooks);

/** `phonebook_id` filter of the list (absent: every visible contact). */
export function contactFilter(db: Db, user: AuthUser, phonebookId: number | undefined): SQL | undefined {
  return allOf(visibleContacts(db, user), phonebookId === undefined ? undefined : eq(contacts.phonebook_id, phonebookId));
}

export async function findContact(db: Db, user: AuthUser, id: number): Promise<ContactRow | undefined> {
  return (await db.select().from(contacts).where(and(eq(contacts.id, id), visibleContacts(db, user))))[0];
}

export function countContacts(db: Db, where: SQL | undefined): Promise<number> {
  return db.$count(contacts, where);
}

export function listContacts(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<ContactRow[]> {
  return db.select().from(contacts).where(where).orderBy(asc(contacts.id)).limit(limit).offset(offset);
}

export async function insertContact(db: Db, values: typeof contacts.$inferInsert): Promise<ContactRow> {
  return (await db.insert(contacts).values(values).returning())[0];
}

export async function updateContact(db: Db, id: number, values: Partial<typeof contacts.$inferInsert>): Promise<void> {
  await db
    .update(contacts)
    .set({ ...values, updated_date: sql`now()` })
    .where(eq(contacts.id, id));
}

export async function deleteContact(db: Db, id: number): Promise<void> {
  await db.delete(contacts).where(eq(contacts.id, id));
}
