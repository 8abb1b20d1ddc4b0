/** A campaign's caller id group: the numbers it may show, by area code (dialer.ts picks one per call). */
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { callerids } from '../../db/schema.ts';

export function callerIdGroup(tx: Db, groupId: number): Promise<(typeof callerids.$inferSelect)[]> {
  return tx.select().from(callerids).where(eq(callerids.callerid_group_id, groupId));
}
