import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { dncLists } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ownedBy } from '../../http/scope.ts';

export type DncListRow = typeof dncLists.$inferSelect;

/** The DNC lists `user` may see. */
export const visibleDncLists = (user: AuthUser): SQL | undefined => ownedBy(user, dncLists.user_id);

export async function findDncList(db: Db, user: AuthUser, id: number): Promise<DncListRow | undefined> {
  return (await db.select().from(dncLists).where(and(eq(dncLists.id, id), visibleDncLists(user))))[0];
}

export function countDncLists(db: Db, where: SQL | undefined): Promise<number> {
  return db.$count(dncLists, where);
}

export function listDncLists(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<DncListRow[]> {
  return db.select().from(dncLists).where(where).orderBy(asc(dncLists.id)).limit(limit).offset(offset);
}

export async function insertDncList(db: Db, values: typeof dncLists.$inferInsert): Promise<DncListRow> {
  return (await db.insert(dncLists).values(values).returning())[0];
}

export async function updateDncList(db: Db, id: number, values: Partial<typeof dncLists.$inferInsert>): Promise<void> {
  await db
    .update(dncLists)
    .set({ ...values, updated_date: sql`now()` })
    .where(eq(dncLists.id, id));
}

/** Deletes the list and its numbers (on delete cascade); campaigns that used it keep no list. */
export async function deleteDncList(db: Db, id: number): Promise<void> {
  await db.delete(dncLists).where(eq(dncLists.id, id));
}
