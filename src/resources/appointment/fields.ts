/** Request fields the appointment resources share: owned links, surveys, dates, e-mail addresses. */
import { isDeepStrictEqual } from 'node:util';
import { Type } from '@sinclair/typebox';
import { loadFlow, type SurveyFlow } from '../../campaign/survey-flow.ts';
import { surveyTemplates } from '../../db/schema.ts';
import { type Field, FieldError, link } from '../../http/fields.ts';
import { LinkMessages, parseLink } from '../../http/links.ts';
import { findSealedSurvey } from '../sealed-survey/sealed-survey.repository.ts';
import { DATE_FORMAT_MESSAGE, readCampaignDate } from '../campaigns/campaign.dates.ts';
import { ownedRow } from '../campaigns/fields.ts';
import type { OwnedTable } from './crud.ts';

/** A link to a row of an owned table the caller may use (their own; an admin: any). */
export function ownedLink(resources: string[], table: OwnedTable, opts: { required?: boolean; nullable?: boolean } = {}) {
  return link(resources, ownedRow(table), opts);
}

/**
 * A date and time (contract §1: `YYYY-MM-DD HH:MM:SS` or ISO 8601; without an offset, in the
 * instance time zone); returned as ISO text. "" or null: none, when nullable.
 */
export function dateTime(timeZone: string, opts: { required?: boolean; nullable?: boolean } = {}): Field<string | null> {
  return {
    schema: opts.nullable
      ? Type.Union([Type.String({ examples: ['2026-12-10 10:00:00'] }), Type.Null()])
      : Type.String({ examples: ['2026-12-10 10:00:00'] }),
    required: opts.required ?? false,
    parse(value) {
      if (value === null || value === '') {
        if (opts.nullable) return null;
        throw new FieldError(value === null ? 'This field may not be null.' : DATE_FORMAT_MESSAGE);
      }
      const date = typeof value === 'string' ? readCampaignDate(value, timeZone) : DATE_FORMAT_MESSAGE;
      if (typeof date === 'string') throw new FieldError(date);
      return date.toISOString();
    },
  };
}

/** An e-mail address (DRF's EmailField message); "" or null: none. */
export function email(opts: { nullable?: boolean } = {}): Field<string | null> {
  return {
    schema: Type.Union([Type.String({ maxLength: 254, format: 'email' }), Type.Null()]),
    required: false,
    parse(value) {
      if (value === null || value === '') {
        if (opts.nullable) return null;
        if (value === '') return '';
        throw new FieldError('This field may not be null.');
      }
      if (typeof value !== 'string' || value.length > 254 || !/^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(value.trim())) {
        throw new FieldError('Enter a valid email address.');
      }
      return value.trim();
    },
  };
}

/** The sections as a call plays them; flows frozen before `callback_minutes` existed lack it. */
const played = (flow: SurveyFlow) => flow.sections.map((section) => ({ ...section, callback_minutes: section.callback_minutes ?? null }));

/**
 * A calendar setting's or an alarm's survey: a survey template (an id is one), or a sealed survey's link,
 * as Newfies' documented curl posts it. A sealed survey is a started campaign's frozen copy
 * (its id is the campaign's, /rest-api/sealed-survey/); the reminder campaign freezes a
 * template (engine/alarms), so a sealed survey is taken as the template it was sealed from —
 * and only while that template still plays what was sealed, so the calls play the survey the
 * request named, never a later edit of it under the sealed survey's name.
 */
export function surveyLink(): Field<number | null> {
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
