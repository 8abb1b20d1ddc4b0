import { asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { CampaignStatus, campaigns, gateways } from '../../db/schema.ts';

export type GatewayRow = typeof gateways.$inferSelect;
export type GatewayValues = typeof gateways.$inferInsert;

/**
 * The gateway with this id, active or not. Contract §8: any gateway may be used by any user,
 * so this is also the check of a link to a gateway (a campaign's `aleg_gateway`).
 */
export async function findGateway(db: Db, id: number): Promise<GatewayRow | undefined> {
  return (await db.select().from(gateways).where(eq(gateways.id, id)))[0];
}

export async function findGatewayByName(db: Db, name: string): Promise<GatewayRow | undefined> {
  return (await db.select().from(gateways).where(eq(gateways.name, name)))[0];
}

export function countGateways(db: Db): Promise<number> {
  return db.$count(gateways);
}

export function listGateways(db: Db, limit: number, offset: number): Promise<GatewayRow[]> {
  return db.select().from(gateways).orderBy(asc(gateways.id)).limit(limit).offset(offset);
}

export async function insertGateway(db: Db, values: GatewayValues): Promise<GatewayRow> {
  return (await db.insert(gateways).values(values).returning())[0];
}

export async function updateGateway(db: Db, id: number, values: Partial<GatewayValues>): Promise<void> {
  await db
    .update(gateways)
    .set({ ...values, updated_date: sql`now()` })
    .where(eq(gateways.id, id));
}

/**
 * The statuses of the campaigns that dial through this gateway, locked (for share) so that
 * none starts or takes the gateway between this check and the delete.
 */
export async function campaignsUsing(db: Db, id: number): Promise<{ running: boolean; any: boolean }> {
  const rows = await db.select({ status: campaigns.status }).from(campaigns).where(eq(campaigns.aleg_gateway_id, id)).for('share');
  return { running: rows.some((row) => row.status === CampaignStatus.Start), any: rows.length > 0 };
}

export async function deleteGateway(db: Db, id: number): Promise<void> {
  await db.delete(gateways).where(eq(gateways.id, id));
}
