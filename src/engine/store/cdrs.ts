/**
 * The CDRs of finished calls (outcome.ts), one statement per batch: each leg priced at its
 * owner's call_rate in SQL numeric, the owners' balances charged, the legs inserted in order,
 * and a call.completed event per call.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { LegType } from '../../db/schema.ts';
import { balanceLowEventsSql, insertEventsSql } from '../../campaign/events.ts';
import { json } from '../../db/sql.ts';

/** One CDR leg, as the set-based insert reads it (jsonb_to_recordset). */
export interface LegRow {
  callid: string;
  callerid: string;
  phone: string;
  /** When the leg started, in the API's form (src/http/present.ts isoTime): the CDR's time and, as is, its call.completed's. */
  started: string;
  duration: number;
  billsec: number;
  billed: number;
  cause: number;
  disposition: string;
  leg_type: number;
  amd: number;
  callrequest_id: number;
  campaign_id: number;
  subscriber_id: number;
  contact_id: number | null;
  user_id: number;
  /** Whether the call recorded survey answers (call_results): only then does its call.completed look them up. */
  answered_sections: boolean;
}

/** CDR legs with their cost (the owner's call_rate, SQL numeric), and the owners billed. */
export async function insertBilledLegs(tx: Db, legs: LegRow[]): Promise<void> {
  await tx.execute(sql`
    with legs as (
      select row_number() over () as ord, l.* from jsonb_to_recordset(${json(legs)}) as l(callid text, callerid text, phone text,
        started text, duration int, billsec int, billed int, cause int, disposition text, leg_type int, amd int,
        callrequest_id bigint, campaign_id int, subscriber_id bigint, contact_id int, user_id int, answered_sections boolean)
    ), priced as (
      select l.*, round(u.call_rate * l.billed::numeric / 60, 5) as cost from legs l left join users u on u.id = l.user_id
    ), bill as (
      update users u set balance = u.balance - b.total
      from (select user_id, sum(cost) as total from priced where billed > 0 group by user_id) b where u.id = b.user_id
      returning u.id, u.username, u.balance, u.balance + b.total as was, u.balance_low_threshold
    ), low as (${balanceLowEventsSql('bill')}
    ), completed as (
      -- call.completed (issue 14): one per call (its A leg), with the CDR's fields, links, and the
      -- survey's answers in that call (recorded just before, in the same transaction; looked up
      -- only for a call that recorded some). starting_date is the engine's text, already in the
      -- API's form, so the event says what a read of the CDR says.
      ${insertEventsSql(sql`select 'call.completed', user_id, campaign_id, json_build_object(
        'callrequest', '/rest-api/callrequest/' || callrequest_id || '/',
        'results', case when not answered_sections then '[]'::json else coalesce((select json_agg(json_build_object(
            'section', '/rest-api/section-template/' || r.section_id || '/', 'section_order', r.section_order, 'question', r.question,
            'response', r.response, 'record_file', r.record_file) order by r.id)
          from call_results r where r.callrequest_id = priced.callrequest_id), '[]'::json) end,
        'campaign', '/rest-api/campaigns/' || campaign_id || '/',
        'callid', callid, 'callerid', callerid, 'phone_number', phone, 'starting_date', started,
        'duration', duration, 'billsec', billsec, 'billed_duration', billed, 'call_cost', coalesce(cost, 0)::text,
        'hangup_cause_q850', cause, 'disposition', disposition, 'amd_status', amd)
      from priced where leg_type = ${LegType.A} order by ord`)}
    )
    insert into cdrs (callid, callerid, phone_number, starting_date, duration, billsec, billed_duration, call_cost,
      hangup_cause_q850, disposition, leg_type, amd_status, callrequest_id, campaign_id, subscriber_id, contact_id, user_id)
    select callid, callerid, phone, started::timestamptz, duration, billsec, billed, coalesce(cost, 0), cause, disposition, leg_type, amd,
      callrequest_id, campaign_id, subscriber_id, contact_id, user_id
    from priced order by ord`);
}
