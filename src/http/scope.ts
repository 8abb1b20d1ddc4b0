/**
 * Owner scoping (contract §3), the one mechanism every resource uses: an admin sees every row;
 * anyone else sees the rows they own, directly (`user_id`) or through the parent that owns the
 * row (contact → phonebook). A row outside the scope is answered 404 like a missing one.
 */
import { and, eq, inArray, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db } from '../db/database.ts';
import type { AuthUser } from './auth.ts';

/** Rows whose owner column is the caller; undefined (no filter) for an admin. */
export function ownedBy(user: AuthUser, ownerColumn: PgColumn): SQL | undefined {
  return user.is_admin ? undefined : eq(ownerColumn, user.id);
}

/**
 * Rows whose parent (through `foreignKey` → `parent.id`) belongs to the caller; undefined for
 * an admin. Written as `fk in (select id from parent where user_id = $me)`.
 */
export function ownedThrough(
  db: Db,
  user: AuthUser,
  foreignKey: PgColumn,
  parent: PgTable & { id: PgColumn; user_id: PgColumn },
): SQL | undefined {
  if (user.is_admin) return undefined;
  return inArray(foreignKey, db.select({ id: parent.id }).from(parent).where(eq(parent.user_id, user.id)));
}

/** `a and b`, skipping undefined parts (Drizzle's `and` does too, but says so explicitly here). */
export function allOf(...conditions: (SQL | undefined)[]): SQL | undefined {
  const parts = conditions.filter((c): c is SQL => c !== undefined);
  return parts.length ? and(...parts) : undefined;
}
