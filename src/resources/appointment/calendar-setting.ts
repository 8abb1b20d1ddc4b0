/**
 * /rest-api/calendar-setting/ — how a user's reminders are made (Newfies' CalendarSetting): the
 * caller id, the survey a reminder call plays, the gateways, answering-machine handling. The
 * engine places the calls in one voice campaign per setting (`campaign`, made at the first
 * reminder call; engine/alarms), so they follow the campaign rules (contract §5–§6).
 */
import { isDeepStrictEqual } from 'node:util';
import { Type } from '@sinclair/typebox';
import { eq, sql } from 'drizzle-orm';
import { AmdBehavior, audioFiles, calendarSettings, gateways, surveyTemplates } from '../../db/schema.ts';
import { loadFlow, type SurveyFlow } from '../../campaign/survey-flow.ts';
import { boolean, choice, type Field, type FieldContext, FieldError, integer, link, text } from '../../http/fields.ts';
import { LinkMessages, linker, parseLink } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import { anySmsGateway } from '../campaigns/fields.ts';
import { crudResource } from './crud.ts';
import { ownedLink } from './fields.ts';
import { findSealedSurvey } from '../sealed-survey/sealed-survey.repository.ts';

/** Contract §3, §8: any existing gateway may be used by any user. */
async function anyGateway(ctx: FieldContext, id: number): Promise<boolean> {
  return (await ctx.db.select({ id: gateways.id }).from(gateways).where(eq(gateways.id, id)).limit(1)).length > 0;
}

/** The sections as a call plays them; flows frozen before `callback_minutes` existed lack it. */
const played = (flow: SurveyFlow) => flow.sections.map((section) => ({ ...section, callback_minutes: section.callback_minutes ?? null }));

/**
 * The survey a reminder call plays: a survey template (an id is one), or a sealed survey's link,
 * as Newfies' documented curl posts it. A sealed survey is a started campaign's frozen copy
 * (its id is the campaign's, /rest-api/sealed-survey/); the reminder campaign freezes a
 * template (engine/alarms), so a sealed survey is taken as the template it was sealed from —
 * and only while that template still plays what was sealed, so the calls play the survey the
 * request named, never a later edit of it under the sealed survey's name.
 */
function survey(): Field<number | null> {
  const template = ownedLink(['survey-template', 'survey_template'], surveyTemplates, { nullable: true });
  return {
    schema: Type.Union([template.schema, Type.String({ examples: ['/rest-api/sealed-survey/1/'] })], {
      description: 'A survey template, or a sealed survey (taken as the template it was sealed from, while that plays the same)',
    }),
    required: false,
    async parse(value, ctx) {
      const asTemplate = parseLink(value, ['survey-template', 'survey_template']);
      const asSealed = parseLink(value, ['sealed-survey']);
      if (!('error' in asTemplate) || !('id' in asSealed)) return template.parse(value, ctx);
      const sealed = await findSealedSurvey(ctx.db, ctx.user, asSealed.id);
      if (!sealed) throw new FieldError(LinkMessages.doesNotExist);
      const source = sealed.survey_id === null ? undefined : await loadFlow(ctx.db, sealed.survey_id);
      if (!source) throw new FieldError('The survey template this sealed survey was copied from was deleted; link a survey template.');
      if (!isDeepStrictEqual(played(source), played(sealed.survey_snapshot as SurveyFlow))) {
        throw new FieldError('The survey template this sealed survey was copied from was changed since; link the survey template.');
      }
      return template.parse(source.survey_id, ctx);
    },
  };
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
    // campaign freezes (engine/alarms), and take a sealed survey as its template: see survey().
    survey: survey(),
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
