/**
 * Spooling (contract §5): the active contacts of a campaign's phonebooks become its
 * subscribers, one per distinct number (its key, contract §1), in set-based SQL (INSERT … SELECT), so
 * a million contacts spool in seconds. Time zones are computed per number prefix (in JS, a
 * few thousand at most) and joined in the same INSERT. Contacts added later to the phonebooks of running campaigns join them through
 * `spoolNewContacts` (the trickle rule), which reads only contacts newer than the last spooled.
 */
import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/database.ts';
import { CampaignStatus, ContactStatus } from '../db/schema.ts';
import { zoneOfNumber } from './timezone.ts';

/** The tables of one kind of campaign: voice (the default) or SMS share every spool rule. */
export interface SpoolTarget {
  campaigns: SQLWrapper;
  subscribers: SQLWrapper;
  phonebooks: SQLWrapper;
  /** The campaign column in `subscribers` and `phonebooks`. */
  campaignColumn: SQLWrapper;
}

export const voiceSpool: SpoolTarget = {
  campaigns: sql.identifier('campaigns'),
  subscribers: sql.identifier('subscribers'),
  phonebooks: sql.identifier('campaign_phonebooks'),
  campaignColumn: sql.identifier('campaign_id'),
};

export const smsSpool: SpoolTarget = {
  campaigns: sql.identifier('sms_campaigns'),
  subscribers: sql.identifier('sms_subscribers'),
  phonebooks: sql.identifier('sms_campaign_phonebooks'),
  campaignColumn: sql.identifier('sms_campaign_id'),
};

export interface SpoolOptions {
  /** The instance time zone (contract §8: a number without country gets it). */
  timeZone?: string;
  /** Voice campaigns unless told otherwise. */
  target?: SpoolTarget;
}

/** Digits that pick a number's zone: the country code and, for +1, the area code. */
const PREFIX_DIGITS = 4;

async function maxContactId(db: Db): Promise<number> {
  const [row] = await queryRows<{ m: number | null }>(db, sql`select max(id) as m from contacts`);
  return Number(row?.m ?? 0);
}

const prefixOf = (key: SQL) => sql`left(${key}, ${PREFIX_DIGITS})`;

/**
 * The zone of each number prefix found in the phonebooks `books` (an SQL list of ids), as JSON
 * rows {prefix, tz_code, gmt_offset} for the INSERT to join. A prefix is the first digits of a
 * number's key (its E.164 digits, contract §1), so a national number is zoned by its country,
 * not by its first digits read as a country code. Prefixes are found by a skip scan of the
 * (phonebook_id, phone_key) index: from each key, the next one past its prefix (keys sort
 * bytewise, collation "C"), one index probe per prefix, instead of reading every contact
 * (half a second for a million). It sees every contact of the phonebooks, a superset of those
 * spooled: the extra prefixes are harmless.
 */
async function zonesOfPhonebooks(db: Db, books: SQL, timeZone: string): Promise<string> {
  const prefixes = await queryRows<{ prefix: string; sample: string }>(
    db,
    sql`with recursive books as (${books}), found as (
          select b.id as book, f.phone_key from books b, lateral (
            select c.phone_key from contacts c where c.phonebook_id = b.id order by c.phone_key limit 1) f
          union all
          select found.book, n.phone_key from found, lateral (
            select c.phone_key from contacts c
            where c.phonebook_id = found.book and c.phone_key > (${prefixOf(sql`found.phone_key`)} || chr(255)) collate "C"
            order by c.phone_key limit 1) n
        )
        select ${prefixOf(sql`phone_key`)} as prefix, min(phone_key) as sample from found group by 1`,
  );
  const now = new Date();
  return JSON.stringify(prefixes.map(({ prefix, sample }) => ({ prefix, ...zoneOfNumber(sample, timeZone, now) })));
}

/**
 * Inserts the active contacts with `after` < id ≤ `upTo` of the phonebooks (all of the
 * campaign's, or only `phonebookIds`) as subscribers of the campaign, one per number not yet a
 * subscriber, their time zone joined from a per-prefix table in the same statement (one write
 * per row). Returns how many joined.
 *
 * The campaign row is locked first, once: spools of one campaign run one after the other (so
 * the NOT EXISTS below sees every subscriber already written, and a plain INSERT needs no
 * ON CONFLICT, which cost a third more), and the campaign cannot be deleted under them
 * (subscribers have no per-row foreign keys: migration 0011).
 */
