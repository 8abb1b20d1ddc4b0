/** What the engine reads of a campaign's owner: active and in credit, and how many SMS the balance pays for. */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';

/** The owner's `is_active`, and whether a non-zero rate of `kind` met a used-up balance. */
export async function ownerState(tx: Db, userId: number, kind: 'call' | 'sms'): Promise<{ active: boolean; broke: boolean } | undefined> {
  const rate = sql.raw(kind === 'call' ? 'call_rate' : 'sms_rate');
  const [owner] = await queryRows<{ active: boolean; broke: boolean }>(
    tx,
    sql`select is_active as active, (${rate} > 0 and balance <= 0) as broke from users where id = ${userId}`,
  );
  return owner;
}

/** With an SMS rate, how many messages the balance pays for (each at least one part); null without a rate. */
export async function affordableMessages(tx: Db, userId: number): Promise<number | null | undefined> {
  const [u] = await queryRows<{ n: number | null }>(
    tx,
    sql`select case when sms_rate > 0 then ceil(balance / sms_rate)::int end as n from users where id = ${userId}`,
  );
  return u?.n;
}
