/** SQL of a voice campaign's survey results: its calls' answers counted per question and answer. */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';

/** What a recorded message counts as: the answer is a file name, the same for no two calls. */
export const RECORDED = 'recorded';

/** One row per (question, response), with the question's `answered` repeated on each. */
export interface ResponseCountRow {
  section_id: number | null;
  section_order: number | null;
  question: string;
  response: string;
  count: number;
  answered: number;
}

/**
 * The campaign's answers counted in one statement: grouping sets give each (question, response)
 * and each question alone (its `answered`); a question is (section_order, section_id, question),
 * so a section deleted since (section_id null) still keeps its answers. Counts are of calls, not
 * of answers, so a call that answered a question twice (a loop in the survey) counts once.
 * Sorted by play order, then by count (most frequent first).
 */
export async function listResponseCounts(db: Db, campaignId: number): Promise<ResponseCountRow[]> {
  const rows = await queryRows<ResponseCountRow & { is_question: number }>(
    db,
    sql`with answers as (
          select r.section_id, r.section_order, r.question, r.callrequest_id,
                 case when r.record_file <> '' then ${RECORDED} else r.response end as response
          from call_results r join callrequests c on c.id = r.callrequest_id
          where c.campaign_id = ${campaignId}
        ), counted as (
          select section_id, section_order, question, response, grouping(response) as is_question,
                 count(distinct callrequest_id)::int as n
          from answers
          group by grouping sets ((section_order, section_id, question, response), (section_order, section_id, question))
        )
        select r.section_id, r.section_order, r.question, r.response, r.n as count, q.n as answered
        from counted r join counted q
          on q.is_question = 1 and q.section_order is not distinct from r.section_order
          and q.section_id is not distinct from r.section_id and q.question = r.question
        where r.is_question = 0
        order by r.section_order nulls last, r.section_id nulls last, r.question, r.n desc, r.response`,
  );
  return rows.map((r) => ({
    section_id: r.section_id === null ? null : Number(r.section_id),
    section_order: r.section_order === null ? null : Number(r.section_order),
    question: r.question,
    response: r.response,
    count: Number(r.count),
    answered: Number(r.answered),
  }));
}
