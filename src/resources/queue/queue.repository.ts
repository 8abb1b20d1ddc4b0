import { and, asc, eq, getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { queues, users } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ownedBy } from '../../http/scope.ts';

/** A queue with its owner's username (the record's `manager`). */
export type QueueRow = typeof queues.$inferSelect & { manager: string };

/** The queues `user` may see. */
export const visibleQueues = (user: AuthUser): SQL | undefined => ownedBy(user, queues.user_id);

function selectQueues(db: Db) {
  return db
    .select({ ...getTableColumns(queues), manager: users.username })
    .from(queues)
    .innerJoin(users, eq(users.id, queues.user_id));
}

/** The queue `id` if `user` may see it (also what link fields to queues check). */
export async function findQueue(db: Db, user: AuthUser, id: number): Promise<QueueRow | undefined> {
  return (await selectQueues(db).where(and(eq(queues.id, id), visibleQueues(user))))[0];
}

export function countQueues(db: Db, where: SQL | undefined): Promise<number> {
  return db.$count(queues, where);
}

export function listQueues(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<QueueRow[]> {
  return selectQueues(db).where(where).orderBy(asc(queues.id)).limit(limit).offset(offset);
}

export async function insertQueue(db: Db, values: typeof queues.$inferInsert): Promise<typeof queues.$inferSelect> {
  return (await db.insert(queues).values(values).returning())[0];
}

export async function updateQueue(db: Db, id: number, values: Partial<typeof queues.$inferInsert>): Promise<void> {
  await db
    .update(queues)
    .set({ ...values, updated_date: sql`now()` })
    .where(eq(queues.id, id));
}
