import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { dids } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ownedBy } from '../../http/scope.ts';

export type DidRow = typeof dids.$inferSelect;

export const visibleDids = (user: AuthUser): SQL | undefined => ownedBy(user, dids.user_id);

export async function findDid(db: Db, user: AuthUser, id: number): Promise<DidRow | undefined> {
  return (await db.select().from(dids).where(and(eq(dids.id, id), visibleDids(user))))[0];
}

/** Whether the number is already a DID (other than `exceptId`): numbers are unique. */
export async function didNumberTaken(db: Db, number: string, exceptId = 0): Promise<boolean> {
  const rows = await db.select({ id: dids.id }).from(dids).where(and(eq(dids.did_number, number), sql`${dids.id} <> ${exceptId}`));
  return rows.length > 0;
}

export function countDids(db: Db, where: SQL | undefined): Promise<number> {
  return db.$count(dids, where);
}

export function listDids(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<DidRow[]> {
  return db.select().from(dids).where(where).orderBy(asc(dids.id)).limit(limit).offset(offset);
}

export async function insertDid(db: Db, values: typeof dids.$inferInsert): Promise<DidRow> {
  return (await db.insert(dids).values(values).returning())[0];
}

export async function updateDid(db: Db, id: number, values: Partial<typeof dids.$inferInsert>): Promise<void> {
  await db
    .update(dids)
    .set({ ...values, updated_date: sql`now()` })
    .where(eq(dids.id, id));
}

export async function deleteDid(db: Db, id: number): Promise<void> {
  await db.delete(dids).where(eq(dids.id, id));
}
