import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { surveyTemplates } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ownedBy } from '../../http/scope.ts';

export type SurveyTemplateRow = typeof surveyTemplates.$inferSelect;

/** The survey templates `user` may see. */
export const visibleSurveyTemplates = (user: AuthUser): SQL | undefined => ownedBy(user, surveyTemplates.user_id);

export async function findSurveyTemplate(db: Db, user: AuthUser, id: number): Promise<SurveyTemplateRow | undefined> {
  return (await db.select().from(surveyTemplates).where(and(eq(surveyTemplates.id, id), visibleSurveyTemplates(user))))[0];
}

export function countSurveyTemplates(db: Db, where: SQL | undefined): Promise<number> {
  return db.$count(surveyTemplates, where);
}

export function listSurveyTemplates(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<SurveyTemplateRow[]> {
  return db.select().from(surveyTemplates).where(where).orderBy(asc(surveyTemplates.id)).limit(limit).offset(offset);
}

export async function insertSurveyTemplate(db: Db, values: typeof surveyTemplates.$inferInsert): Promise<SurveyTemplateRow> {
  return (await db.insert(surveyTemplates).values(values).returning())[0];
}

export async function updateSurveyTemplate(db: Db, id: number, values: Partial<typeof surveyTemplates.$inferInsert>): Promise<void> {
  await db
    .update(surveyTemplates)
    .set({ ...values, updated_date: sql`now()` })
    .where(eq(surveyTemplates.id, id));
}

/**
 * Deletes the survey; its sections and their branches go with it (on delete cascade).
 * Campaigns that named it keep their frozen snapshot (contract §5) and lose the link.
 */
export async function deleteSurveyTemplate(db: Db, id: number): Promise<void> {
  await db.delete(surveyTemplates).where(eq(surveyTemplates.id, id));
}
