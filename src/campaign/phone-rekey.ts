/**
 * Recomputes stored numbers' keys (contract §1; migration 0023): after the migration (which
 * could only store digits), and after DEFAULT_COUNTRY or an account's `default_country`
 * changes. Only a number written without '+' can have a key other than its digits, so only
 * those rows are read: in id order, a batch at a time, the keys computed by `phoneKey` and
 * written back in one UPDATE per batch (set-based), only where they change.
 * `campaign-dialer phone rekey` runs it (src/resources/phone/phone.cli.ts).
 */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/database.ts';
import { phoneKey } from '../http/phone.ts';

interface KeyedTable {
  table: string;
  number: string;
  /** The table of the row's parent, which names its owner (`user_id`). */
  parent: string;
  parentColumn: string;
}

/** Every table holding numbers with their key. */
export const keyedTables: readonly KeyedTable[] = [
  { table: 'contacts', number: 'contact', parent: 'phonebooks', parentColumn: 'phonebook_id' },
  { table: 'dnc_contacts', number: 'phone_number', parent: 'dnc_lists', parentColumn: 'dnc_id' },
  { table: 'subscribers', number: 'duplicate_contact', parent: 'campaigns', parentColumn: 'campaign_id' },
  { table: 'sms_subscribers', number: 'duplicate_contact', parent: 'sms_campaigns', parentColumn: 'sms_campaign_id' },
  { table: 'callrequests', number: 'phone_number', parent: 'campaigns', parentColumn: 'campaign_id' },
];

const BATCH = 10_000;

/** Rekeys one table; returns how many keys changed. */
async function rekeyTable(db: Db, t: KeyedTable, defaultCountry: string | undefined): Promise<number> {
  const id = sql.identifier;
  let after = 0;
  let changed = 0;
  for (;;) {
    const rows = await queryRows<{ id: string; number: string; key: string; country: string | null }>(
      db,
      sql`select r.id, r.${id(t.number)} as number, r.phone_key as key, u.default_country as country
          from ${id(t.table)} r join ${id(t.parent)} p on p.id = r.${id(t.parentColumn)} join users u on u.id = p.user_id
          where r.id > ${after} and left(r.${id(t.number)}, 1) <> '+'
          order by r.id limit ${BATCH}`,
    );
    if (rows.length === 0) return changed;
    after = Number(rows[rows.length - 1].id);
    const updates = rows
      .map((r) => ({ id: Number(r.id), key: phoneKey(r.number, r.country ?? defaultCountry), old: r.key }))
      .filter((r) => r.key !== r.old);
    if (updates.length > 0) {
      await db.execute(
        sql`update ${id(t.table)} r set phone_key = v.key
            from jsonb_to_recordset(${JSON.stringify(updates.map(({ id, key }) => ({ id, key })))}::jsonb) as v(id bigint, key text)
            where r.id = v.id`,
      );
      changed += updates.length;
    }
  }
}

/** Rekeys every table holding numbers; returns how many keys changed in each. */
export async function rekeyNumbers(db: Db, defaultCountry: string | undefined): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const t of keyedTables) counts[t.table] = await rekeyTable(db, t, defaultCountry);
  return counts;
}
