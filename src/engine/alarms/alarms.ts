/**
 * The alarm engine (issue 17, item 8): the engine loop calls `runAlarms` once per pass. It
 * settles the call attempts whose calls are over (an alarm's status, result and retries, as
 * Newfies records them), then fires the alarms now due — claimed `for update skip locked`, so
 * engines sharing a PostgreSQL never fire one twice — inside each alarm's daily window in the
 * callee's time zone:
 * - a call becomes a subscriber, due now, of its calendar setting's reminder campaign (a
 *   voice campaign, store.ts reminderCampaign), so the campaign machinery dials it: pacing,
 *   the gateway's caps, do-not-call lists, the caller id, the owner's credit, billing, the
 *   survey, the CDR — exactly as for any campaign call;
 * - an SMS or an e-mail is sent at once (messages.ts).
 * A call alarm that fails for good sends an SMS to its `phonenumber_sms_failure`, if any (a new
 * alarm-request, method 2). An SMS attempt takes its outcome from its message (store.ts
 * smsAttemptResults), so a crash after the send neither loses it nor sends it again. The result
 * of an answered call is read from its survey answers: a key whose label (or answer) begins with
 * "confirm", "cancel" or "reschedul" gives CONFIRMED, CANCELLED or RESCHEDULED.
 */
import { AlarmMethod, AlarmResult, SubscriberStatus } from '../../db/schema.ts';
import type { SurveyFlow } from '../../campaign/survey-flow.ts';
import { insideDailyWindow, localTime } from '../../campaign/window.ts';
import type { EngineContext } from '../context.ts';
import { ownerBlock } from '../owner.ts';
import { spawnOccurrences } from './recurrence.ts';
import { countryOf } from '../../campaign/phone-country.ts';
import { phoneKey } from '../../http/phone.ts';
import { sendReminderMail, sendReminderSms, type Sent, zoneOf } from './messages.ts';
import { rootMessage, untilReached } from '../../db/unreachable.ts';
import {
  type AttemptResult,
  callAnswers,
  claimSmsFallbacks,
  claimDueAlarms,
  type DueAlarm,
  enqueueCallees,
  eventOf,
  findSetting,
  finishRequest,
  finishedCalls,
  markMailing,
  type NewAttempt,
  type NewCallee,
  reminderCampaign,
  type SettingRow,
  settingOfAlarm,
  settleAttempts,
  smsAttemptResults,
  startAttempts,
  strandedMessages,
  withoutCall,
} from './store.ts';

/** At most this many alarms fire per pass. */
const maxPerPass = 200;

/**
 * Settles finished calls, makes the next occurrence of started recurring events, fires due alarms,
 * sends the fallbacks owed, then settles the SMS attempts from their messages; returns how many
 * attempts it started.
 */
export async function runAlarms(ctx: EngineContext, stopping: () => boolean): Promise<number> {
  await settleCalls(ctx);
  await spawnOccurrences(ctx);
  const started = await fireDue(ctx, stopping);
  await sendSmsFallbacks(ctx, stopping);
  await recordSent(ctx, stopping, () => settleSmsAttempts(ctx));
  return started;
}

/** Settles the SMS attempts whose message is settled, from it (this pass's, and those an engine that died left in process). */
async function settleSmsAttempts(ctx: EngineContext): Promise<void> {
  await settleAttempts(ctx.db, await smsAttemptResults(ctx.db), ctx.clock.now().toISOString());
}

/**
 * Writes what was sent (a reminder's attempts, a fallback's request) once the database answers:
 * left IN_PROCESS, an attempt would be failed ten minutes on and retried, and an e-mail sent
 * again (an SMS attempt waits for its message instead). Safe to run again (only IN_PROCESS rows
 * are taken).
 */
function recordSent<T>(ctx: EngineContext, stopping: () => boolean, write: () => Promise<T>): Promise<T> {
  return untilReached(write, {
    giveUp: stopping,
    waiting: (err) => ctx.log.warn(`appointment reminders: the database is out of reach (${rootMessage(err)}); recording what was sent when it answers`),
  });
}

