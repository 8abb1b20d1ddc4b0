import { asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { CampaignStatus, smsCampaigns, smsGateways } from '../../db/schema.ts';

export type SmsGatewayRow = typeof smsGateways.$inferSelect;
export type SmsGatewayValues = typeof smsGateways.$inferInsert;

/** The SMS gateway with this id, active or not (any user may use any gateway, contract §8). */
export async function findSmsGateway(db: Db, id: number): Promise<SmsGatewayRow | undefined> {
  return (await db.select().from(smsGateways).where(eq(smsGateways.id, id)))[0];
}

export async function findSmsGatewayByName(db: Db, name: string): Promise<SmsGatewayRow | undefined> {
  return (await db.select().from(smsGateways).where(eq(smsGateways.name, name)))[0];
}

export function countSmsGateways(db: Db): Promise<number> {
  return db.$count(smsGateways);
}

export function listSmsGateways(db: Db, limit: number, offset: number): Promise<SmsGatewayRow[]> {
  return db.select().from(smsGateways).orderBy(asc(smsGateways.id)).limit(limit).offset(offset);
}

export async function insertSmsGateway(db: Db, values: SmsGatewayValues): Promise<SmsGatewayRow> {
  return (await db.insert(smsGateways).values(values).returning())[0];
}

export async function updateSmsGateway(db: Db, id: number, values: Partial<SmsGatewayValues>): Promise<void> {
  await db
    .update(smsGateways)
    .set({ ...values, updated_date: sql`now()` })
    .where(eq(smsGateways.id, id));
}

/**
 * Whether SMS campaigns send through this gateway (running or at all), locked (for share) so
 * that none starts or takes the gateway between this check and the delete. SMS campaigns share
 * the voice campaigns' statuses (contract §5).
 */
export async function smsCampaignsUsing(db: Db, id: number): Promise<{ running: boolean; any: boolean }> {
  const rows = await db.select({ status: smsCampaigns.status }).from(smsCampaigns).where(eq(smsCampaigns.sms_gateway_id, id)).for('share');
  return { running: rows.some((row) => row.status === CampaignStatus.Start), any: rows.length > 0 };
}

export async function deleteSmsGateway(db: Db, id: number): Promise<void> {
  await db.delete(smsGateways).where(eq(smsGateways.id, id));
}
