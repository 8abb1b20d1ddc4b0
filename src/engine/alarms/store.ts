/**
 * The alarm engine's SQL (engine/alarms): the claim of due alarms (`for update skip locked`,
 * set-based), the reminder campaign of a calendar setting, the subscribers a call alarm puts in
 * it (one statement for the batch), the attempts (alarm_requests) and their settling, which
 * applies the alarm's retry policy in the same statement.
 */
import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';
import { AlarmMethod, AlarmStatus, AmdBehavior, calendarSettings, CampaignStatus, campaigns, SubscriberStatus } from '../../db/schema.ts';
import { loadFlow } from '../../campaign/survey-flow.ts';
import { idArray, json } from '../../db/sql.ts';
import { lostClaimCause, restartCause } from '../recover.ts';

/** A due alarm with what firing it needs: its event and its calendar setting. */
export interface DueAlarm {
  id: number;
  user_id: number;
  method: number;
  alarm_phonenumber: string | null;
  alarm_email: string | null;
  daily_start: string;
  daily_stop: string;
  title: string;
  description: string;
  event_start: string;
  event_id: number;
  full_name: string;
  setting_id: number | null;
  /** The alarm's templates' texts (null: none; the alarm's own text). */
  sms_text: string | null;
  mail_subject: string | null;
  mail_text: string | null;
}

/** An alarm's calendar setting (alias `a`): its calendar user's, else its event creator's, else the owner's first. */
const settingIdSql = sql`coalesce(cu.calendar_setting_id, cr.calendar_setting_id,
  (select s.id from calendar_settings s where s.user_id = a.user_id order by s.id limit 1))`;
/** alarms `a` with their event `e`, calendar `c`, calendar user `cu` and event creator `cr`. */
const alarmJoins = sql`alarms a
  join calendar_events e on e.id = a.event_id
  join calendars c on c.id = e.calendar_id
  left join calendar_users cu on cu.id = c.calendar_user_id
  left join calendar_users cr on cr.id = e.creator_id`;

/**
 * Locks up to `limit` due alarms (PENDING or RETRY, next_attempt_at passed), oldest due first,
 * skipping those another engine holds. The setting is the calendar user's, else the event
 * creator's, else the owner's first.
 */
export function claimDueAlarms(tx: Db, now: string, limit: number): Promise<DueAlarm[]> {
  return queryRows<DueAlarm>(
    tx,
    sql`select a.id, a.user_id, a.method, a.alarm_phonenumber, a.alarm_email, a.daily_start::text as daily_start,
          a.daily_stop::text as daily_stop, e.title, e.description, e.start::text as event_start, e.id as event_id,
          trim(coalesce(cu.first_name, '') || ' ' || coalesce(cu.last_name, '')) as full_name, ${settingIdSql} as setting_id,
          st.sms_text, mt.subject as mail_subject, mt.message_plaintext as mail_text
        from ${alarmJoins}
        left join sms_templates st on st.id = a.sms_template_id
        left join mail_templates mt on mt.id = a.mail_template_id
        where a.status in (${AlarmStatus.Pending}, ${AlarmStatus.Retry}) and a.next_attempt_at <= ${now}::timestamptz
        order by a.next_attempt_at, a.id
        limit ${limit}
        for update of a skip locked`,
  );
}

export type SettingRow = typeof calendarSettings.$inferSelect;

/** The calendar setting of the alarm `id`, if it has one. */
export async function settingOfAlarm(db: Db, id: number): Promise<SettingRow | undefined> {
  const [row] = await queryRows<{ setting_id: number | null }>(db, sql`select ${settingIdSql} as setting_id from ${alarmJoins} where a.id = ${id}`);
  return row?.setting_id ? findSetting(db, row.setting_id) : undefined;
}

export async function findSetting(tx: Db, id: number): Promise<SettingRow | undefined> {
  return (await tx.select().from(calendarSettings).where(sql`${calendarSettings.id} = ${id}`))[0];
}

/**
 * The voice campaign a setting's reminder calls go into: made START at the first call (with
 * the setting's survey frozen, as a start freezes it), then kept in step with the setting
 * (caller id, gateways, timeout, AMD; the survey frozen again when the setting names another).
 * One that was aborted or ended (by its owner) is replaced; a paused one keeps its calls
 * waiting. Returns the campaign id, or why the setting cannot call.
 */
