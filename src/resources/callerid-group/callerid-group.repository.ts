import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { calleridGroups } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ownedBy } from '../../http/scope.ts';

export type CalleridGroupRow = typeof calleridGroups.$inferSelect;

/** The caller id groups `user` may see. */
export const visibleCalleridGroups = (user: AuthUser): SQL | undefined => ownedBy(user, calleridGroups.user_id);

export async function findCalleridGroup(db: Db, user: AuthUser, id: number): Promise<CalleridGroupRow | undefined> {
  return (await db.select().from(calleridGroups).where(and(eq(calleridGroups.id, id), visibleCalleridGroups(user))))[0];
}

export function countCalleridGroups(db: Db, where: SQL | undefined): Promise<number> {
  return db.$count(calleridGroups, where);
}

export function listCalleridGroups(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<CalleridGroupRow[]> {
  return db.select().from(calleridGroups).where(where).orderBy(asc(calleridGroups.id)).limit(limit).offset(offset);
}

export async function insertCalleridGroup(db: Db, values: typeof calleridGroups.$inferInsert): Promise<CalleridGroupRow> {
  return (await db.insert(calleridGroups).values(values).returning())[0];
}

export async function updateCalleridGroup(
  db: Db,
  id: number,
  values: Partial<typeof calleridGroups.$inferInsert>,
): Promise<void> {
  await db
    .update(calleridGroups)
    .set({ ...values, updated_date: sql`now()` })
    .where(eq(calleridGroups.id, id));
}

/** Deletes the group and its caller ids (on delete cascade); campaigns that used it keep none. */
export async function deleteCalleridGroup(db: Db, id: number): Promise<void> {
  await db.delete(calleridGroups).where(eq(calleridGroups.id, id));
}
