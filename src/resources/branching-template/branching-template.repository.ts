import { and, asc, eq, inArray, ne, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { branchingTemplates, sectionTemplates, surveyTemplates } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { allOf } from '../../http/scope.ts';

export type BranchingTemplateRow = typeof branchingTemplates.$inferSelect;
export type BranchingTemplateValues = typeof branchingTemplates.$inferInsert;

/** The branches `user` may see: those of their surveys' sections (contract §3: branching → section). */
export function visibleBranchingTemplates(db: Db, user: AuthUser): SQL | undefined {
  if (user.is_admin) return undefined;
  const theirSections = db
    .select({ id: sectionTemplates.id })
    .from(sectionTemplates)
    .innerJoin(surveyTemplates, eq(surveyTemplates.id, sectionTemplates.survey_id))
    .where(eq(surveyTemplates.user_id, user.id));
  return inArray(branchingTemplates.section_id, theirSections);
}

export async function findBranchingTemplate(db: Db, user: AuthUser, id: number): Promise<BranchingTemplateRow | undefined> {
  const where = and(eq(branchingTemplates.id, id), visibleBranchingTemplates(db, user));
  return (await db.select().from(branchingTemplates).where(where))[0];
}

/** The visible branches, of one section when `sectionId` is given. */
export function branchingTemplatesWhere(db: Db, user: AuthUser, sectionId?: number): SQL | undefined {
  return allOf(visibleBranchingTemplates(db, user), sectionId === undefined ? undefined : eq(branchingTemplates.section_id, sectionId));
}

export function countBranchingTemplates(db: Db, where: SQL | undefined): Promise<number> {
  return db.$count(branchingTemplates, where);
}

export function listBranchingTemplates(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<BranchingTemplateRow[]> {
  return db.select().from(branchingTemplates).where(where).orderBy(asc(branchingTemplates.id)).limit(limit).offset(offset);
}

/** The keys of the section's other branches (all but `exceptId`). */
export async function siblingKeys(db: Db, sectionId: number, exceptId?: number): Promise<string[]> {
  const rows = await db
    .select({ keys: branchingTemplates.keys })
    .from(branchingTemplates)
    .where(allOf(eq(branchingTemplates.section_id, sectionId), exceptId === undefined ? undefined : ne(branchingTemplates.id, exceptId)));
  return rows.map((r) => r.keys);
}

/** The survey and type of a section (any owner: the link was checked already). */
export async function sectionInfo(db: Db, id: number): Promise<{ survey_id: number; type: number } | undefined> {
  const rows = await db
    .select({ survey_id: sectionTemplates.survey_id, type: sectionTemplates.type })
    .from(sectionTemplates)
    .where(eq(sectionTemplates.id, id));
  return rows[0];
}

export async function insertBranchingTemplate(db: Db, values: BranchingTemplateValues): Promise<BranchingTemplateRow> {
  return (await db.insert(branchingTemplates).values(values).returning())[0];
}

export async function updateBranchingTemplate(db: Db, id: number, values: Partial<BranchingTemplateValues>): Promise<void> {
  await db
    .update(branchingTemplates)
    .set({ ...values, updated_date: sql`now()` })
    .where(eq(branchingTemplates.id, id));
}

export async function deleteBranchingTemplate(db: Db, id: number): Promise<void> {
  await db.delete(branchingTemplates).where(eq(branchingTemplates.id, id));
}
