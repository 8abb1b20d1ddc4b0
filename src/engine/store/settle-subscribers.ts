/**
 * The subscribers after their calls (contract §5, issue 16 items 2 and 8), set-based: one
 * statement for a batch of outcomes. Each subscriber's next step is one of
 * - done: answered by a person → SENT, or COMPLETED when the call reached a completed section;
 * - callback: the call passed a section with `callback_minutes` → PENDING, due that long after;
 * - retry: not answered (or answered by a machine, with a `machine` rule) with attempts left
 *   under its cause's rule (campaign/retry-rules.ts; else maxretry/intervalretry) → PENDING;
 * - completion: answered, not completed, `completion_enabled` with completion callbacks left
 *   (`completion_maxretry`, every `completion_intervalretry` seconds) → PENDING;
 * - invalid: an unallocated or invalid number (Q.850 1, 3, 28) → FAIL, never retried;
 * - abort: not answered while its campaign is aborted → ABORT; fail: no attempt left → FAIL.
 * A subscriber.final event is written for each one that became final.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { CampaignStatus, SubscriberStatus } from '../../db/schema.ts';
import { subscriberFinalEventsSql } from '../../campaign/events.ts';
import { voiceKind } from '../../campaign/kinds.ts';
import type { RetryCause } from '../../campaign/retry-rules.ts';
import { json } from '../../db/sql.ts';

/** A subscriber after its call, as settleSubscribers reads it. */
export interface SettledSubscriber {
  id: number;
  answered: boolean;
  /** SENT or COMPLETED, when answered. */
  done: number;
  /** When the call ended (ISO): the retry counts from it. */
  ended: string;
  cause_name: string;
  /** Whose retry rule applies (retryCauseOf): null when answered by a person. */
  rule: RetryCause | 'never' | null;
  /** The A leg's CDR disposition. */
  disposition: string;
  /** Minutes until the callback a section asked for, else null. */
  callback: number | null;
}

const { Pending, Fail, Abort, Sent, InProcess } = SubscriberStatus;

/** The next step of each subscriber (see the module comment), from its row, its campaign and its call. */
const stepSql = sql`case
    when v.answered and v.callback is not null and c.status <> ${CampaignStatus.Abort} then 'callback'
    when v.answered and v.rule = 'machine' and c.status <> ${CampaignStatus.Abort}
      and s.count_attempt < 1 + (c.retry_rules -> 'machine' ->> 'attempts')::int then 'retry'
    when v.answered and v.done = ${Sent} and c.completion_enabled and c.status <> ${CampaignStatus.Abort}
      and s.completion_attempt < c.completion_maxretry then 'completion'
    when v.answered then 'done'
    when c.status = ${CampaignStatus.Abort} then 'abort'
    when v.rule = 'never' then 'invalid'
    when s.count_attempt < 1 + coalesce((c.retry_rules -> v.rule ->> 'attempts')::int, c.maxretry) then 'retry'
    else 'fail' end`;

/** Seconds to wait before the next call, for the steps that lead to one. */
const waitSql = sql`case d.step
    when 'callback' then d.callback * 60
    when 'completion' then d.completion_intervalretry
    else coalesce((d.retry_rules -> d.rule ->> 'interval')::int, d.intervalretry) end`;

/**
 * The subscribers after their calls: one statement, and a subscriber.final event for each final one.
 *
 * Its plan is pinned to walk the batch: each outcome finds its subscriber by primary key (a
 * LATERAL subquery that OFFSET 0 keeps from being flattened into a join the planner may
 * reorder), and the UPDATE joins only that materialized list, by key. Written as plain joins, a
 * plan made after an ANALYZE that saw no subscriber in process (autovacuum's, at any quiet
 * moment) began from the subscribers in process, by campaign (subscribers_due_idx), and ran the
 * batch's jsonb_to_recordset again for each of them: 500 × 500 rows, ~136 ms a batch instead of
 * ~16 ms, and bench:events' engine at a quarter of its pace.
 */
export async function settleSubscribers(tx: Db, rows: SettledSubscriber[]): Promise<void> {
  await tx.execute(settleSubscribersSql(rows));
}

/** settleSubscribers' statement (its test reads the plan). */
export function settleSubscribersSql(rows: SettledSubscriber[]): SQL {
  return sql`
    with v as (
      select * from jsonb_to_recordset(${json(rows)}) as v(id bigint, answered boolean, done int, ended timestamptz,
        cause_name text, rule text, disposition text, callback int)
    ), d as materialized (
      select v.*, c.user_id, c.retry_rules, c.intervalretry, c.completion_intervalretry, ${stepSql} as step
      from v cross join lateral (
        select s.campaign_id, s.count_attempt, s.completion_attempt from subscribers s
        where s.id = v.id and s.status = ${InProcess} offset 0) s
      join campaigns c on c.id = s.campaign_id
    ), settled as (
      update subscribers s set updated_date = now(), last_disposition = left(d.disposition, 20),
        status = case d.step when 'done' then d.done when 'abort' then ${Abort}::int
                             when 'invalid' then ${Fail}::int when 'fail' then ${Fail}::int else ${Pending}::int end,
        next_attempt_at = case when d.step in ('callback', 'completion', 'retry')
                               then d.ended + (${waitSql}) * interval '1 second' else s.next_attempt_at end,
        completion_attempt = s.completion_attempt + (d.step = 'completion')::int,
        reason = case d.step when 'done' then '' when 'retry' then d.cause_name when 'abort' then d.cause_name
                             when 'callback' then 'callback requested in ' || d.callback || ' min'
                             when 'completion' then 'completion callback (not completed)'
                             when 'invalid' then 'invalid number, not retried (' || d.cause_name || ')'
                             else 'no attempt left (last: ' || d.cause_name || ')' end
      from d
      -- still in process when written (a row another transaction changed meanwhile is read
      -- again here); "+ 0": a test the planner cannot answer from an index, so it finds each
      -- row by its key from d, never by scanning subscribers for those in process.
      where s.id = d.id and s.status + 0 = ${InProcess}
      returning s.id, s.campaign_id, s.status, s.reason, s.duplicate_contact, d.user_id
    ) ${subscriberFinalEventsSql(voiceKind, 'settled')}`;
}
