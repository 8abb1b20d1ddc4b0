import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { calleridGroups, callerids } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { allOf, ownedThrough } from '../../http/scope.ts';

export type CalleridRow = typeof callerids.$inferSelect;

/** The list filters; each is optional, and they combine. */
export interface CalleridFilter {
  callerid_group_id?: number;
  areacode?: string;
  /** Digits of the number: `+` may arrive as a space when not URL-encoded. */
  callerid_digits?: string;
}

/** The caller ids `user` may see: those of their groups (contract §3). */
export const visibleCallerids = (db: Db, user: AuthUser): SQL | undefined =>
  ownedThrough(db, user, callerids.callerid_group_id, calleridGroups);

export function calleridFilter(db: Db, user: AuthUser, filter: CalleridFilter): SQL | undefined {
  return allOf(
    visibleCallerids(db, user),
    filter.callerid_group_id === undefined ? undefined : eq(callerids.callerid_group_id, filter.callerid_group_id),
    filter.areacode === undefined ? undefined : eq(callerids.areacode, filter.areacode),
    filter.callerid_digits === undefined
      ? undefined
      : sql`regexp_replace(${callerids.callerid_num}, '[^0-9]', '', 'g') = ${filter.callerid_digits}`,
  );
}

export async function findCallerid(db: Db, user: AuthUser, id: number): Promise<CalleridRow | undefined> {
  return (await db.select().from(callerids).where(and(eq(callerids.id, id), visibleCallerids(db, user))))[0];
}

export function countCallerids(db: Db, where: SQL | undefined): Promise<number> {
  return db.$count(callerids, where);
}

export function listCallerids(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<CalleridRow[]> {
  return db.select().from(callerids).where(where).orderBy(asc(callerids.id)).limit(limit).offset(offset);
}

export async function insertCallerid(db: Db, values: typeof callerids.$inferInsert): Promise<CalleridRow> {
  return (await db.insert(callerids).values(values).returning())[0];
}

export async function updateCallerid(db: Db, id: number, values: Partial<typeof callerids.$inferInsert>): Promise<void> {
  await db
    .update(callerids)
    .set({ ...values, updated_date: sql`now()` })
    .where(eq(callerids.id, id));
}

export async function deleteCallerid(db: Db, id: number): Promise<void> {
  await db.delete(callerids).where(eq(callerids.id, id));
}
