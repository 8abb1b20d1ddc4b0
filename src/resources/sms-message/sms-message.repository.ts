/** SQL of the sms-message resource (read-only): the messages `user` may see, through their campaign. */
import { and, asc, eq, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { smsMessages } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ownedBy } from '../../http/scope.ts';

export type SmsMessageRow = typeof smsMessages.$inferSelect;

/** Contract §3: an SMS message belongs to its campaign's owner (user_id, also for send-SMS sections). */
export const visibleSmsMessages = (_db: Db, user: AuthUser): SQL | undefined => ownedBy(user, smsMessages.user_id);

export async function findSmsMessage(db: Db, user: AuthUser, id: number): Promise<SmsMessageRow | undefined> {
  return (await db.select().from(smsMessages).where(and(eq(smsMessages.id, id), visibleSmsMessages(db, user))))[0];
}

export function countSmsMessages(db: Db, where: SQL | undefined): Promise<number> {
  return db.$count(smsMessages, where);
}

export function listSmsMessages(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<SmsMessageRow[]> {
  return db.select().from(smsMessages).where(where).orderBy(asc(smsMessages.id)).limit(limit).offset(offset);
}