export async function reminderCampaign(tx: Db, s: SettingRow): Promise<number | string> {
  if (!s.aleg_gateway_id) return 'the calendar setting has no gateway';
  if (!s.survey_id) return 'the calendar setting has no survey';
  const columns = {
    callerid: s.callerid,
    caller_name: s.caller_name,
    calltimeout: s.call_timeout,
    aleg_gateway_id: s.aleg_gateway_id,
    sms_gateway_id: s.sms_gateway_id,
    voicemail: s.voicemail,
    amd_behavior: s.amd_behavior ?? AmdBehavior.Survey,
    voicemail_audiofile_id: s.voicemail_audiofile_id,
  };
  const [current] = s.campaign_id
    ? await tx.select({ id: campaigns.id, status: campaigns.status, survey_id: campaigns.survey_id }).from(campaigns).where(sql`${campaigns.id} = ${s.campaign_id}`)
    : [];
  if (current && current.status !== CampaignStatus.Abort && current.status !== CampaignStatus.End) {
    const refreeze = current.survey_id !== s.survey_id ? { survey_id: s.survey_id, survey_snapshot: await loadFlow(tx, s.survey_id) } : {};
    await tx.update(campaigns).set({ ...columns, ...refreeze }).where(sql`${campaigns.id} = ${current.id}`);
    return current.id;
  }
  const flow = await loadFlow(tx, s.survey_id);
  if (!flow || !flow.sections.length) return 'the calendar setting\'s survey has no section';
  const code = `R${crypto.randomBytes(6).toString('hex')}`.toUpperCase();
  const [row] = await tx
    .insert(campaigns)
    .values({
      ...columns,
      campaign_code: code,
      name: `Reminders: ${s.label || 'calendar setting'} #${s.id} (${code})`.slice(0, 100),
      description: `Appointment reminder calls of calendar setting ${s.id} (made by the engine).`,
      user_id: s.user_id,
      status: CampaignStatus.Start,
      survey_id: s.survey_id,
      survey_snapshot: flow,
      frequency: 60,
      maxretry: 0,
      timezone_dialing: true,
      has_been_started: true,
      started_date: sql`now()`,
      // No phonebook: the spool never adds anyone; the alarms add their callees.
      last_spooled_contact_id: 2_147_483_647,
    })
    .returning({ id: campaigns.id });
  await tx.update(calendarSettings).set({ campaign_id: row.id }).where(sql`${calendarSettings.id} = ${s.id}`);
  return row.id;
}

export interface NewCallee {
  alarm_id: number;
  campaign_id: number;
  number: string;
  /** The number's key (contract §1), in its owner's country. */
  key: string;
  full_name: string;
  tz_code: string;
  vars: Record<string, string>;
}

/**
 * Puts the callees in their campaigns, due now: a new subscriber, or the number's subscriber
 * again once it is final and no attempt waits on it (one subscriber per number and campaign:
 * two alarms to one number take turns). Returns the subscriber of each alarm that got one.
 */
export function enqueueCallees(tx: Db, callees: NewCallee[], now: string): Promise<{ alarm_id: number; subscriber_id: number }[]> {
  return queryRows<{ alarm_id: number; subscriber_id: number }>(
    tx,
    sql`with v as (
          select * from jsonb_to_recordset(${json(callees)}) as v(alarm_id int, campaign_id int, number text, key text, full_name text, tz_code text, vars jsonb)
        ), put as (
          insert into subscribers as s (campaign_id, duplicate_contact, phone_key, full_name, status, count_attempt, next_attempt_at, tz_code, additional_vars)
          select v.campaign_id, v.number, v.key, left(v.full_name, 200), ${SubscriberStatus.Pending}, 0, ${now}::timestamptz, v.tz_code, v.vars from v
          on conflict (campaign_id, duplicate_contact) do update set
            status = ${SubscriberStatus.Pending}, count_attempt = 0, next_attempt_at = excluded.next_attempt_at, full_name = excluded.full_name,
            tz_code = excluded.tz_code, additional_vars = excluded.additional_vars, reason = '', updated_date = now()
          where s.status not in (${SubscriberStatus.Pending}, ${SubscriberStatus.Pause}, ${SubscriberStatus.InProcess})
            and not exists (select 1 from alarm_requests r where r.subscriber_id = s.id and r.status = ${AlarmStatus.InProcess})
          returning s.id, s.campaign_id, s.duplicate_contact
        )
        select v.alarm_id, put.id as subscriber_id from put join v on v.campaign_id = put.campaign_id and v.number = put.duplicate_contact`,
  );
}