async function insertSubscribers(
  db: Db,
  campaignId: number,
  after: number,
  upTo: number,
  { phonebookIds, timeZone = 'UTC', target = voiceSpool }: SpoolOptions & { phonebookIds?: number[] } = {},
): Promise<number> {
  const t = target;
  const onlyPhonebooks = phonebookIds
    ? sql`and cp.phonebook_id in (${sql.join(phonebookIds.map((id) => sql`${id}`), sql`, `)})`
    : sql``;
  const books = sql`select cp.phonebook_id as id from ${t.phonebooks} cp where cp.${t.campaignColumn} = ${campaignId} ${onlyPhonebooks}`;
  const source = sql`from contacts c
          where c.id > ${after} and c.id <= ${upTo} and c.status = ${ContactStatus.Active} and c.phonebook_id in (${books})`;
  return db.transaction(async (tx) => {
    const campaign = await queryRows(tx, sql`select id from ${t.campaigns} where id = ${campaignId} for no key update`);
    if (campaign.length === 0) return 0;
    // The sort that keeps one subscriber per number fits in memory (a million numbers: ~100 MB
    // for this transaction only) instead of spilling to disk.
    await tx.execute(sql`set local work_mem = '256MB'`);
    const zones = await zonesOfPhonebooks(tx, books, timeZone);
    const [row] = await queryRows<{ n: number }>(
      tx,
      // One subscriber per number (contract §1: per key, so +12035550101 and (203) 555-0101
      // are one): DISTINCT ON keeps a key's first contact (keys sort bytewise, collation "C"),
      // NOT EXISTS skips keys the campaign already has. Subscribers are written in contact
      // order, the order they are dialled in (by subscriber id).
      sql`with src as (
            select distinct on (c.phone_key) c.id, c.contact, c.phone_key, c.full_name, c.additional_vars ${source}
              and not exists (
                select 1 from ${t.subscribers} s where s.${t.campaignColumn} = ${campaignId} and s.phone_key = c.phone_key)
            order by c.phone_key, c.id
          ), ins as (
            insert into ${t.subscribers} (${t.campaignColumn}, contact_id, duplicate_contact, phone_key, full_name, additional_vars, tz_code, gmt_offset)
            select ${campaignId}, src.id, src.contact, src.phone_key, left(src.full_name, 200), src.additional_vars,
                   coalesce(z.tz_code, ''), z.gmt_offset
            from src left join jsonb_to_recordset(${zones}::jsonb) as z(prefix text, tz_code text, gmt_offset numeric)
              on z.prefix = ${prefixOf(sql`src.phone_key`)}
            order by src.id
            returning 1
          )
          select count(*)::int as n from ins`,
    );
    const joined = Number(row?.n ?? 0);
    // Only a spool that read every phonebook of the campaign may move the trickle's marker: one
    // of some phonebooks (newly linked) did not see contacts just added to the others, and
    // moving the marker past them would leave them out for good.
    const marker = phonebookIds ? sql`last_spooled_contact_id` : sql`greatest(last_spooled_contact_id, ${upTo})`;
    await tx.execute(
      sql`update ${t.campaigns} set totalcontact = totalcontact + ${joined}, last_spooled_contact_id = ${marker}
          where id = ${campaignId}`,
    );
    return joined;
  });
}

/**
 * Spools every active contact of the campaign's phonebooks (the first start). Idempotent: a
 * number already a subscriber is skipped. Returns how many subscribers joined.
 */
export async function spoolCampaign(db: Db, campaignId: number, options: SpoolOptions = {}): Promise<number> {
  const upTo = await maxContactId(db);
  return insertSubscribers(db, campaignId, 0, upTo, options);
}

/** Spools the contacts of phonebooks just added to a running campaign (contract §5). */
export async function spoolPhonebooks(
  db: Db,
  campaignId: number,
  phonebookIds: number[],
  options: SpoolOptions = {},
): Promise<number> {
  if (phonebookIds.length === 0) return 0;
  const upTo = await maxContactId(db);
  return insertSubscribers(db, campaignId, 0, upTo, { ...options, phonebookIds });
}

/**
 * The trickle rule (contract §5): contacts added to the phonebooks of START campaigns since
 * they were last spooled join them. Cheap when nothing is new: it reads contacts by id range
 * only. The engine calls it each cycle. `phonebookId`: only the campaigns that dial that
 * phonebook (a contact just added to it, POST /subscriber/); the engine's cycle does the rest.
 * Returns how many subscribers joined in all.
 */
export async function spoolNewContacts(db: Db, options: SpoolOptions & { phonebookId?: number } = {}): Promise<number> {
  const t = options.target ?? voiceSpool;
  const dialling =
    options.phonebookId === undefined ? sql`` : sql`and id in (select ${t.campaignColumn} from ${t.phonebooks} where phonebook_id = ${options.phonebookId})`;
  const running = await queryRows<{ id: number; last: number }>(
    db,
    sql`select id, last_spooled_contact_id as last from ${t.campaigns} where status = ${CampaignStatus.Start} ${dialling}`,
  );
  if (running.length === 0) return 0;
  const upTo = await maxContactId(db);
  let joined = 0;
  for (const campaign of running) {
    if (Number(campaign.last) < upTo) joined += await insertSubscribers(db, campaign.id, Number(campaign.last), upTo, options);
  }
  return joined;
}
