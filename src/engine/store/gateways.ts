/** The gateways a claim or a call's SMS section reads: a voice gateway, an SMS gateway, by id. */
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { gateways, smsGateways } from '../../db/schema.ts';

export type GatewayRow = typeof gateways.$inferSelect;
export type SmsGatewayRow = typeof smsGateways.$inferSelect;

export async function findGateway(db: Db, id: number): Promise<GatewayRow | undefined> {
  const [gateway] = await db.select().from(gateways).where(eq(gateways.id, id));
  return gateway;
}

export async function findSmsGateway(db: Db, id: number): Promise<SmsGatewayRow | undefined> {
  const [gateway] = await db.select().from(smsGateways).where(eq(smsGateways.id, id));
  return gateway;
}
