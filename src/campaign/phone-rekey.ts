/**
 * Recomputes stored numbers' keys (contract §1; migration 0023): after the migration (which
 * could only store digits), and after DEFAULT_COUNTRY or an account's `default_country`
 * changes. Only a number written without '+' can have a key other than its digits, so only
 * those rows are read: in id order, a batch at a time, the keys computed by `phoneKey` and
 * written back in one UPDATE per batch (set-based), only where they change.
 *
 * A subscriber's time zone was derived from its key when it was spooled (or added through the
 * API), so a key that changes can take a wrong zone with it: `2035550101` read before keys as
 * +20 was zoned Africa/Cairo. The same UPDATE re-zones (tz_code, gmt_offset) the subscribers
 * whose key changes that are not final yet (PENDING, PAUSE, IN_PROCESS: voice and SMS statuses
 * agree on these) and whose zone is the one the old key gave (or none): a zone given through the
 * API is kept, and a final subscriber's record stays as it was when it was called.
 * `campaign-dialer phone rekey` runs it (src/resources/phone/phone.cli.ts).
 */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/database.ts';
import { phoneKey } from '../http/phone.ts';
import { SubscriberStatus } from '../db/schema.ts';
import { json } from '../db/sql.ts';
import { zoneOfNumber } from './timezone.ts';

interface KeyedTable {
  table: string;
  number: string;
  /** The table of the row's parent, which names its owner (`user_id`). */
  parent: string;
  parentColumn: string;
  /** A subscribers table: its not-yet-final rows' time zones follow their keys. */
  zoned?: true;
}

/** Every table holding numbers with their key. */
export const keyedTables: readonly KeyedTable[] = [
  { table: 'contacts', number: 'contact', parent: 'phonebooks', parentColumn: 'phonebook_id' },
  { table: 'dnc_contacts', number: 'phone_number', parent: 'dnc_lists', parentColumn: 'dnc_id' },
  { table: 'subscribers', number: 'duplicate_contact', parent: 'campaigns', parentColumn: 'campaign_id', zoned: true },
  { table: 'sms_subscribers', number: 'duplicate_contact', parent: 'sms_campaigns', parentColumn: 'sms_campaign_id', zoned: true },
  { table: 'callrequests', number: 'phone_number', parent: 'campaigns', parentColumn: 'campaign_id' },
];

const BATCH = 10_000;

/** Statuses of a subscriber not final yet (the same numbers in SmsSubscriberStatus). */
const NOT_FINAL = [SubscriberStatus.Pending, SubscriberStatus.Pause, SubscriberStatus.InProcess];

export interface RekeyCounts {
  /** Keys changed, per table. */
  keys: Record<string, number>;
  /** Time zones changed with them, per subscribers table. */
  zones: Record<string, number>;
}

interface KeyUpdate {
  id: number;
  key: string;
  old: string;
}

/** Writes a batch's new keys: one UPDATE. Returns how many time zones it changed (subscribers tables). */
async function writeKeys(db: Db, t: KeyedTable, updates: KeyUpdate[], timeZone: string): Promise<number> {
  const id = sql.identifier;
  if (!t.zoned) {
    await db.execute(
      sql`update ${id(t.table)} r set phone_key = v.key
          from jsonb_to_recordset(${json(updates.map(({ id, key }) => ({ id, key })))}) as v(id bigint, key text)
          where r.id = v.id`,
    );
    return 0;
  }
  // Each row's zone from its old key (`was`: the zone it was given) and from its new one.
  const now = new Date();
  const rows = updates.map(({ id, key, old }) => {
    const zone = zoneOfNumber(key, timeZone, now);
    return { id, key, was: zoneOfNumber(old, timeZone, now).tz_code, tz: zone.tz_code, off: zone.gmt_offset };
  });
  const rezone = sql`r.status in (${sql.join(NOT_FINAL.map((n) => sql`${n}`), sql`, `)}) and r.tz_code in ('', x.was)`;
  const changed = await queryRows<{ rezoned: boolean }>(
    db,
    sql`update ${id(t.table)} r set phone_key = x.key,
          tz_code = case when ${rezone} then x.tz else r.tz_code end,
          gmt_offset = case when ${rezone} then x.off else r.gmt_offset end
        from (select v.*, o.tz_code as old_tz
              from jsonb_to_recordset(${json(rows)}) as v(id bigint, key text, was text, tz text, off numeric)
              join ${id(t.table)} o on o.id = v.id) x
        where r.id = x.id
        returning r.tz_code is distinct from x.old_tz as rezoned`,
  );
  return changed.filter((r) => r.rezoned).length;
}

/** Rekeys one table; returns how many keys (and subscribers' time zones) changed. */
async function rekeyTable(db: Db, t: KeyedTable, defaultCountry: string | undefined, timeZone: string): Promise<{ keys: number; zones: number }> {
  const id = sql.identifier;
  let after = 0;
  const changed = { keys: 0, zones: 0 };
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
      changed.zones += await writeKeys(db, t, updates, timeZone);
      changed.keys += updates.length;
    }
  }
}

/**
 * Rekeys every table holding numbers; returns how many keys changed in each, and how many
 * subscribers' time zones with them. `timeZone` is the instance's (TIME_ZONE): the zone of a
 * number of no known country, as the spool gives it.
 */
export async function rekeyNumbers(db: Db, defaultCountry: string | undefined, timeZone = 'UTC'): Promise<RekeyCounts> {
  const counts: RekeyCounts = { keys: {}, zones: {} };
  for (const t of keyedTables) {
    const changed = await rekeyTable(db, t, defaultCountry, timeZone);
    counts.keys[t.table] = changed.keys;
    if (t.zoned) counts.zones[t.table] = changed.zones;
  }
  return counts;
}