export interface NewAttempt {
  alarm_id: number;
  method: number;
  subscriber_id: number | null;
}

/** Starts an attempt of each alarm: an IN_PROCESS request at `now`, the alarm IN_PROCESS with one more attempt. */
export async function startAttempts(tx: Db, attempts: NewAttempt[], now: string): Promise<{ id: number; alarm_id: number }[]> {
  if (!attempts.length) return [];
  const rows = await queryRows<{ id: number; alarm_id: number }>(
    tx,
    sql`insert into alarm_requests (user_id, alarm_id, date, method, status, subscriber_id)
        select a.user_id, a.id, ${now}::timestamptz, v.method, ${AlarmStatus.InProcess}, v.subscriber_id
        from jsonb_to_recordset(${json(attempts)}) as v(alarm_id int, method int, subscriber_id bigint) join alarms a on a.id = v.alarm_id
        returning id, alarm_id`,
  );
  await tx.execute(sql`update alarms set status = ${AlarmStatus.InProcess}, num_attempt = num_attempt + 1
      where id = any(${idArray(attempts.map((a) => a.alarm_id))})`);
  return rows.map((r) => ({ id: Number(r.id), alarm_id: r.alarm_id }));
}

/** A call attempt whose subscriber is final: what its call did. */
export interface FinishedCall {
  id: number;
  sub_status: number;
  reason: string;
  callrequest_id: number | null;
  cause: number | null;
  billsec: number | null;
  campaign_id: number;
}

/**
 * The call attempts whose subscriber reached a final status, with the subscriber's newest
 * call (the subscriber serves one attempt at a time, so it is this attempt's) and its A leg.
 */
export function finishedCalls(db: Db): Promise<FinishedCall[]> {
  return queryRows<FinishedCall>(
    db,
    sql`select r.id, s.status as sub_status, s.reason, s.campaign_id, c.id as callrequest_id, c.hangup_cause_q850 as cause, d.billsec
        from alarm_requests r
        join subscribers s on s.id = r.subscriber_id
        left join lateral (select id, hangup_cause_q850 from callrequests c where c.subscriber_id = s.id
          and s.status <> ${SubscriberStatus.NotAuthorized} order by c.id desc limit 1) c on true
        left join lateral (select billsec from cdrs where callrequest_id = c.id and leg_type = 1 limit 1) d on true
        where r.status = ${AlarmStatus.InProcess} and r.subscriber_id is not null
          and s.status in (${SubscriberStatus.Abort}, ${SubscriberStatus.Fail}, ${SubscriberStatus.Sent}, ${SubscriberStatus.NotAuthorized}, ${SubscriberStatus.Completed})
        order by r.id limit 1000`,
  );
}

/** An e-mail attempt's detail while its e-mail is handed to the relay (markMailing). */
export const mailingDetail = 'e-mail being handed to the relay';

/** Writes on an e-mail attempt, before its e-mail goes to the relay, that it may be sent from now on (strandedMessages). */
export async function markMailing(db: Db, id: number): Promise<void> {
  await db.execute(sql`update alarm_requests set detail = ${mailingDetail} where id = ${id} and status = ${AlarmStatus.InProcess}`);
}

/**
 * SMS and e-mail attempts (no subscriber) still IN_PROCESS ten minutes after they began, with no
 * SMS message of theirs: their engine stopped (a crash) before it recorded them. Sending takes
 * seconds, so they are failed rather than left IN_PROCESS for ever: retried per the alarm's
 * policy if nothing was sent, for good (`final`) if an e-mail may have been (markMailing). An
 * attempt with an SMS message waits for it instead (smsAttemptResults).
 */
export async function strandedMessages(db: Db): Promise<AttemptResult[]> {
  const rows = await queryRows<{ id: number; detail: string }>(
    db,
    sql`select id, detail from alarm_requests where status = ${AlarmStatus.InProcess} and subscriber_id is null and sms_message_id is null
          and created_date < now() - interval '10 minutes' order by id limit 1000`,
  );
  return rows.map((r) => {
    const mailing = r.detail === mailingDetail;
    const detail = mailing ? `e-mail not sent again: its engine stopped while handing it to the relay (${restartCause})` : restartCause;
    return withoutCall(Number(r.id), false, detail, { final: mailing });
  });
}

