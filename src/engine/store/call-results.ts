/** The survey answers of finished calls (outcome.ts), one statement per batch. */
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { json } from '../../db/sql.ts';

/** One answer: the section it came from (its frozen id), its order, question and response. */
export interface ResultRow {
  callrequest_id: number;
  section_id: number;
  section_order: number;
  question: string;
  response: string;
  record_file: string;
}

/** Inserts the answers in order. A frozen survey may name a section since deleted: the answer is kept, the link dropped. */
export async function insertCallResults(tx: Db, rows: ResultRow[]): Promise<void> {
  await tx.execute(sql`insert into call_results (callrequest_id, section_id, section_order, question, response, record_file)
    select r.callrequest_id, st.id, r.section_order, r.question, r.response, r.record_file
    from (select row_number() over () as ord, x.* from jsonb_to_recordset(${json(rows)}) as x(callrequest_id bigint, section_id int,
      section_order int, question text, response text, record_file text)) r
    left join section_templates st on st.id = r.section_id order by r.ord`);
}
