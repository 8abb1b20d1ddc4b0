/**
 * /rest-api/alarm/ — a reminder of an event (Newfies' Alarm): by call, SMS or e-mail
 * (`method`), at `date_start_notice` (by default the event's start) less `advance_notice`
 * seconds, inside the alarm's daily window in the callee's time zone, with `maxretry` retries
 * `retry_delay` seconds apart. The engine (engine/alarms) fires it and writes `status`,
 * `num_attempt` and `result`; each attempt is an alarm-request. `sms_template` and
 * `mail_template` (the caller's) give the text of an SMS and an e-mail reminder. Setting `status` back to 1
 * (PENDING), or changing the notice time of a PENDING alarm, arms it again.
 */
import { Type } from '@sinclair/typebox';
import { eq, type SQL } from 'drizzle-orm';
import { AlarmMethod, AlarmResult, AlarmStatus, alarms, calendarEvents, mailTemplates, smsTemplates } from '../../db/schema.ts';
import { invalid } from '../../http/errors.ts';
import { choice, type FieldContext, integer, phone, text, timeOfDay } from '../../http/fields.ts';
import { queryInteger } from '../../http/filters.ts';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import { crudResource, findOwned, type Row } from './crud.ts';
import { dateTime, email, ownedLink, surveyLink } from './fields.ts';

type AlarmRow = typeof alarms.$inferSelect;
type EventRow = typeof calendarEvents.$inferSelect;

export const AlarmRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  event: Type.String({ format: 'uri' }),
  alarm_phonenumber: Type.Union([Type.String(), Type.Null()]),
  alarm_email: Type.Union([Type.String(), Type.Null()]),
  daily_start: Type.String(),
  daily_stop: Type.String(),
  advance_notice: Type.Integer(),
  maxretry: Type.Integer(),
  retry_delay: Type.Integer(),
  num_attempt: Type.Integer(),
  method: Type.Integer(),
  survey: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
  mail_template: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
  sms_template: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
  date_start_notice: Type.String({ format: 'date-time' }),
  status: Type.Integer(),
  result: Type.Union([Type.Integer(), Type.Null()]),
  url_cancel: Type.Union([Type.String(), Type.Null()]),
  url_confirm: Type.Union([Type.String(), Type.Null()]),
  phonenumber_transfer: Type.Union([Type.String(), Type.Null()]),
  phonenumber_sms_failure: Type.Union([Type.String(), Type.Null()]),
  created_date: Type.String({ format: 'date-time' }),
});

const seconds = () => integer({ min: 0, max: 31_536_000 });

/** When the alarm is due: the notice time less the advance notice. */
const dueAt = (notice: string, advance: number) => new Date(new Date(notice).getTime() - advance * 1000).toISOString();

async function findEvent(ctx: FieldContext, id: number): Promise<EventRow | undefined> {
  return (await findOwned(ctx.db, calendarEvents, ctx.user, id)) as EventRow | undefined;
}

