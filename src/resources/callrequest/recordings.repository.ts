/** A call's recordings (issue 16 item 6), as /rest-api/callrequest/<id>/recordings/ reads them. */
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { recordings } from '../../db/schema.ts';

export type RecordingRow = typeof recordings.$inferSelect;

export function countRecordings(db: Db, callrequestId: number): Promise<number> {
  return db.$count(recordings, eq(recordings.callrequest_id, callrequestId));
}

export function listRecordings(db: Db, callrequestId: number, limit: number, offset: number): Promise<RecordingRow[]> {
  return db.select().from(recordings).where(eq(recordings.callrequest_id, callrequestId)).orderBy(asc(recordings.id)).limit(limit).offset(offset);
}

/** One recording of the call (the call's visibility is checked by its caller). */
export async function findRecording(db: Db, callrequestId: number, id: number): Promise<RecordingRow | undefined> {
  return (await db.select().from(recordings).where(and(eq(recordings.id, id), eq(recordings.callrequest_id, callrequestId))))[0];
}
