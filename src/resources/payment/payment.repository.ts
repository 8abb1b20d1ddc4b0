import { asc, eq, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { payments } from '../../db/schema.ts';

export type PaymentRow = typeof payments.$inferSelect;

export async function insertPayment(db: Db, values: typeof payments.$inferInsert): Promise<PaymentRow> {
  return (await db.insert(payments).values(values).returning())[0];
}

export function countPayments(db: Db, where?: SQL): Promise<number> {
  return db.$count(payments, where);
}

export function listPayments(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<PaymentRow[]> {
  return db.select().from(payments).where(where).orderBy(asc(payments.id)).limit(limit).offset(offset);
}

export const byUser = (userId: number) => eq(payments.user_id, userId);