/** One reminder's send: its failure is its own (not sent), so those sent before it in the pass are still recorded. */
async function attempt(send: () => Promise<Sent>): Promise<Sent> {
  try {
    return await send();
  } catch (err) {
    return { ok: false, detail: `not sent: ${rootMessage(err)}` };
  }
}

/** The result a call's answers give (null: none of them names one). */
export function resultOf(answers: { section_id: number | null; response: string; flow: unknown }[]): number | null {
  for (const a of answers.slice().reverse()) {
    const section = (a.flow as SurveyFlow | null)?.sections.find((s) => s.id === a.section_id);
    const label = (/^\d$/.test(a.response) ? section?.keys[Number(a.response)] : undefined) ?? a.response;
    const text = label.trim().toLowerCase();
    if (text.startsWith('confirm')) return AlarmResult.Confirmed;
    if (text.startsWith('cancel')) return AlarmResult.Cancelled;
    if (text.startsWith('reschedul')) return AlarmResult.Rescheduled;
  }
  return null;
}

const answeredStatuses: number[] = [SubscriberStatus.Sent, SubscriberStatus.Completed];

async function settleCalls(ctx: EngineContext): Promise<void> {
  const stranded = await strandedMessages(ctx.db);
  if (stranded.length) await settleAttempts(ctx.db, stranded, ctx.clock.now().toISOString());
  const done = await finishedCalls(ctx.db);
  if (!done.length) return;
  const answers = await callAnswers(ctx.db, done.flatMap((d) => (d.callrequest_id ? [Number(d.callrequest_id)] : [])));
  const results: AttemptResult[] = done.map((d) => {
    const ok = answeredStatuses.includes(d.sub_status);
    const mine = answers.filter((a) => Number(a.callrequest_id) === Number(d.callrequest_id));
    return {
      id: Number(d.id),
      ok,
      detail: ok ? 'call answered' : d.reason || 'call not answered',
      callstatus: d.cause ?? 0,
      duration: d.billsec ?? 0,
      callrequest_id: d.callrequest_id === null ? null : Number(d.callrequest_id),
      result: ok ? resultOf(mine) : null,
    };
  });
  await settleAttempts(ctx.db, results, ctx.clock.now().toISOString());
}

/**
 * The SMS to its phonenumber_sms_failure that a call alarm failed for good owes (written with the
 * failure by settleAttempts, so a crash or a lost answer after it loses none): claimed, then sent.
 */
async function sendSmsFallbacks(ctx: EngineContext, stopping: () => boolean): Promise<void> {
  for (const a of await claimSmsFallbacks(ctx.db, ctx.clock.now().toISOString(), maxPerPass)) {
    const sent = await attempt(async () => {
      const [event, setting] = await Promise.all([eventOf(ctx.db, a.event_id), settingOfAlarm(ctx.db, a.id)]);
      return event ? sendReminderSms(ctx, a.request_id, a.user_id, setting, a.phonenumber_sms_failure, event, stopping) : { ok: false, detail: 'event gone' };
    });
    await recordSent(ctx, stopping, () => finishRequest(ctx.db, a.request_id, sent.ok, sent.detail));
  }
}

/** Whether now is inside the alarm's daily window, read in the callee's zone (the instance's for e-mail). */
function inWindow(ctx: EngineContext, a: DueAlarm): boolean {
  const zone = a.method !== AlarmMethod.Email && a.alarm_phonenumber ? zoneOf(ctx, a.alarm_phonenumber) : ctx.config.timeZone;
  return insideDailyWindow(localTime(ctx.clock.now(), zone).time, a.daily_start, a.daily_stop);
}

interface Fired {
  /** Attempts to finish now (SMS, e-mail), with their alarm. */
  messages: { requestId: number; alarm: DueAlarm; setting?: SettingRow }[];
  /** Attempts that failed before starting (no setting, no gateway …). */
  refused: { requestId: number; detail: string }[];
  started: number;
}

/** `load`, asked once per key (the promise is kept, so callers at once share one read). */
function perKey<K, V>(load: (key: K) => Promise<V>): (key: K) => Promise<V> {
  const known = new Map<K, Promise<V>>();
  return (key) => {
    let value = known.get(key);
    if (!value) known.set(key, (value = load(key)));
    return value;
  };
}

