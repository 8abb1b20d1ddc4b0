import crypto from 'node:crypto';
import { and, asc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';
import { campaigns, gateways } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ownedBy } from '../../http/scope.ts';
import { voiceSpool } from '../../campaign/spool.ts';
import { linkedPhonebooks, linkPhonebooks, setLinkedPhonebooks } from './campaign-phonebooks.ts';

export type CampaignRow = typeof campaigns.$inferSelect;
export type CampaignInsert = typeof campaigns.$inferInsert;

/** The campaigns `user` may see. */
export const visibleCampaigns = (user: AuthUser): SQL | undefined => ownedBy(user, campaigns.user_id);

export async function findCampaign(db: Db, user: AuthUser, id: number): Promise<CampaignRow | undefined> {
  return (await db.select().from(campaigns).where(and(eq(campaigns.id, id), visibleCampaigns(user))))[0];
}

/** The campaign row locked for a state change (FOR UPDATE), visible to `user`. */
export async function lockCampaign(db: Db, user: AuthUser, id: number): Promise<CampaignRow | undefined> {
  return (await db.select().from(campaigns).where(and(eq(campaigns.id, id), visibleCampaigns(user))).for('update'))[0];
}

export function countCampaigns(db: Db, where: SQL | undefined): Promise<number> {
  return db.$count(campaigns, where);
}

export function listCampaigns(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<CampaignRow[]> {
  return db.select().from(campaigns).where(where).orderBy(asc(campaigns.id)).limit(limit).offset(offset);
}

/** Whether the owner already has a campaign of that name (other than `exceptId`). */
export async function nameTaken(db: Db, userId: number, name: string, exceptId = 0): Promise<boolean> {
  const rows = await db
    .select({ id: campaigns.id })
    .from(campaigns)
    .where(and(eq(campaigns.user_id, userId), eq(campaigns.name, name), sql`${campaigns.id} <> ${exceptId}`))
    .limit(1);
  return rows.length > 0;
}

/** A random uppercase code, unique among campaigns (retried on the rare collision). */
export async function newCampaignCode(db: Db): Promise<string> {
  for (;;) {
    const code = crypto.randomBytes(8).toString('base64url').replace(/[^A-Za-z0-9]/g, '').slice(0, 10).toUpperCase();
    if (code.length < 10) continue;
    const taken = await db.select({ id: campaigns.id }).from(campaigns).where(eq(campaigns.campaign_code, code)).limit(1);
    if (taken.length === 0) return code;
  }
}

export async function insertCampaign(db: Db, values: CampaignInsert): Promise<CampaignRow> {
  return (await db.insert(campaigns).values(values).returning())[0];
}

export async function updateCampaign(db: Db, id: number, values: Partial<CampaignInsert>): Promise<CampaignRow> {
  return (
    await db
      .update(campaigns)
      .set({ ...values, updated_date: sql`now()` })
      .where(eq(campaigns.id, id))
      .returning()
  )[0];
}

export async function deleteCampaign(db: Db, id: number): Promise<void> {
  await db.delete(campaigns).where(eq(campaigns.id, id));
}

/** The phonebook ids of each campaign. */
export const phonebooksOf = (db: Db, campaignIds: number[]) => linkedPhonebooks(db, voiceSpool, campaignIds);

/** Links the phonebooks to the campaign; returns the ids that were not linked before. */
export const addPhonebooks = (db: Db, campaignId: number, phonebookIds: number[]) => linkPhonebooks(db, voiceSpool, campaignId, phonebookIds);

/** Makes the campaign's phonebooks exactly `phonebookIds`; returns the ids newly added. */
export const setPhonebooks = (db: Db, campaignId: number, phonebookIds: number[]) => setLinkedPhonebooks(db, voiceSpool, campaignId, phonebookIds);

/** Status of each gateway (1 active, 0 inactive). */
export async function gatewayStatuses(db: Db, ids: number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db.select({ id: gateways.id, status: gateways.status }).from(gateways).where(inArray(gateways.id, ids));
  return new Map(rows.map((r) => [r.id, r.status]));
}

export interface CampaignTotals {
  bySubscriberStatus: Map<number, number>;
  calls_placed: number;
  answered: number;
  total_cost: string;
}

/** Subscribers by status, calls placed, answered calls and their cost, for each campaign. */
export async function totalsOf(db: Db, campaignIds: number[]): Promise<Map<number, CampaignTotals>> {
  const out = new Map<number, CampaignTotals>();
  if (campaignIds.length === 0) return out;
  for (const id of campaignIds) out.set(id, { bySubscriberStatus: new Map(), calls_placed: 0, answered: 0, total_cost: '0' });
  const ids = sql.join(campaignIds.map((id) => sql`${id}`), sql`, `);
  const subs = await queryRows<{ campaign_id: number; status: number; n: number }>(
    db,
    sql`select campaign_id, status, count(*)::int as n from subscribers where campaign_id in (${ids}) group by 1, 2`,
  );
  for (const r of subs) out.get(r.campaign_id)?.bySubscriberStatus.set(Number(r.status), Number(r.n));
  const calls = await queryRows<{ campaign_id: number; n: number }>(
    db,
    sql`select campaign_id, count(*)::int as n from callrequests where campaign_id in (${ids}) group by 1`,
  );
  for (const r of calls) (out.get(r.campaign_id) as CampaignTotals).calls_placed = Number(r.n);
  const cdrRows = await queryRows<{ campaign_id: number; answered: number; cost: string }>(
    db,
    sql`select campaign_id, count(*) filter (where leg_type = 1 and disposition = 'ANSWER')::int as answered,
          coalesce(sum(call_cost), 0)::text as cost
        from cdrs where campaign_id in (${ids}) group by 1`,
  );
  for (const r of cdrRows) Object.assign(out.get(r.campaign_id) as CampaignTotals, { answered: Number(r.answered), total_cost: r.cost });
  return out;
}
