import { and, asc, eq, gt, type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';
import { campaigns, cdrs } from '../../db/schema.ts';
import { idArray } from '../../db/sql.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ownedThrough } from '../../http/scope.ts';

export type CdrRow = typeof cdrs.$inferSelect;

/** The CDRs `user` may see (contract §3: CDR → campaign). */
export const visibleCdrs = (db: Db, user: AuthUser): SQL | undefined => ownedThrough(db, user, cdrs.campaign_id, campaigns);

export async function findCdr(db: Db, user: AuthUser, id: number): Promise<CdrRow | undefined> {
  return (await db.select().from(cdrs).where(and(eq(cdrs.id, id), visibleCdrs(db, user))))[0];
}

export function countCdrs(db: Db, where: SQL | undefined): Promise<number> {
  return db.$count(cdrs, where);
}

export function listCdrs(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<CdrRow[]> {
  return db.select().from(cdrs).where(where).orderBy(asc(cdrs.id)).limit(limit).offset(offset);
}

/** Rows after `afterId` in id order: the keyset batches of the CSV export. */
export function listCdrsAfter(db: Db, where: SQL | undefined, afterId: number, limit: number): Promise<CdrRow[]> {
  return db.select().from(cdrs).where(and(where, gt(cdrs.id, afterId))).orderBy(asc(cdrs.id)).limit(limit);
}

/**
 * The recording the CSV shows for each of these calls: the whole call's, else the first record
 * section's (recordings_callrequest_idx); one query per batch.
 */
export async function recordingOfCalls(db: Db, callrequestIds: number[]): Promise<Map<number, number>> {
  if (!callrequestIds.length) return new Map();
  const rows = await queryRows<{ callrequest_id: number; id: number }>(
    db,
    sql`select distinct on (callrequest_id) callrequest_id, id from recordings
        where callrequest_id = any(${idArray(callrequestIds)})
        order by callrequest_id, (kind = 'call') desc, id`,
  );
  return new Map(rows.map((r) => [Number(r.callrequest_id), Number(r.id)]));
}
