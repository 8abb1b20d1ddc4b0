/** The do-not-call lists a call's opt-out section writes to (ivr.ts, section 9). */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';

/** The campaign's DNC list, or else the owner's first global list. */
export async function optOutList(db: Db, dncId: number | null, userId: number): Promise<{ id: number } | undefined> {
  const [list] = await queryRows<{ id: number }>(
    db,
    sql`select id from dnc_lists where id = ${dncId ?? 0}
        union all (select id from dnc_lists where user_id = ${userId} and is_global order by id limit 1) limit 1`,
  );
  return list;
}

/** Adds the number, with its key (the subscriber's: contract §1), to the list, unless the list has that key already. */
export async function addDncNumber(db: Db, dncId: number, phoneNumber: string, phoneKey: string): Promise<void> {
  await db.execute(sql`insert into dnc_contacts (dnc_id, phone_number, phone_key)
      select ${dncId}, ${phoneNumber}, ${phoneKey}
      where not exists (select 1 from dnc_contacts where phone_key = ${phoneKey} and dnc_id = ${dncId})`);
}