/**
 * The outcome of each SMS attempt in process whose message is settled (sent, delivered or
 * failed), read from the message alone: whoever settles it (the engine that sent it, or any
 * engine's pass after it died) writes the same. A message its engine left 'unsent' and recovery
 * then failed (ENGINE_RESTART, CLAIM_LOST) was maybe sent: that attempt fails for good (`final`),
 * so the reminder is never sent twice.
 */
export async function smsAttemptResults(db: Db): Promise<AttemptResult[]> {
  const rows = await queryRows<{ id: number; message_id: number; status: string; error: string }>(
    db,
    sql`select r.id, m.id as message_id, m.status, m.error from alarm_requests r join sms_messages m on m.id = r.sms_message_id
        where r.status = ${AlarmStatus.InProcess} and r.sms_message_id is not null and m.status <> 'unsent' order by r.id limit 1000`,
  );
  return rows.map((r) => {
    const messageId = Number(r.message_id);
    const sent = r.status === 'sent' || r.status === 'delivered';
    const unknown = !sent && (r.error === restartCause || r.error === lostClaimCause);
    const detail = sent
      ? `sms sent: message ${messageId}`
      : unknown
        ? `sms not sent again: message ${messageId} may have reached the gateway before its engine lost it (${r.error})`
        : `sms not sent: ${r.error}`;
    return withoutCall(Number(r.id), sent, detail, { message_id: messageId, final: unknown });
  });
}

/** The survey answers of calls, with the frozen flow of their campaign (to name each key pressed). */
export function callAnswers(db: Db, callrequestIds: number[]): Promise<{ callrequest_id: number; section_id: number | null; response: string; flow: unknown }[]> {
  if (!callrequestIds.length) return Promise.resolve([]);
  return queryRows(
    db,
    sql`select r.callrequest_id, r.section_id, r.response, c.survey_snapshot as flow
        from call_results r join callrequests cr on cr.id = r.callrequest_id join campaigns c on c.id = cr.campaign_id
        where r.callrequest_id = any(${idArray(callrequestIds)}) order by r.id`,
  );
}

/** How an attempt ended. */
export interface AttemptResult {
  id: number;
  ok: boolean;
  detail: string;
  callstatus: number;
  duration: number;
  callrequest_id: number | null;
  result: number | null;
  /** The attempt's SMS message: an attempt that has one is settled only from it (smsAttemptResults); null or absent: one that has none. */
  message_id?: number | null;
  /** Failed for good, whatever attempts remain (a reminder that may have been sent). */
  final?: boolean;
}

/** How an attempt that placed no call ended (an SMS, an e-mail, a call refused before it was placed): no cause, duration or callrequest. */
export function withoutCall(id: number, ok: boolean, detail: string, more: Pick<AttemptResult, 'message_id' | 'final'> = {}): AttemptResult {
  return { id, ok, detail, callstatus: 0, duration: 0, callrequest_id: null, result: null, ...more };
}

/**
 * Settles attempts: each request SUCCESS or FAILURE; its alarm SUCCESS (with the result), or
 * RETRY `retry_delay` seconds after `now` while attempts remain (1 + maxretry in all) and the
 * failure is not `final`, else FAILURE. An attempt with an SMS message is taken only with its
 * message's id (smsAttemptResults), so a send's own answer never overrides its message. A call
 * alarm failed for good with a phonenumber_sms_failure then owes it an SMS (sms_fallback_due, in
 * the same statement: claimSmsFallbacks pays it).
 */
