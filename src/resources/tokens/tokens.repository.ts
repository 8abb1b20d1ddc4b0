/** SQL for API tokens as the tokens resource and `token list|revoke` read them (never the hash). */
import { and, asc, eq, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { apiTokens, users } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ownedBy } from '../../http/scope.ts';

export interface TokenListRow {
  id: number;
  user_id: number;
  username: string;
  key_prefix: string;
  created_date: string;
}

/** The tokens `user` may see: an admin every token, anyone else their own. */
export const visibleTokens = (user: AuthUser): SQL | undefined => ownedBy(user, apiTokens.user_id);

function selectTokens(db: Db) {
  return db
    .select({
      id: apiTokens.id,
      user_id: apiTokens.user_id,
      username: users.username,
      key_prefix: apiTokens.key_prefix,
      created_date: apiTokens.created_date,
    })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.user_id));
}

export async function findToken(db: Db, user: AuthUser, id: number): Promise<TokenListRow | undefined> {
  return (await selectTokens(db).where(and(eq(apiTokens.id, id), visibleTokens(user))))[0];
}

export function countTokens(db: Db, where: SQL | undefined): Promise<number> {
  return db.$count(apiTokens, where);
}

export function listTokens(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<TokenListRow[]> {
  return selectTokens(db).where(where).orderBy(asc(apiTokens.id)).limit(limit).offset(offset);
}

export async function deleteToken(db: Db, id: number): Promise<void> {
  await db.delete(apiTokens).where(eq(apiTokens.id, id));
}

/** Deletes the tokens whose key starts with `prefix` (the part before the dot); returns how many. */
export async function deleteTokensByPrefix(db: Db, prefix: string): Promise<number> {
  return (await db.delete(apiTokens).where(eq(apiTokens.key_prefix, prefix)).returning({ id: apiTokens.id })).length;
}
