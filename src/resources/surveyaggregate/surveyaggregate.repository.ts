import { and, eq, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';
import { surveyTemplates } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ownedBy } from '../../http/scope.ts';

export interface AggregateRow {
  section_id: number | null;
  question: string;
  response: string;
  count: number;
}

/** Whether `user` may see the survey template. */
export async function surveyVisible(db: Db, user: AuthUser, id: number): Promise<boolean> {
  const rows = await db
    .select({ id: surveyTemplates.id })
    .from(surveyTemplates)
    .where(and(eq(surveyTemplates.id, id), ownedBy(user, surveyTemplates.user_id)));
  return rows.length > 0;
}

/**
 * The answers of every call of the campaigns that ran the survey, counted per section and
 * response in one statement (campaigns by survey_id, their calls by campaign, the answers by
 * call: each step indexed). A call counts once per response even if a loop asked it twice; a
 * recorded message counts as "recorded" (its response is a file name). In play order, then most
 * frequent first.
 */
export async function aggregateSurvey(db: Db, surveyId: number, recorded: string): Promise<AggregateRow[]> {
  const rows = await queryRows<AggregateRow>(
    db,
    sql`select r.section_id, r.question,
               case when r.record_file <> '' then ${recorded} else r.response end as response,
               count(distinct r.callrequest_id)::int as count,
               min(r.section_order) as section_order
        from campaigns k
        join callrequests c on c.campaign_id = k.id
        join call_results r on r.callrequest_id = c.id
        where k.survey_id = ${surveyId}
        group by r.section_id, r.question, 3
        order by min(r.section_order) nulls last, r.section_id nulls last, r.question, count(distinct r.callrequest_id) desc, 3`,
  );
  return rows.map((r) => ({
    section_id: r.section_id === null ? null : Number(r.section_id),
    question: r.question,
    response: r.response,
    count: Number(r.count),
  }));
}