async function fireDue(ctx: EngineContext, stopping: () => boolean): Promise<number> {
  const now = ctx.clock.now().toISOString();
  const fired = await ctx.db.transaction(async (tx): Promise<Fired> => {
    const due = (await claimDueAlarms(tx, now, maxPerPass)).filter((a) => inWindow(ctx, a));
    if (!due.length) return { messages: [], refused: [], started: 0 };
    // Read once a pass each: a setting, its reminder campaign, an owner's country and block.
    const settingOf = perKey((id: number) => findSetting(tx, id));
    const setting = async (id: number | null) => (id === null ? undefined : settingOf(id));
    const campaignOf = perKey((s: SettingRow) => reminderCampaign(tx, s)); // one row per setting: settingOf keeps it
    const countryOfOwner = perKey((userId: number) => countryOf(tx, 'users', userId, ctx.config.defaultCountry));
    const keyOf = async (userId: number, number: string) => phoneKey(number, await countryOfOwner(userId));
    const blocked = perKey((userId: number) => ownerBlock(tx, userId, 'sms'));
    const callees: NewCallee[] = [];
    const attempts: NewAttempt[] = [];
    const problems = new Map<number, string>();
    const messages: DueAlarm[] = [];
    const taken = new Set<string>();
    for (const a of due) {
      if (a.method !== AlarmMethod.Call) {
        // The owner's account and credit decide as for a campaign: a blocked owner's alarms wait.
        if (!(await blocked(a.user_id))) messages.push(a);
        continue;
      }
      const s = await setting(a.setting_id);
      if (!s) {
        problems.set(a.id, 'no calendar setting: give the calendar user one');
        continue;
      }
      const campaign = await campaignOf(s);
      if (typeof campaign === 'string') {
        problems.set(a.id, campaign);
        continue;
      }
      const number = a.alarm_phonenumber as string;
      if (taken.has(`${campaign}:${number}`)) continue; // the number's next alarm waits for this one
      taken.add(`${campaign}:${number}`);
      callees.push({
        alarm_id: a.id,
        campaign_id: campaign,
        number,
        key: await keyOf(a.user_id, number),
        full_name: a.full_name,
        tz_code: zoneOf(ctx, number),
        vars: { alarm_id: String(a.id), event_id: String(a.event_id), event_title: a.title, event_start: a.event_start },
      });
    }
    const queued = callees.length ? await enqueueCallees(tx, callees, now) : [];
    for (const q of queued) attempts.push({ alarm_id: q.alarm_id, method: AlarmMethod.Call, subscriber_id: Number(q.subscriber_id) });
    for (const id of problems.keys()) attempts.push({ alarm_id: id, method: AlarmMethod.Call, subscriber_id: null });
    for (const a of messages) attempts.push({ alarm_id: a.id, method: a.method, subscriber_id: null });
    const started = await startAttempts(tx, attempts, now);
    const requestOf = new Map(started.map((r) => [r.alarm_id, r.id]));
    return {
      started: started.length,
      refused: [...problems].map(([id, detail]) => ({ requestId: requestOf.get(id) as number, detail })),
      messages: await Promise.all(messages.map(async (a) => ({ requestId: requestOf.get(a.id) as number, alarm: a, setting: await setting(a.setting_id) }))),
    };
  });
  const results: AttemptResult[] = fired.refused.map((r) => withoutCall(r.requestId, false, r.detail));
  for (const m of fired.messages) {
    const a = m.alarm;
    const reminder = { title: a.title, description: a.description, start: a.event_start, fullName: a.full_name };
    const sent = await attempt(async () => {
      if (a.method === AlarmMethod.Sms) return sendReminderSms(ctx, m.requestId, a.user_id, m.setting, a.alarm_phonenumber as string, { ...reminder, template: a.sms_text }, stopping);
      if (!a.alarm_email) return { ok: false, detail: 'no e-mail address' };
      await markMailing(ctx.db, m.requestId);
      return sendReminderMail(ctx, a.alarm_email, { ...reminder, template: a.mail_text, subject: a.mail_subject });
    });
    results.push(withoutCall(m.requestId, sent.ok, sent.detail));
  }
  await recordSent(ctx, stopping, () => settleAttempts(ctx.db, results, now));
  return fired.started;
}
