/**
 * SQL for browser sessions (table `sessions`, migration 0018), as src/http/sessions.ts and the
 * account rules read and write them. Times are passed in from the caller's clock (ISO strings),
 * not taken from the database's now(), so that tests can move time.
 */
import { and, eq, gt, lte, lt, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/database.ts';
import { sessions, users } from '../db/schema.ts';

export interface NewSession {
  user_id: number;
  secret_hash: string;
  csrf_token: string;
  created: string;
  expires: string;
}

/** A session that may be used now, with what authentication needs of its user. */
export interface LiveSessionRow {
  id: number;
  csrf_token: string;
  expires: string;
  last_seen: string;
  user_id: number;
  username: string;
  is_admin: boolean;
}

/**
 * Starts a session of `values.user_id` if that user is active, read in the same statement: an
 * account deactivated a moment ago, in any process or by hand, gets none (undefined), whatever a
 * process's user cache still holds.
 */
export async function insertSession(db: Db, values: NewSession): Promise<{ id: number } | undefined> {
  const { user_id, secret_hash, csrf_token, created, expires } = values;
  const [row] = await queryRows<{ id: number }>(
    db,
    sql`insert into sessions (user_id, secret_hash, csrf_token, created, expires, last_seen)
        select id, ${secret_hash}, ${csrf_token}, ${created}, ${expires}, ${created} from users where id = ${user_id} and is_active
        returning id`,
  );
  return row;
}

/**
 * The session whose secret hashes to `secretHash`, if it has not expired at `now` and its user
 * is active: one indexed read, so a session ended in any process is refused at once everywhere.
 */
export async function findLiveSession(db: Db, secretHash: string, now: string): Promise<LiveSessionRow | undefined> {
  const rows = await db
    .select({
      id: sessions.id,
      csrf_token: sessions.csrf_token,
      expires: sessions.expires,
      last_seen: sessions.last_seen,
      user_id: users.id,
      username: users.username,
      is_admin: users.is_admin,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.user_id))
    .where(and(eq(sessions.secret_hash, secretHash), gt(sessions.expires, now), eq(users.is_active, true)));
  return rows[0];
}

/** Records a use of session `id` at `now`, unless a later one was recorded meanwhile. */
export async function touchSession(db: Db, id: number, now: string): Promise<void> {
  await db.update(sessions).set({ last_seen: now }).where(and(eq(sessions.id, id), lt(sessions.last_seen, now)));
}

export async function deleteSession(db: Db, id: number): Promise<void> {
  await db.delete(sessions).where(eq(sessions.id, id));
}

/** Ends every session of user `userId` (password changed, account deactivated); returns how many. */
export async function deleteUserSessions(db: Db, userId: number): Promise<number> {
  return (await db.delete(sessions).where(eq(sessions.user_id, userId)).returning({ id: sessions.id })).length;
}

/** Deletes the sessions expired at `now` (an indexed range delete). */
export async function pruneSessions(db: Db, now: string): Promise<void> {
  await db.delete(sessions).where(lte(sessions.expires, now));
}
