/**
 * /rest-api/calendar-setting/ — how a user's reminders are made (Newfies' CalendarSetting): the
 * caller id, the survey a reminder call plays, the gateways, answering-machine handling. The
 * engine places the calls in one voice campaign per setting (`campaign`, made at the first
 * reminder call; engine/alarms), so they follow the campaign rules (contract §5–§6).
 */
import { Type } from '@sinclair/typebox';
import { eq, sql } from 'drizzle-orm';
import { AmdBehavior, audioFiles, calendarSettings, gateways } from '../../db/schema.ts';
import { boolean, choice, type FieldContext, integer, link, text } from '../../http/fields.ts';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import { anySmsGateway } from '../campaigns/fields.ts';
import { crudResource } from './crud.ts';
import { ownedLink, surveyLink } from './fields.ts';

/** Contract §3, §8: any existing gateway may be used by any user. */
async function anyGateway(ctx: FieldContext, id: number): Promise<boolean> {
  return (await ctx.db.select({ id: gateways.id }).from(gateways).where(eq(gateways.id, id)).limit(1)).length > 0;
}

const Link = Type.Union([Type.String({ format: 'uri' }), Type.Null()]);

export const CalendarSettingRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  label: Type.String(),
  callerid: Type.String(),
  caller_name: Type.String(),
  call_timeout: Type.Integer(),
  user: Type.String({ format: 'uri' }),
  survey: Link,
  aleg_gateway: Link,
  sms_gateway: Link,
  voicemail: Type.Boolean(),
  amd_behavior: Type.Union([Type.Integer(), Type.Null()]),
  voicemail_audiofile: Link,
  campaign: Link,
  created_date: Type.String({ format: 'date-time' }),
  updated_date: Type.String({ format: 'date-time' }),
});

type SettingRow = typeof calendarSettings.$inferSelect;

export const calendarSettingResource = crudResource({
  name: 'calendar-setting',
  table: calendarSettings,
  record: CalendarSettingRecord,
  touch: { updated_date: sql`now()` },
  fields: () => ({
    label: text({ required: true, max: 80, blank: false }),
    callerid: text({ max: 80 }),
    caller_name: text({ max: 100 }),
    call_timeout: integer({ min: 1, max: 3600 }),
    // Newfies links a sealed (frozen) survey here; we store a template, which the reminder
    // campaign freezes (engine/alarms), and take a sealed survey as its template: see surveyLink().
    survey: surveyLink(),
    aleg_gateway: link(['gateway'], anyGateway, { nullable: true }),
    sms_gateway: link(['sms-gateway', 'sms_gateway'], anySmsGateway, { nullable: true }),
    voicemail: boolean(),
    amd_behavior: choice(Object.values(AmdBehavior), { nullable: true }),
    voicemail_audiofile: ownedLink(['audio-files'], audioFiles, { nullable: true }),
  }),
  columns: (_ctx, v) => ({
    values: {
      label: v.label ?? undefined,
      callerid: v.callerid ?? undefined,
      caller_name: v.caller_name ?? undefined,
      call_timeout: v.call_timeout ?? undefined,
      survey_id: v.survey,
      aleg_gateway_id: v.aleg_gateway,
      sms_gateway_id: v.sms_gateway,
      voicemail: v.voicemail ?? undefined,
      amd_behavior: v.amd_behavior,
      voicemail_audiofile_id: v.voicemail_audiofile,
    },
  }),
  present(request, r) {
    const row = r as unknown as SettingRow;
    const link = linker(request);
    return {
      id: row.id,
      url: link('calendar-setting', row.id) as string,
      label: row.label,
      callerid: row.callerid,
      caller_name: row.caller_name,
      call_timeout: row.call_timeout,
      user: link('users', row.user_id) as string,
      survey: link('survey-template', row.survey_id),
      aleg_gateway: link('gateway', row.aleg_gateway_id),
      sms_gateway: link('sms-gateway', row.sms_gateway_id),
      voicemail: row.voicemail,
      amd_behavior: row.amd_behavior,
      voicemail_audiofile: link('audio-files', row.voicemail_audiofile_id),
      campaign: link('campaigns', row.campaign_id),
      created_date: isoTime(row.created_date) as string,
      updated_date: isoTime(row.updated_date) as string,
    };
  },
});
