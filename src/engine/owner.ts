/**
 * What the owner of a campaign decides about its dialling, for voice and SMS alike: an account
 * deactivated through the API (issue 11 §2) stops its campaigns until it is activated again,
 * and a balance used up at a non-zero rate makes them wait for a payment.
 */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/database.ts';

/** Why the owner's campaign may not dial or send now ('' = it may). */
export async function ownerBlock(tx: Db, userId: number, kind: 'call' | 'sms'): Promise<string> {
  const rate = sql.raw(kind === 'call' ? 'call_rate' : 'sms_rate');
  const [owner] = await queryRows<{ active: boolean; broke: boolean }>(
    tx,
    sql`select is_active as active, (${rate} > 0 and balance <= 0) as broke from users where id = ${userId}`,
  );
  if (owner && !owner.active) return 'account deactivated';
  return owner?.broke ? 'waiting for credit' : '';
}
