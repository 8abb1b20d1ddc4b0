/**
 * The sms_messages as the engine writes them: a campaign batch inserted 'unsent' (one statement),
 * a call's send-SMS section's message, the drivers' answers settled in ONE statement (message,
 * owner's balance, subscriber: see sms/record.ts for the rules), and the 'unsent' messages dead
 * engines left (recover.ts).
 */
import { type SQL, sql } from 'drizzle-orm';
import { balanceLowEventsSql, smsMessageEventsSql } from '../../campaign/events.ts';
import { finalColumns, finalEvents } from './sms-subscribers.ts';
import { type Db, queryRows } from '../../db/database.ts';
import { CampaignStatus, SmsSubscriberStatus } from '../../db/schema.ts';
import { idArray, json } from '../../db/sql.ts';

const S = SmsSubscriberStatus;

/** A message to insert for a subscriber: its text and parts. */
export interface PlannedMessage {
  sub_id: number;
  content: string;
  parts: number;
}

/**
 * Inserts a campaign's messages 'unsent' with this engine's id (cost = sms_rate × parts, attempt =
 * the subscriber's next); returns their ids by subscriber.
 */
export function insertCampaignMessages(
  tx: Db,
  c: { id: number; user_id: number; callerid: string },
  at: { gatewayId: number; engineId: string },
  planned: PlannedMessage[],
): Promise<{ id: number; sub: number }[]> {
  return queryRows<{ id: number; sub: number }>(
    tx,
    sql`insert into sms_messages (sms_campaign_id, sms_subscriber_id, user_id, sms_gateway_id, recipient_number, sender_number,
          content, parts, cost, attempt, engine_id)
        select ${c.id}, s.id, ${c.user_id}, ${at.gatewayId}, s.duplicate_contact, ${c.callerid}, p.content, p.parts,
          round(u.sms_rate * p.parts, 5), s.count_attempt + 1, ${at.engineId}
        from jsonb_to_recordset(${json(planned)}) as p(sub_id bigint, content text, parts int)
        join sms_subscribers s on s.id = p.sub_id join users u on u.id = ${c.user_id}
        returning id, sms_subscriber_id as sub`,
  );
}

/** A call's send-SMS message, inserted 'unsent' with this engine's id; returns its id. */
export async function insertCallMessage(
  db: Db,
  m: { callrequestId: number; userId: number; gatewayId: number; to: string; from: string; text: string; parts: number; engineId: string },
): Promise<number> {
  const [row] = await queryRows<{ id: number }>(
    db,
    sql`insert into sms_messages (callrequest_id, user_id, sms_gateway_id, recipient_number, sender_number, content, parts, cost, engine_id)
        select ${m.callrequestId}, u.id, ${m.gatewayId}, ${m.to}, ${m.from}, ${m.text}, ${m.parts}, round(u.sms_rate * ${m.parts}, 5), ${m.engineId}
        from users u where u.id = ${m.userId}
        returning id`,
  );
  return Number(row.id);
}

/** A driver's answer, as settleMessages reads it. */
export interface AnswerRow {
  id: number;
  ok: boolean;
  gid: string;
  error: string;
  retry: boolean;
}

/**
 * Settles the messages `rows` answered at `at` (see sms/record.ts), those where `onlyIf` (a
 * predicate on the message `m`) holds; returns how many were settled.
 */
export async function settleMessages(db: Db, rows: AnswerRow[], at: Date, onlyIf: SQL = sql`true`): Promise<number> {
  const now = sql`${at.toISOString()}::timestamptz`;
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`with r as (
          select * from jsonb_to_recordset(${json(rows)}) as r(id bigint, ok boolean, gid text, error text, retry boolean)
        ), locked as (
          -- Each message as it is now (locked: a delivery report may have moved it since this
          -- statement began). Only one still 'unsent' changes status here, so only such a one
          -- has its event written here: a report that came first wrote its own.
          select m.id, m.status as was from sms_messages m join r on r.id = m.id where m.engine_id <> '' and ${onlyIf} for update of m
        ), m as (
          update sms_messages m set
            status = case when m.status <> 'unsent' then m.status when r.ok then 'sent' else 'failed' end,
            gateway_message_id = case when r.ok then left(r.gid, 100) else m.gateway_message_id end,
            send_date = case when r.ok or m.status <> 'unsent' then ${now} end,
            cost = case when r.ok or m.status <> 'unsent' then m.cost else 0 end,
            error = case when r.ok or m.status <> 'unsent' then m.error else left(r.error, 200) end,
            engine_id = '', updated_date = now()
          from r join locked l on l.id = r.id where m.id = r.id
          returning m.id, m.user_id, m.sms_campaign_id, m.sms_subscriber_id, m.cost, m.send_date is not null as sent, r.retry, m.error,
            m.recipient_number, m.status, l.was
        ), changed as (select *, false as sent_too from m where was = 'unsent'
        ), written as (${smsMessageEventsSql('changed')}
        ), bill as (
          update users u set balance = u.balance - t.total
          from (select user_id, sum(cost) as total from m where sent group by user_id) t
          where u.id = t.user_id and t.total > 0
          returning u.id, u.username, u.balance, u.balance + t.total as was, u.balance_low_threshold
        ), low as (${balanceLowEventsSql('bill')}
        ), subs as (
          update sms_subscribers s set updated_date = now(),
            status = case when m.sent then ${S.Complete}::int
                          when c.status = ${CampaignStatus.Abort} then ${S.Abort}::int
                          when m.retry and s.count_attempt < 1 + c.maxretry then ${S.Pending}::int
                          else ${S.Fail}::int end,
            next_attempt_at = case when m.sent then s.next_attempt_at else ${now} + c.intervalretry * interval '1 second' end,
            reason = case when m.sent then ''
                          when m.retry and s.count_attempt < 1 + c.maxretry then m.error
                          else left('no attempt left (last: ' || m.error || ')', 200) end
          from m join sms_campaigns c on c.id = m.sms_campaign_id
          where s.id = m.sms_subscriber_id and s.status = ${S.InProcess}
          returning ${finalColumns}, c.user_id
        ), final as (${finalEvents('subs')})
        select count(*)::int as n from m`,
  );
  return Number(row?.n ?? 0);
}

/** Which of the messages `ids` are still claimed by the engine `engineId`, unsent and unsettled. */
export async function stillClaimed(db: Db, ids: number[], engineId: string): Promise<number[]> {
  const rows = await queryRows<{ id: number }>(db, sql`select id from sms_messages where id = any(${idArray(ids)}) and engine_id = ${engineId} and status = 'unsent'`);
  return rows.map((row) => Number(row.id));
}

/** Up to 1000 'unsent' messages where `onlyIf` holds (a predicate on `m`: heartbeats.ts deadEngine, or recover.ts's lost claims), by id. */
export function findUnsentOrphans(db: Db, onlyIf: SQL): Promise<{ id: number }[]> {
  return queryRows<{ id: number }>(db, sql`select m.id from sms_messages m where m.engine_id <> '' and ${onlyIf} order by m.id limit 1000`);
}