export const alarmResource = crudResource({
  name: 'alarm',
  table: alarms,
  record: AlarmRecord,
  filters: (request) => {
    const event = queryInteger(request, 'event');
    return [event === undefined ? undefined : (eq(alarms.event_id, event) as SQL)];
  },
  fields: ({ config }) => ({
    event: ownedLink(['event'], calendarEvents, { required: true }),
    alarm_phonenumber: phone({ nullable: true }),
    alarm_email: email({ nullable: true }),
    daily_start: timeOfDay(),
    daily_stop: timeOfDay(),
    advance_notice: seconds(),
    maxretry: integer({ min: 0, max: 100 }),
    retry_delay: seconds(),
    method: choice(Object.values(AlarmMethod)),
    // Newfies' alarm has a survey; its calls play the calendar setting's, and so do ours.
    survey: surveyLink(),
    sms_template: ownedLink(['sms-template'], smsTemplates, { nullable: true }),
    mail_template: ownedLink(['mail-template'], mailTemplates, { nullable: true }),
    date_start_notice: dateTime(config.timeZone),
    status: choice(Object.values(AlarmStatus)),
    result: choice(Object.values(AlarmResult), { nullable: true }),
    url_cancel: text({ max: 250, nullable: true }),
    url_confirm: text({ max: 250, nullable: true }),
    phonenumber_transfer: phone({ nullable: true }),
    phonenumber_sms_failure: phone({ nullable: true }),
  }),
  async columns(ctx, v, r?: Row) {
    const current = r as AlarmRow | undefined;
    const event = v.event ? await findEvent(ctx, v.event) : undefined;
    const method = v.method ?? current?.method ?? AlarmMethod.Call;
    const phoneNumber = v.alarm_phonenumber !== undefined ? v.alarm_phonenumber : current?.alarm_phonenumber;
    const mail = v.alarm_email !== undefined ? v.alarm_email : current?.alarm_email;
    if (method === AlarmMethod.Email && !mail) throw invalid({ alarm_email: ['This field is required for an e-mail alarm (method 3).'] });
    if (method !== AlarmMethod.Email && !phoneNumber) throw invalid({ alarm_phonenumber: ['This field is required for a call or SMS alarm (methods 1 and 2).'] });
    const notice = v.date_start_notice ?? current?.date_start_notice ?? (event as EventRow).start;
    const advance = v.advance_notice ?? current?.advance_notice ?? 0;
    const status = v.status ?? current?.status ?? AlarmStatus.Pending;
    // Armed again: a new alarm, a status set back to PENDING, or a PENDING alarm given a new time.
    const rearm = !current || v.status === AlarmStatus.Pending || (status === AlarmStatus.Pending && (v.date_start_notice || v.advance_notice !== undefined));
    return {
      owner: event?.user_id,
      values: {
        event_id: v.event ?? undefined,
        alarm_phonenumber: v.alarm_phonenumber,
        alarm_email: v.alarm_email,
        daily_start: v.daily_start ?? undefined,
        daily_stop: v.daily_stop ?? undefined,
        advance_notice: v.advance_notice ?? undefined,
        maxretry: v.maxretry ?? undefined,
        retry_delay: v.retry_delay ?? undefined,
        method: v.method ?? undefined,
        survey_id: v.survey,
        sms_template_id: v.sms_template,
        mail_template_id: v.mail_template,
        date_start_notice: current && !v.date_start_notice ? undefined : notice,
        status: v.status ?? undefined,
        result: v.result,
        url_cancel: v.url_cancel,
        url_confirm: v.url_confirm,
        phonenumber_transfer: v.phonenumber_transfer,
        phonenumber_sms_failure: v.phonenumber_sms_failure,
        next_attempt_at: rearm ? dueAt(notice, advance) : undefined,
        num_attempt: v.status === AlarmStatus.Pending ? 0 : undefined,
      },
    };
  },
  present(request, r) {
    const row = r as unknown as AlarmRow;
    const link = linker(request);
    return {
      id: row.id,
      url: link('alarm', row.id) as string,
      event: link('event', row.event_id) as string,
      alarm_phonenumber: row.alarm_phonenumber,
      alarm_email: row.alarm_email,
      daily_start: row.daily_start,
      daily_stop: row.daily_stop,
      advance_notice: row.advance_notice,
      maxretry: row.maxretry,
      retry_delay: row.retry_delay,
      num_attempt: row.num_attempt,
      method: row.method,
      survey: link('survey-template', row.survey_id),
      mail_template: link('mail-template', row.mail_template_id),
      sms_template: link('sms-template', row.sms_template_id),
      date_start_notice: isoTime(row.date_start_notice) as string,
      status: row.status,
      result: row.result,
      url_cancel: row.url_cancel,
      url_confirm: row.url_confirm,
      phonenumber_transfer: row.phonenumber_transfer,
      phonenumber_sms_failure: row.phonenumber_sms_failure,
      created_date: isoTime(row.created_date) as string,
    };
  },
});
