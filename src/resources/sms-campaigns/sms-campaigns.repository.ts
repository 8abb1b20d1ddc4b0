/** SQL of the sms-campaigns resource: find, list, insert, update, delete, and the set reads of a record. */
import crypto from 'node:crypto';
import { and, asc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';
import { smsCampaigns, smsGateways } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ownedBy } from '../../http/scope.ts';
import { smsSpool } from '../../campaign/spool.ts';
import { linkedPhonebooks, linkPhonebooks, setLinkedPhonebooks } from '../campaigns/campaign-phonebooks.ts';

export type SmsCampaignRow = typeof smsCampaigns.$inferSelect;
export type SmsCampaignInsert = typeof smsCampaigns.$inferInsert;

/** The SMS campaigns `user` may see. */
export const visibleSmsCampaigns = (user: AuthUser): SQL | undefined => ownedBy(user, smsCampaigns.user_id);

export async function findSmsCampaign(db: Db, user: AuthUser, id: number): Promise<SmsCampaignRow | undefined> {
  return (await db.select().from(smsCampaigns).where(and(eq(smsCampaigns.id, id), visibleSmsCampaigns(user))))[0];
}

/** The row locked for a state change (FOR UPDATE), visible to `user`. */
export async function lockSmsCampaign(db: Db, user: AuthUser, id: number): Promise<SmsCampaignRow | undefined> {
  return (await db.select().from(smsCampaigns).where(and(eq(smsCampaigns.id, id), visibleSmsCampaigns(user))).for('update'))[0];
}

export function countSmsCampaigns(db: Db, where: SQL | undefined): Promise<number> {
  return db.$count(smsCampaigns, where);
}

export function listSmsCampaigns(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<SmsCampaignRow[]> {
  return db.select().from(smsCampaigns).where(where).orderBy(asc(smsCampaigns.id)).limit(limit).offset(offset);
}

/** Whether the owner already has an SMS campaign of that name (other than `exceptId`). */
export async function smsNameTaken(db: Db, userId: number, name: string, exceptId = 0): Promise<boolean> {
  const rows = await db
    .select({ id: smsCampaigns.id })
    .from(smsCampaigns)
    .where(and(eq(smsCampaigns.user_id, userId), eq(smsCampaigns.name, name), sql`${smsCampaigns.id} <> ${exceptId}`))
    .limit(1);
  return rows.length > 0;
}

/** A random uppercase code, unique among SMS campaigns (retried on the rare collision). */
export async function newSmsCampaignCode(db: Db): Promise<string> {
  for (;;) {
    const code = crypto.randomBytes(8).toString('base64url').replace(/[^A-Za-z0-9]/g, '').slice(0, 10).toUpperCase();
    if (code.length < 10) continue;
    const taken = await db.select({ id: smsCampaigns.id }).from(smsCampaigns).where(eq(smsCampaigns.sms_campaign_code, code)).limit(1);
    if (taken.length === 0) return code;
  }
}

export async function insertSmsCampaign(db: Db, values: SmsCampaignInsert): Promise<SmsCampaignRow> {
  return (await db.insert(smsCampaigns).values(values).returning())[0];
}

export async function updateSmsCampaign(db: Db, id: number, values: Partial<SmsCampaignInsert>): Promise<SmsCampaignRow> {
  return (
    await db
      .update(smsCampaigns)
      .set({ ...values, updated_date: sql`now()` })
      .where(eq(smsCampaigns.id, id))
      .returning()
  )[0];
}

export async function deleteSmsCampaign(db: Db, id: number): Promise<void> {
  await db.delete(smsCampaigns).where(eq(smsCampaigns.id, id));
}

/** The phonebook ids of each SMS campaign. */
export const smsPhonebooksOf = (db: Db, ids: number[]) => linkedPhonebooks(db, smsSpool, ids);

/** Links the phonebooks to the SMS campaign; returns the ids that were not linked before. */
export const addSmsPhonebooks = (db: Db, campaignId: number, phonebookIds: number[]) => linkPhonebooks(db, smsSpool, campaignId, phonebookIds);

/** Makes the SMS campaign's phonebooks exactly `phonebookIds`; returns the ids newly added. */
export const setSmsPhonebooks = (db: Db, campaignId: number, phonebookIds: number[]) => setLinkedPhonebooks(db, smsSpool, campaignId, phonebookIds);

/** Status of each SMS gateway (1 active, 0 inactive). */
export async function smsGatewayStatuses(db: Db, ids: number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db.select({ id: smsGateways.id, status: smsGateways.status }).from(smsGateways).where(inArray(smsGateways.id, ids));
  return new Map(rows.map((r) => [r.id, r.status]));
}

export interface SmsCampaignTotals {
  bySubscriberStatus: Map<number, number>;
  messages_sent: number;
  delivered: number;
  failed: number;
  total_cost: string;
}

/** Subscribers by status, messages sent, delivered, failed and their cost, for each SMS campaign. */
export async function smsTotalsOf(db: Db, ids: number[]): Promise<Map<number, SmsCampaignTotals>> {
  const out = new Map<number, SmsCampaignTotals>();
  if (ids.length === 0) return out;
  for (const id of ids) out.set(id, { bySubscriberStatus: new Map(), messages_sent: 0, delivered: 0, failed: 0, total_cost: '0' });
  const list = sql.join(ids.map((id) => sql`${id}`), sql`, `);
  const subs = await queryRows<{ id: number; status: number; n: number }>(
    db,
    sql`select sms_campaign_id as id, status, count(*)::int as n from sms_subscribers where sms_campaign_id in (${list}) group by 1, 2`,
  );
  for (const r of subs) out.get(r.id)?.bySubscriberStatus.set(Number(r.status), Number(r.n));
  const messages = await queryRows<{ id: number; sent: number; delivered: number; failed: number; cost: string }>(
    db,
    sql`select sms_campaign_id as id, count(*) filter (where send_date is not null)::int as sent,
          count(*) filter (where status = 'delivered')::int as delivered, count(*) filter (where status = 'failed')::int as failed,
          coalesce(sum(cost) filter (where status <> 'unsent'), 0)::text as cost
        from sms_messages where sms_campaign_id in (${list}) group by 1`,
  );
  for (const r of messages) {
    Object.assign(out.get(r.id) as SmsCampaignTotals, { messages_sent: r.sent, delivered: r.delivered, failed: r.failed, total_cost: r.cost });
  }
  return out;
}
