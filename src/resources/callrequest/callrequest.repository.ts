import { and, asc, eq, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { callrequests, callResults, campaigns } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ownedThrough } from '../../http/scope.ts';

export type CallRequestRow = typeof callrequests.$inferSelect;
export type CallResultRow = typeof callResults.$inferSelect;

/** The call requests `user` may see (contract §3: callrequest → campaign). */
export const visibleCallRequests = (db: Db, user: AuthUser): SQL | undefined =>
  ownedThrough(db, user, callrequests.campaign_id, campaigns);

export async function findCallRequest(db: Db, user: AuthUser, id: number): Promise<CallRequestRow | undefined> {
  return (await db.select().from(callrequests).where(and(eq(callrequests.id, id), visibleCallRequests(db, user))))[0];
}

export function countCallRequests(db: Db, where: SQL | undefined): Promise<number> {
  return db.$count(callrequests, where);
}

export function listCallRequests(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<CallRequestRow[]> {
  return db.select().from(callrequests).where(where).orderBy(asc(callrequests.id)).limit(limit).offset(offset);
}

export function countCallResults(db: Db, callrequestId: number): Promise<number> {
  return db.$count(callResults, eq(callResults.callrequest_id, callrequestId));
}

export function listCallResults(db: Db, callrequestId: number, limit: number, offset: number): Promise<CallResultRow[]> {
  return db
    .select()
    .from(callResults)
    .where(eq(callResults.callrequest_id, callrequestId))
    .orderBy(asc(callResults.id))
    .limit(limit)
    .offset(offset);
}
