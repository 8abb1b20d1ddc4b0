/**
 * SQL of the campaigns resources, voice and SMS (the kind names the tables): find, list, insert,
 * delete, names and codes, and the set reads a record needs (phonebooks, gateways, subscribers).
 */
import crypto from 'node:crypto';
import { and, asc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';
import type { CampaignInsertOf, CampaignKind, CampaignRowOf, CampaignTable } from '../../campaign/kinds.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ownedBy } from '../../http/scope.ts';
import type { CampaignResource } from './resource-kind.ts';

/** The campaigns of the kind `user` may see. */
export const visibleCampaigns = (kind: CampaignKind, user: AuthUser): SQL | undefined => ownedBy(user, kind.table.user_id);

/** The campaign, visible to `user`; with `lock`, locked for a state change (FOR UPDATE). */
export async function findCampaign<T extends CampaignTable>(
  db: Db,
  kind: CampaignKind<T>,
  user: AuthUser,
  id: number,
  { lock = false } = {},
): Promise<CampaignRowOf<T> | undefined> {
  const table = kind.table as CampaignTable;
  const query = db.select().from(table).where(and(eq(table.id, id), visibleCampaigns(kind, user)));
  return (await (lock ? query.for('update') : query))[0] as CampaignRowOf<T> | undefined;
}

export function countCampaigns(db: Db, kind: CampaignKind, where: SQL | undefined): Promise<number> {
  return db.$count(kind.table, where);
}

export async function listCampaigns<T extends CampaignTable>(
  db: Db,
  kind: CampaignKind<T>,
  where: SQL | undefined,
  limit: number,
  offset: number,
): Promise<CampaignRowOf<T>[]> {
  const table = kind.table as CampaignTable;
  return (await db.select().from(table).where(where).orderBy(asc(table.id)).limit(limit).offset(offset)) as CampaignRowOf<T>[];
}

/** Whether the owner already has a campaign of the kind of that name (other than `exceptId`). */
export async function nameTaken(db: Db, kind: CampaignKind, userId: number, name: string, exceptId = 0): Promise<boolean> {
  const table = kind.table;
  const rows = await db
    .select({ id: table.id })
    .from(table)
    .where(and(eq(table.user_id, userId), eq(table.name, name), sql`${table.id} <> ${exceptId}`))
    .limit(1);
  return rows.length > 0;
}

/** A random uppercase code, unique among the campaigns of the kind (retried on the rare collision). */
export async function newCampaignCode(db: Db, resource: CampaignResource): Promise<string> {
  for (;;) {
    const code = crypto.randomBytes(8).toString('base64url').replace(/[^A-Za-z0-9]/g, '').slice(0, 10).toUpperCase();
    if (code.length < 10) continue;
    const taken = await queryRows(
      db,
      sql`select 1 from ${resource.kind.tables.campaigns} where ${sql.identifier(resource.codeColumn)} = ${code} limit 1`,
    );
    if (taken.length === 0) return code;
  }
}

export async function insertCampaign<T extends CampaignTable>(db: Db, kind: CampaignKind<T>, values: CampaignInsertOf<T>): Promise<CampaignRowOf<T>> {
  const table = kind.table as CampaignTable;
  return (await db.insert(table).values(values as CampaignInsertOf<CampaignTable>).returning())[0] as CampaignRowOf<T>;
}

export async function deleteCampaign(db: Db, kind: CampaignKind, id: number): Promise<void> {
  await db.delete(kind.table).where(eq(kind.table.id, id));
}

/** Status of each gateway of the kind (1 active, 0 inactive). */
export async function gatewayStatuses(db: Db, kind: CampaignKind, ids: number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const g = kind.gateways;
  const rows = await db.select({ id: g.id, status: g.status }).from(g).where(inArray(g.id, ids));
  return new Map(rows.map((r) => [r.id, r.status]));
}

/** The subscribers of each campaign of the kind, by status. */
export async function subscribersByStatus(db: Db, kind: CampaignKind, ids: number[]): Promise<Map<number, Map<number, number>>> {
  const out = new Map<number, Map<number, number>>(ids.map((id) => [id, new Map()]));
  if (ids.length === 0) return out;
  const t = kind.tables;
  const list = sql.join(ids.map((id) => sql`${id}`), sql`, `);
  const rows = await queryRows<{ id: number; status: number; n: number }>(
    db,
    sql`select ${t.campaignColumn} as id, status, count(*)::int as n from ${t.subscribers} where ${t.campaignColumn} in (${list}) group by 1, 2`,
  );
  for (const r of rows) out.get(Number(r.id))?.set(Number(r.status), Number(r.n));
  return out;
}
