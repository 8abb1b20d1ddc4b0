/**
 * The phonebooks of a campaign, voice or SMS (the link tables campaign_phonebooks and
 * sms_campaign_phonebooks, named by the kind): read for many campaigns at once, added, or set to
 * exactly a list; and the one rule of a phonebook's delete for every kind (contract §2): refused
 * while a running campaign dials it, else unlinked from the campaigns that do not run.
 */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/database.ts';
import { CampaignStatus } from '../db/schema.ts';
import { intArray } from '../db/sql.ts';
import { type CampaignKind, campaignKinds } from './kinds.ts';

/** The phonebook ids of each campaign, in id order. */
export async function linkedPhonebooks(db: Db, kind: CampaignKind, campaignIds: number[]): Promise<Map<number, number[]>> {
  const t = kind.tables;
  const out = new Map<number, number[]>(campaignIds.map((id) => [id, []]));
  if (campaignIds.length === 0) return out;
  const rows = await queryRows<{ campaign: number; phonebook: number }>(
    db,
    sql`select ${t.campaignColumn} as campaign, phonebook_id as phonebook from ${t.phonebooks}
        where ${t.campaignColumn} = any(${intArray(campaignIds)}) order by phonebook_id`,
  );
  for (const row of rows) out.get(Number(row.campaign))?.push(Number(row.phonebook));
  return out;
}

/** Links the phonebooks to the campaign; returns the ids that were not linked before. */
export async function linkPhonebooks(db: Db, kind: CampaignKind, campaignId: number, phonebookIds: number[]): Promise<number[]> {
  if (phonebookIds.length === 0) return [];
  const t = kind.tables;
  const rows = await queryRows<{ id: number }>(
    db,
    sql`insert into ${t.phonebooks} (${t.campaignColumn}, phonebook_id)
        select ${campaignId}, p from unnest(${intArray(phonebookIds)}) as p
        on conflict do nothing returning phonebook_id as id`,
  );
  return rows.map((r) => Number(r.id));
}

/** Makes the campaign's phonebooks exactly `phonebookIds`; returns the ids newly added. */
export async function setLinkedPhonebooks(db: Db, kind: CampaignKind, campaignId: number, phonebookIds: number[]): Promise<number[]> {
  const t = kind.tables;
  await db.execute(
    sql`delete from ${t.phonebooks} where ${t.campaignColumn} = ${campaignId} and not (phonebook_id = any(${intArray(phonebookIds)}))`,
  );
  return linkPhonebooks(db, kind, campaignId, phonebookIds);
}

/**
 * Whether a campaign in START, of any kind, dials this phonebook (its delete is then a 409). The
 * campaigns that use it are locked (for share) so none starts between this check and the delete.
 */
export async function isDialedByRunningCampaign(db: Db, phonebookId: number): Promise<boolean> {
  for (const { tables: t } of campaignKinds) {
    const rows = await queryRows<{ status: number }>(
      db,
      sql`select status from ${t.campaigns}
          where id in (select ${t.campaignColumn} from ${t.phonebooks} where phonebook_id = ${phonebookId}) for share`,
    );
    if (rows.some((row) => Number(row.status) === CampaignStatus.Start)) return true;
  }
  return false;
}

/**
 * Unlinks the phonebook from every campaign of every kind, as a DRF many-to-many does on a
 * delete; run it in a transaction after the isDialedByRunningCampaign check.
 */
export async function unlinkPhonebook(db: Db, phonebookId: number): Promise<void> {
  for (const { tables: t } of campaignKinds) await db.execute(sql`delete from ${t.phonebooks} where phonebook_id = ${phonebookId}`);
}
