import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';

/** Locks the phonebook so that two bulk adds to it check and insert one after the other. */
export async function lockPhonebook(db: Db, phonebookId: number): Promise<void> {
  await db.execute(sql`select id from phonebooks where id = ${phonebookId} for no key update`);
}

/** The first of `numbers` (in their order) already in the phonebook, through the (phonebook_id, contact) index. */
export async function firstNumberInPhonebook(db: Db, phonebookId: number, numbers: string[]): Promise<string | undefined> {
  const [row] = await queryRows<{ contact: string }>(
    db,
    sql`select n.value as contact
        from jsonb_array_elements_text(${JSON.stringify(numbers)}::jsonb) with ordinality as n(value, i)
        where exists (select 1 from contacts c where c.phonebook_id = ${phonebookId} and c.contact = n.value)
        order by n.i limit 1`,
  );
  return row?.contact;
}

/** Adds the numbers (with their keys, contract §1) to the phonebook as active contacts, in one statement whatever their count. */
export async function insertNumbers(db: Db, phonebookId: number, numbers: { contact: string; key: string }[]): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`with ins as (
          insert into contacts (phonebook_id, contact, phone_key)
          select ${phonebookId}, n.contact, n.key
          from jsonb_to_recordset(${JSON.stringify(numbers.map((n, i) => ({ ...n, i })))}::jsonb) as n(contact text, key text, i int)
          order by n.i
          returning 1
        )
        select count(*)::int as n from ins`,
  );
  return Number(row?.n ?? 0);
}
