import { and, asc, eq, ne, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { mailTemplates } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ownedBy } from '../../http/scope.ts';

export type MailTemplateRow = typeof mailTemplates.$inferSelect;

/** The mail templates `user` may see. */
export const visibleMailTemplates = (user: AuthUser): SQL | undefined => ownedBy(user, mailTemplates.user_id);

export async function findMailTemplate(db: Db, user: AuthUser, id: number): Promise<MailTemplateRow | undefined> {
  return (await db.select().from(mailTemplates).where(and(eq(mailTemplates.id, id), visibleMailTemplates(user))))[0];
}

/** Whether the owner already has another template with this key (`except`: the one being updated). */
export async function mailTemplateKeyTaken(db: Db, userId: number, key: string, except = 0): Promise<boolean> {
  const where = and(eq(mailTemplates.user_id, userId), eq(mailTemplates.template_key, key), ne(mailTemplates.id, except));
  return (await db.$count(mailTemplates, where)) > 0;
}

export function countMailTemplates(db: Db, where: SQL | undefined): Promise<number> {
  return db.$count(mailTemplates, where);
}

export function listMailTemplates(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<MailTemplateRow[]> {
  return db.select().from(mailTemplates).where(where).orderBy(asc(mailTemplates.id)).limit(limit).offset(offset);
}

export async function insertMailTemplate(db: Db, values: typeof mailTemplates.$inferInsert): Promise<MailTemplateRow> {
  return (await db.insert(mailTemplates).values(values).returning())[0];
}

export async function updateMailTemplate(db: Db, id: number, values: Partial<typeof mailTemplates.$inferInsert>): Promise<void> {
  await db
    .update(mailTemplates)
    .set({ ...values, updated_date: sql`now()` })
    .where(eq(mailTemplates.id, id));
}

/** Alarms that used it keep no template. */
export async function deleteMailTemplate(db: Db, id: number): Promise<void> {
  await db.delete(mailTemplates).where(eq(mailTemplates.id, id));
}
