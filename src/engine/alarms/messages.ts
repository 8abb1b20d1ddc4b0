/**
 * What a reminder says, and its SMS and e-mail sending. An SMS goes through the calendar
 * setting's SMS gateway as a campaign message does: the sms_messages row is committed 'unsent'
 * (cost = the owner's sms_rate × parts) before the driver is asked, then settled by the same
 * statement as campaign messages (charged when sent), after the do-not-call check. An e-mail
 * goes to the SMTP relay of SMTP_URL (drivers/mail/smtp.ts). The text is the alarm's template's
 * (sms_template, mail_template), else its own: the event's title, local start and description.
 */
import { isDoNotCall } from '../../campaign/dnc.ts';
import { zoneOfNumber } from '../../campaign/timezone.ts';
import { parseSmtpUrl, sendMail } from '../../drivers/mail/smtp.ts';
import type { EngineContext } from '../context.ts';
import { renderSms } from '../sms/render.ts';
import { sendLoneSms } from '../sms/send-one.ts';
import { insertAlarmMessage, type SettingRow } from './store.ts';

export interface Reminder {
  title: string;
  description: string;
  /** The event's start (timestamptz text). */
  start: string;
  /** The callee's name (the calendar user's), for `{full_name}`. */
  fullName?: string;
  /** A template's text, instead of the alarm's own (`{full_name}`, `{event_title}`, `{event_start}`, `{event_description}`). */
  template?: string | null;
  /** A mail template's subject. */
  subject?: string | null;
}

/** "2026-12-11 10:00" in `timeZone`. */
export function localStart(start: string, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(start));
  const p = (type: string) => parts.find((x) => x.type === type)?.value ?? '';
  return `${p('year')}-${p('month')}-${p('day')} ${p('hour')}:${p('minute')}`;
}

/** The reminder's text, its time in the callee's zone: the template's, filled in, or the alarm's own. */
export function reminderText(r: Reminder, timeZone: string): string {
  const vars = { event_title: r.title, event_start: localStart(r.start, timeZone), event_description: r.description };
  if (r.template) return renderSms(r.template, r.fullName ?? '', vars);
  const text = `Reminder: ${r.title}, ${localStart(r.start, timeZone)} (${timeZone}).`;
  return r.description ? `${text} ${r.description}` : text;
}

/** The zone a number's reminder is written and windowed in. */
export const zoneOf = (ctx: EngineContext, number: string): string => zoneOfNumber(number, ctx.config.timeZone, ctx.clock.now()).tz_code;

export interface Sent {
  ok: boolean;
  detail: string;
}

/**
 * Sends a reminder SMS to `to` through the setting's SMS gateway (sms/send-one.ts); the message is
 * billed when sent. Its row names attempt `requestId`, which then takes its outcome from it
 * (store.ts smsAttemptResults).
 */
export async function sendReminderSms(
  ctx: EngineContext,
  requestId: number,
  userId: number,
  setting: SettingRow | undefined,
  to: string,
  reminder: Reminder,
  stopping?: () => boolean,
): Promise<Sent> {
  if (!setting?.sms_gateway_id) return { ok: false, detail: 'sms not sent: the calendar setting has no SMS gateway' };
  const text = reminderText(reminder, zoneOf(ctx, to));
  return sendLoneSms(ctx, {
    gatewayId: setting.sms_gateway_id,
    to,
    from: setting.callerid,
    text,
    insert: (gatewayId, parts) => insertAlarmMessage(ctx.db, { requestId, userId, gatewayId, to, from: setting.callerid, text, parts, engineId: ctx.engineId }),
    refusal: async () => ((await isDoNotCall(ctx.db, userId, null, to)) ? 'on a do-not-call list' : undefined),
    stopping,
    who: `reminder to ${to}`,
  });
}

/** Sends a reminder e-mail to `to` through SMTP_URL. */
export async function sendReminderMail(ctx: EngineContext, to: string, reminder: Reminder): Promise<Sent> {
  const server = ctx.config.smtpUrl ? parseSmtpUrl(ctx.config.smtpUrl) : undefined;
  if (!server) return { ok: false, detail: 'e-mail not sent: SMTP_URL is not set' };
  try {
    const answer = await sendMail(server, {
      from: ctx.config.mailFrom ?? 'reminders@localhost',
      to,
      subject: reminder.subject ? renderSms(reminder.subject, reminder.fullName ?? '', { event_title: reminder.title }) : `Reminder: ${reminder.title}`,
      text: reminderText(reminder, ctx.config.timeZone),
    });
    return { ok: true, detail: `e-mail sent: ${answer}` };
  } catch (err) {
    return { ok: false, detail: `e-mail not sent: ${(err as Error).message}` };
  }
}
