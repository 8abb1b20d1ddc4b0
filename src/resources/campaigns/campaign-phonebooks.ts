/**
 * The phonebooks of a campaign, voice or SMS (the link tables campaign_phonebooks and
 * sms_campaign_phonebooks, named by the spool's target): read for many campaigns at once, added,
 * or set to exactly a list. Written once for both kinds of campaign.
 */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';
import type { SpoolTarget } from '../../campaign/spool.ts';

/** One SQL parameter holding a list of ids. */
const idArray = (ids: number[]) => sql`${`{${ids.join(',')}}`}::int[]`;

/** The phonebook ids of each campaign, in id order. */
export async function linkedPhonebooks(db: Db, t: SpoolTarget, campaignIds: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(campaignIds.map((id) => [id, []]));
  if (campaignIds.length === 0) return out;
  const rows = await queryRows<{ campaign: number; phonebook: number }>(
    db,
    sql`select ${t.campaignColumn} as campaign, phonebook_id as phonebook from ${t.phonebooks}
        where ${t.campaignColumn} = any(${idArray(campaignIds)}) order by phonebook_id`,
  );
  for (const row of rows) out.get(Number(row.campaign))?.push(Number(row.phonebook));
  return out;
}

/** Links the phonebooks to the campaign; returns the ids that were not linked before. */
export async function linkPhonebooks(db: Db, t: SpoolTarget, campaignId: number, phonebookIds: number[]): Promise<number[]> {
  if (phonebookIds.length === 0) return [];
  const rows = await queryRows<{ id: number }>(
    db,
    sql`insert into ${t.phonebooks} (${t.campaignColumn}, phonebook_id)
        select ${campaignId}, p from unnest(${idArray(phonebookIds)}) as p
        on conflict do nothing returning phonebook_id as id`,
  );
  return rows.map((r) => Number(r.id));
}

/** Makes the campaign's phonebooks exactly `phonebookIds`; returns the ids newly added. */
export async function setLinkedPhonebooks(db: Db, t: SpoolTarget, campaignId: number, phonebookIds: number[]): Promise<number[]> {
  await db.execute(
    sql`delete from ${t.phonebooks} where ${t.campaignColumn} = ${campaignId} and not (phonebook_id = any(${idArray(phonebookIds)}))`,
  );
  return linkPhonebooks(db, t, campaignId, phonebookIds);
}
