/** SQL for users and their API tokens. Functions take the database (or a transaction) first. */
import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/database.ts';
import { apiTokens, users } from '../db/schema.ts';

export type UserRow = typeof users.$inferSelect;
export type NewUser = typeof users.$inferInsert;

export async function findUser(db: Db, id: number): Promise<UserRow | undefined> {
  return (await db.select().from(users).where(eq(users.id, id)))[0];
}

export async function findUserByUsername(db: Db, username: string): Promise<UserRow | undefined> {
  return (await db.select().from(users).where(eq(users.username, username)))[0];
}

export async function insertUser(db: Db, values: NewUser): Promise<UserRow> {
  return (await db.insert(users).values(values).returning())[0];
}

/** Locks the rows of the active admins (until the transaction ends); returns how many there are. */
export async function lockActiveAdmins(tx: Db): Promise<number> {
  const rows = await tx.select({ id: users.id }).from(users).where(and(eq(users.is_admin, true), eq(users.is_active, true))).for('update');
  return rows.length;
}

export async function updateUser(db: Db, id: number, values: Partial<NewUser>): Promise<UserRow | undefined> {
  return (
    await db
      .update(users)
      .set({ ...values, updated_date: sql`now()` })
      .where(eq(users.id, id))
      .returning()
  )[0];
}

export async function countUsers(db: Db, where?: SQL): Promise<number> {
  return db.$count(users, where);
}

export async function listUsers(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<UserRow[]> {
  return db.select().from(users).where(where).orderBy(asc(users.id)).limit(limit).offset(offset);
}

/** Adds `amount` (a decimal string, may be negative) to the balance; returns the new balance. */
export async function addToBalance(db: Db, id: number, amount: string): Promise<string | undefined> {
  const rows = await db
    .update(users)
    .set({ balance: sql`${users.balance} + ${amount}::numeric`, updated_date: sql`now()` })
    .where(eq(users.id, id))
    .returning({ balance: users.balance });
  return rows[0]?.balance;
}

export type TokenRow = typeof apiTokens.$inferSelect;

export async function insertToken(db: Db, userId: number, prefix: string, hash: string): Promise<TokenRow> {
  return (await db.insert(apiTokens).values({ user_id: userId, key_prefix: prefix, key_hash: hash }).returning())[0];
}

export async function listTokensByPrefix(db: Db, prefix: string) {
  return db
    .select({ user_id: apiTokens.user_id, key_hash: apiTokens.key_hash })
    .from(apiTokens)
    .where(eq(apiTokens.key_prefix, prefix));
}
