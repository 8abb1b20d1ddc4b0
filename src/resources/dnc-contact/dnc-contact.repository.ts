import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { dncContacts, dncLists } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { allOf, ownedThrough } from '../../http/scope.ts';

export type DncContactRow = typeof dncContacts.$inferSelect;

/** The DNC numbers `user` may see: those of their lists (contract §3). */
export const visibleDncContacts = (db: Db, user: AuthUser): SQL | undefined =>
  ownedThrough(db, user, dncContacts.dnc_id, dncLists);

/** `dnc_id` filter of the list (absent: every visible number). */
/** The caller's visible numbers, of list `dncId`, matching `key` (a number's key, as the dialer compares them). */
export function dncContactFilter(db: Db, user: AuthUser, dncId: number | undefined, key?: string): SQL | undefined {
  return allOf(
    visibleDncContacts(db, user),
    dncId === undefined ? undefined : eq(dncContacts.dnc_id, dncId),
    key === undefined ? undefined : eq(dncContacts.phone_key, key),
  );
}

export async function findDncContact(db: Db, user: AuthUser, id: number): Promise<DncContactRow | undefined> {
  return (await db.select().from(dncContacts).where(and(eq(dncContacts.id, id), visibleDncContacts(db, user))))[0];
}

export function countDncContacts(db: Db, where: SQL | undefined): Promise<number> {
  return db.$count(dncContacts, where);
}

export function listDncContacts(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<DncContactRow[]> {
  return db.select().from(dncContacts).where(where).orderBy(asc(dncContacts.id)).limit(limit).offset(offset);
}

export async function insertDncContact(db: Db, values: typeof dncContacts.$inferInsert): Promise<DncContactRow> {
  return (await db.insert(dncContacts).values(values).returning())[0];
}

export async function updateDncContact(db: Db, id: number, values: Partial<typeof dncContacts.$inferInsert>): Promise<void> {
  await db
    .update(dncContacts)
    .set({ ...values, updated_date: sql`now()` })
    .where(eq(dncContacts.id, id));
}

export async function deleteDncContact(db: Db, id: number): Promise<void> {
  await db.delete(dncContacts).where(eq(dncContacts.id, id));
}
