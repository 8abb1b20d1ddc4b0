/**
 * A call's recordings (issue 16 item 6): written with its outcome (one statement per batch), and
 * pruned by their owner's recording_retention_days, or once their call or owner is deleted
 * (recordings.ts).
 */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';
import { idArray, json } from '../../db/sql.ts';

/** A recording to insert: `file` under DATA_DIR; `created` is the call's end. */
export interface NewRecording {
  callrequest_id: number;
  user_id: number;
  kind: string;
  file: string;
  seconds: number;
  created: string;
}

export async function insertRecordings(tx: Db, rows: NewRecording[]): Promise<void> {
  if (!rows.length) return;
  await tx.execute(sql`insert into recordings (callrequest_id, user_id, kind, file, seconds, created_date)
    select r.callrequest_id, r.user_id, r.kind, r.file, r.seconds, r.created
    from jsonb_to_recordset(${json(rows)}) as r(callrequest_id bigint, user_id int, kind text, file text, seconds int, created timestamptz)`);
}

/**
 * Up to `limit` recordings older than their owner's recording_retention_days at `now`, oldest
 * first per owner (recordings_user_created_idx); owners without retention are skipped.
 */
export function expiredRecordings(db: Db, now: string, limit: number): Promise<{ id: number; file: string }[]> {
  return queryRows<{ id: number; file: string }>(
    db,
    sql`select r.id, r.file from users u
        cross join lateral (
          select x.id, x.file from recordings x
          where x.user_id = u.id and x.created_date < ${now}::timestamptz - make_interval(days => u.recording_retention_days)
          order by x.created_date limit ${limit}) r
        where u.recording_retention_days is not null
        limit ${limit}`,
  );
}

/** Up to `limit` recordings whose call or owner was deleted (recordings_orphans_idx). */
export function orphanedRecordings(db: Db, limit: number): Promise<{ id: number; file: string }[]> {
  return queryRows<{ id: number; file: string }>(
    db,
    sql`select id, file from recordings where callrequest_id is null or user_id is null order by id limit ${limit}`,
  );
}

export async function deleteRecordings(db: Db, ids: number[]): Promise<void> {
  if (!ids.length) return;
  await db.execute(sql`delete from recordings where id = any(${idArray(ids)})`);
}
