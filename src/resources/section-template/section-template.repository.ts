import { and, asc, eq, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { audioFiles, branchingTemplates, queues, sectionTemplates, surveyTemplates } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { allOf, ownedBy, ownedThrough } from '../../http/scope.ts';

export type SectionTemplateRow = typeof sectionTemplates.$inferSelect;
export type SectionTemplateValues = typeof sectionTemplates.$inferInsert;

/** The sections `user` may see: those of their surveys (contract §3: section → survey). */
export const visibleSectionTemplates = (db: Db, user: AuthUser): SQL | undefined =>
  ownedThrough(db, user, sectionTemplates.survey_id, surveyTemplates);

export async function findSectionTemplate(db: Db, user: AuthUser, id: number): Promise<SectionTemplateRow | undefined> {
  const where = and(eq(sectionTemplates.id, id), visibleSectionTemplates(db, user));
  return (await db.select().from(sectionTemplates).where(where))[0];
}

/** The visible sections, of one survey when `surveyId` is given. */
export function sectionTemplatesWhere(db: Db, user: AuthUser, surveyId?: number): SQL | undefined {
  return allOf(visibleSectionTemplates(db, user), surveyId === undefined ? undefined : eq(sectionTemplates.survey_id, surveyId));
}

export function countSectionTemplates(db: Db, where: SQL | undefined): Promise<number> {
  return db.$count(sectionTemplates, where);
}

export function listSectionTemplates(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<SectionTemplateRow[]> {
  return db.select().from(sectionTemplates).where(where).orderBy(asc(sectionTemplates.id)).limit(limit).offset(offset);
}

/** The order after the survey's last section (1 for its first). */
export async function nextSectionOrder(db: Db, surveyId: number): Promise<number> {
  const [row] = await db
    .select({ next: sql<number>`coalesce(max(${sectionTemplates.order}), 0) + 1` })
    .from(sectionTemplates)
    .where(eq(sectionTemplates.survey_id, surveyId));
  return Number(row.next);
}

export async function insertSectionTemplate(db: Db, values: SectionTemplateValues): Promise<SectionTemplateRow> {
  return (await db.insert(sectionTemplates).values(values).returning())[0];
}

export async function updateSectionTemplate(db: Db, id: number, values: Partial<SectionTemplateValues>): Promise<void> {
  await db
    .update(sectionTemplates)
    .set({ ...values, updated_date: sql`now()` })
    .where(eq(sectionTemplates.id, id));
}

/** Deletes the section; its branches go with it, branches that led to it now hang up. */
export async function deleteSectionTemplate(db: Db, id: number): Promise<void> {
  await db.delete(sectionTemplates).where(eq(sectionTemplates.id, id));
}

/** Whether a branch leaves from or leads to the section (it then cannot change survey). */
export async function sectionHasBranches(db: Db, id: number): Promise<boolean> {
  const where = or(eq(branchingTemplates.section_id, id), eq(branchingTemplates.goto_id, id));
  return (await db.$count(branchingTemplates, where)) > 0;
}

/** Whether `user` may link to the audio file (their own; an admin any). */
export async function audioFileVisible(db: Db, user: AuthUser, id: number): Promise<boolean> {
  return (await db.$count(audioFiles, allOf(eq(audioFiles.id, id), ownedBy(user, audioFiles.user_id)))) > 0;
}

/** Whether `user` may link to the queue (their own; an admin any). */
export async function queueVisible(db: Db, user: AuthUser, id: number): Promise<boolean> {
  return (await db.$count(queues, allOf(eq(queues.id, id), ownedBy(user, queues.user_id)))) > 0;
}
