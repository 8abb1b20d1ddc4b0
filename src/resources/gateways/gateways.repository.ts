/** The gateways' table access, the same statements for every kind over its own table. */
import { asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { CampaignStatus } from '../../db/schema.ts';
import type { GatewayKind, GatewayTable, RowOf, ValuesOf } from './gateway-kind.ts';

/**
 * The gateway with this id, active or not. Contract §8: any gateway may be used by any user,
 * so this is also the check of a link to a gateway (a campaign's `aleg_gateway`).
 */
export async function findRow<T extends GatewayTable>(table: T, db: Db, id: number): Promise<RowOf<T> | undefined> {
  const rows = await db.select().from(table as GatewayTable).where(eq(table.id, id));
  return rows[0] as RowOf<T> | undefined;
}

export async function findRowByName<T extends GatewayTable>(table: T, db: Db, name: string): Promise<RowOf<T> | undefined> {
  const rows = await db.select().from(table as GatewayTable).where(eq(table.name, name));
  return rows[0] as RowOf<T> | undefined;
}

export function countRows(table: GatewayTable, db: Db): Promise<number> {
  return db.$count(table);
}

export async function listRows<T extends GatewayTable>(table: T, db: Db, limit: number, offset: number): Promise<RowOf<T>[]> {
  return (await db.select().from(table as GatewayTable).orderBy(asc(table.id)).limit(limit).offset(offset)) as RowOf<T>[];
}

export async function insertRow<T extends GatewayTable>(table: T, db: Db, values: ValuesOf<T>): Promise<RowOf<T>> {
  return (await db.insert(table as GatewayTable).values(values as ValuesOf<GatewayTable>).returning())[0] as RowOf<T>;
}

export async function updateRow<T extends GatewayTable>(table: T, db: Db, id: number, values: Partial<ValuesOf<T>>): Promise<void> {
  await db
    .update(table as GatewayTable)
    .set({ ...values, updated_date: sql`now()` })
    .where(eq(table.id, id));
}

/**
 * Whether campaigns dial or send through this gateway (running, or at all), locked (for share)
 * so that none starts or takes the gateway between this check and the delete. SMS campaigns
 * share the voice campaigns' statuses (contract §5).
 */
export async function campaignsUsing(kind: GatewayKind, db: Db, id: number): Promise<{ running: boolean; any: boolean }> {
  const { table, gateway, status } = kind.usedBy;
  const rows = await db.select({ status }).from(table).where(eq(gateway, id)).for('share');
  return { running: rows.some((row) => row.status === CampaignStatus.Start), any: rows.length > 0 };
}

export async function deleteRow(table: GatewayTable, db: Db, id: number): Promise<void> {
  await db.delete(table).where(eq(table.id, id));
}
