import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';
import { json } from '../../db/sql.ts';

/** Locks the phonebook so that two bulk adds to it check and insert one after the other. */
export async function lockPhonebook(db: Db, phonebookId: number): Promise<void> {
  await db.execute(sql`select id from phonebooks where id = ${phonebookId} for no key update`);
}

/**
 * The position in `keys` of the first key already in the phonebook (contract §1: a number is
 * there when a contact of it has the same key, however either was written), or undefined;
 * each key is one probe of the (phonebook_id, phone_key) index, contacts_phonebook_key_idx.
 */
export async function firstKeyInPhonebook(db: Db, phonebookId: number, keys: string[]): Promise<number | undefined> {
  const [row] = await queryRows<{ i: number }>(
    db,
    sql`select (n.i - 1)::int as i
        from jsonb_array_elements_text(${json(keys)}) with ordinality as n(key, i)
        where exists (select 1 from contacts c where c.phonebook_id = ${phonebookId} and c.phone_key = n.key)
        order by n.i limit 1`,
  );
  return row === undefined ? undefined : Number(row.i);
}

/** Adds the numbers (with their keys, contract §1) to the phonebook as active contacts, in one statement whatever their count. */
export async function insertNumbers(db: Db, phonebookId: number, numbers: { contact: string; key: string }[]): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`with ins as (
          insert into contacts (phonebook_id, contact, phone_key)
          select ${phonebookId}, n.contact, n.key
          from jsonb_to_recordset(${json(numbers.map((n, i) => ({ ...n, i })))}) as n(contact text, key text, i int)
          order by n.i
          returning 1
        )
        select count(*)::int as n from ins`,
  );
  return Number(row?.n ?? 0);
}