export async function settleAttempts(db: Db, results: AttemptResult[], now: string): Promise<void> {
  if (!results.length) return;
  await db.execute(
    sql`with v as (
          select * from jsonb_to_recordset(${json(results)})
            as v(id bigint, ok boolean, detail text, callstatus int, duration int, callrequest_id bigint, result int, message_id bigint, final boolean)
        ), r as (
          update alarm_requests r set status = case when v.ok then ${AlarmStatus.Success}::int else ${AlarmStatus.Failure}::int end,
            detail = left(v.detail, 200), callstatus = v.callstatus, duration = v.duration, callrequest_id = v.callrequest_id
          from v where r.id = v.id and r.status = ${AlarmStatus.InProcess} and r.sms_message_id is not distinct from v.message_id
          returning r.alarm_id, v.ok, v.result, coalesce(v.final, false) as final
        )
        update alarms a set
          status = case when r.ok then ${AlarmStatus.Success}::int when a.num_attempt <= a.maxretry and not r.final then ${AlarmStatus.Retry}::int
            else ${AlarmStatus.Failure}::int end,
          result = case when r.ok then coalesce(r.result, a.result) else a.result end,
          next_attempt_at = case when not r.ok and a.num_attempt <= a.maxretry and not r.final
            then ${now}::timestamptz + a.retry_delay * interval '1 second' else a.next_attempt_at end,
          sms_fallback_due = not r.ok and a.num_attempt > a.maxretry and a.method = ${AlarmMethod.Call} and coalesce(a.phonenumber_sms_failure, '') <> ''
        from r where a.id = r.alarm_id and a.status = ${AlarmStatus.InProcess}`,
  );
}

/** A call alarm's SMS fallback, claimed: its request (IN_PROCESS) and what the SMS needs. */
export interface SmsFallback {
  request_id: number;
  id: number;
  user_id: number;
  phonenumber_sms_failure: string;
  event_id: number;
}

/**
 * Claims SMS fallbacks owed (sms_fallback_due), `limit` at most, skipping those another engine
 * holds: one statement clears the debt and makes the SMS request, IN_PROCESS at `now`, its alarm
 * unchanged. At most once: a claim whose sending never ends leaves its request to strandedMessages.
 */
export function claimSmsFallbacks(db: Db, now: string, limit: number): Promise<SmsFallback[]> {
  return queryRows<SmsFallback>(
    db,
    sql`with due as (
          select id from alarms where sms_fallback_due order by id limit ${limit} for update skip locked
        ), a as (
          update alarms a set sms_fallback_due = false from due where a.id = due.id
          returning a.id, a.user_id, a.phonenumber_sms_failure, a.event_id
        ), r as (
          insert into alarm_requests (user_id, alarm_id, date, method, status)
          select user_id, id, ${now}::timestamptz, ${AlarmMethod.Sms}, ${AlarmStatus.InProcess} from a
          returning id, alarm_id
        )
        select r.id as request_id, a.id, a.user_id, a.phonenumber_sms_failure, a.event_id from a join r on r.alarm_id = a.id order by a.id`,
  );
}

/**
 * Records the fallback's outcome on its request only (the alarm keeps the status its call gave
 * it); a request whose SMS went in sms_messages takes its outcome from it instead (smsAttemptResults).
 */
export async function finishRequest(db: Db, id: number, ok: boolean, detail: string): Promise<void> {
  await db.execute(
    sql`update alarm_requests set status = ${ok ? AlarmStatus.Success : AlarmStatus.Failure}, detail = left(${detail}, 200)
        where id = ${id} and status = ${AlarmStatus.InProcess} and sms_message_id is null`,
  );
}

/** An event's title and start, for the fallback's text. */
export async function eventOf(db: Db, id: number): Promise<{ title: string; description: string; start: string } | undefined> {
  const [row] = await queryRows<{ title: string; description: string; start: string }>(db, sql`select title, description, start::text as start from calendar_events where id = ${id}`);
  return row;
}

/**
 * Inserts an alarm's SMS 'unsent' (cost = the owner's sms_rate × parts, as a campaign message)
 * and names it on its attempt, request `requestId`, in the same statement; returns its id.
 */
export async function insertAlarmMessage(
  db: Db,
  m: { requestId: number; userId: number; gatewayId: number; to: string; from: string; text: string; parts: number; engineId: string },
): Promise<number> {
  const [row] = await queryRows<{ id: number }>(
    db,
    sql`with m as (
          insert into sms_messages (user_id, sms_gateway_id, recipient_number, sender_number, content, parts, cost, engine_id)
          select u.id, ${m.gatewayId}, ${m.to}, ${m.from}, ${m.text}, ${m.parts}, round(u.sms_rate * ${m.parts}, 5), ${m.engineId}
          from users u where u.id = ${m.userId}
          returning id
        ), r as (
          update alarm_requests r set sms_message_id = m.id from m where r.id = ${m.requestId}
        )
        select id from m`,
  );
  return Number(row.id);
}
