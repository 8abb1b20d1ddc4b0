import { and, asc, eq, isNotNull, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { campaigns } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ownedBy } from '../../http/scope.ts';

/** What a sealed survey is read from: the campaign that froze it. */
export const sealedColumns = {
  id: campaigns.id,
  user_id: campaigns.user_id,
  survey_id: campaigns.survey_id,
  survey_snapshot: campaigns.survey_snapshot,
  started_date: campaigns.started_date,
  created_date: campaigns.created_date,
};

export type SealedSurveyRow = { [K in keyof typeof sealedColumns]: (typeof sealedColumns)[K]['_']['data'] | null } & { id: number; user_id: number; created_date: string };

/** The sealed surveys `user` may see: those of their campaigns that have started (contract §5). */
export const visibleSealedSurveys = (user: AuthUser): SQL | undefined => and(isNotNull(campaigns.survey_snapshot), ownedBy(user, campaigns.user_id));

export async function findSealedSurvey(db: Db, user: AuthUser, id: number): Promise<SealedSurveyRow | undefined> {
  const rows = await db.select(sealedColumns).from(campaigns).where(and(eq(campaigns.id, id), visibleSealedSurveys(user)));
  return rows[0] as SealedSurveyRow | undefined;
}

export function countSealedSurveys(db: Db, where: SQL | undefined): Promise<number> {
  return db.$count(campaigns, where);
}

export async function listSealedSurveys(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<SealedSurveyRow[]> {
  return (await db.select(sealedColumns).from(campaigns).where(where).orderBy(asc(campaigns.id)).limit(limit).offset(offset)) as SealedSurveyRow[];
}
