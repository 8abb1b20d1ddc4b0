import { and, asc, eq, ne, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { smsTemplates } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ownedBy } from '../../http/scope.ts';

export type SmsTemplateRow = typeof smsTemplates.$inferSelect;

/** The SMS templates `user` may see. */
export const visibleSmsTemplates = (user: AuthUser): SQL | undefined => ownedBy(user, smsTemplates.user_id);

export async function findSmsTemplate(db: Db, user: AuthUser, id: number): Promise<SmsTemplateRow | undefined> {
  return (await db.select().from(smsTemplates).where(and(eq(smsTemplates.id, id), visibleSmsTemplates(user))))[0];
}

/** Whether the owner already has another template with this key (`except`: the one being updated). */
export async function smsTemplateKeyTaken(db: Db, userId: number, key: string, except = 0): Promise<boolean> {
  const where = and(eq(smsTemplates.user_id, userId), eq(smsTemplates.template_key, key), ne(smsTemplates.id, except));
  return (await db.$count(smsTemplates, where)) > 0;
}

export function countSmsTemplates(db: Db, where: SQL | undefined): Promise<number> {
  return db.$count(smsTemplates, where);
}

export function listSmsTemplates(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<SmsTemplateRow[]> {
  return db.select().from(smsTemplates).where(where).orderBy(asc(smsTemplates.id)).limit(limit).offset(offset);
}

export async function insertSmsTemplate(db: Db, values: typeof smsTemplates.$inferInsert): Promise<SmsTemplateRow> {
  return (await db.insert(smsTemplates).values(values).returning())[0];
}

export async function updateSmsTemplate(db: Db, id: number, values: Partial<typeof smsTemplates.$inferInsert>): Promise<void> {
  await db
    .update(smsTemplates)
    .set({ ...values, updated_date: sql`now()` })
    .where(eq(smsTemplates.id, id));
}

/** SMS campaigns that used it keep no template (on delete set null). */
export async function deleteSmsTemplate(db: Db, id: number): Promise<void> {
  await db.delete(smsTemplates).where(eq(smsTemplates.id, id));
}
