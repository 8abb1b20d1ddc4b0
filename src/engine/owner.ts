/**
 * What the owner of a campaign decides about its dialling, for voice and SMS alike: an account
 * deactivated through the API (issue 11 §2) stops its campaigns until it is activated again,
 * and a balance used up at a non-zero rate makes them wait for a payment.
 */
import type { Db } from '../db/database.ts';
import { ownerState } from './store/users.ts';

/** Why the owner's campaign may not dial or send now ('' = it may). */
export async function ownerBlock(tx: Db, userId: number, kind: 'call' | 'sms'): Promise<string> {
  const owner = await ownerState(tx, userId, kind);
  if (owner && !owner.active) return 'account deactivated';
  return owner?.broke ? 'waiting for credit' : '';
}
