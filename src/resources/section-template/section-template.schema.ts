import { Type } from '@sinclair/typebox';
import { SectionType } from '../../db/schema.ts';
import { boolean, type Field, FieldError, choice, integer, link, text } from '../../http/fields.ts';
import { findSurveyTemplate } from '../survey-template/survey-template.repository.ts';
import { audioFileVisible, queueVisible } from './section-template.repository.ts';

/** Optional text where "" means none, as clients send it (stored as null). */
function optionalText(max: number, check?: (value: string) => void): Field<string | null> {
  const inner = text({ max, nullable: true });
  return {
    schema: inner.schema,
    required: false,
    async parse(value, ctx) {
      const s = await inner.parse(value, ctx);
      if (s === null || s.trim() === '') return null;
      check?.(s.trim());
      return s.trim();
    },
  };
}

const httpUrl = (value: string) => {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw new FieldError('Enter a valid URL.');
  }
};

const audioLink = () =>
  link(['audio-files'], (ctx, id) => audioFileVisible(ctx.db, ctx.user, id), { nullable: true, description: 'an audio file of yours' });

/** The section's answer labels key_0 … key_9 (multi-choice), "" = none. */
const keyFields = Object.fromEntries(
  Array.from({ length: 10 }, (_, digit) => [`key_${digit}`, optionalText(100)]),
) as Record<`key_${0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9}`, Field<string | null>>;

/** Request fields (contract §8: `survey` and `question` required; `type` defaults to 1). */
export const sectionTemplateFields = {
  survey: link(['survey-template'], async (ctx, id) => Boolean(await findSurveyTemplate(ctx.db, ctx.user, id)), {
    required: true,
  }),
  order: integer({ min: 0, description: 'play order in the survey; default: after its last section' }),
  type: choice(Object.values(SectionType), { description: 'contract §4: 1 play message … 14 asynchronous API call' }),
  question: text({ required: true, blank: false }),
  script: text({ nullable: true, description: 'what is said (text to speech) when there is no audio; default: question' }),
  audiofile: audioLink(),
  invalid_audiofile: audioLink(),
  retries: integer({ min: 0, max: 100, nullable: true }),
  timeout: integer({ min: 0, max: 3600 }),
  ...keyFields,
  rating_laps: integer({ min: 1, max: 99 }),
  validate_number: boolean(),
  number_digits: integer({ min: 1, max: 50 }),
  min_number: integer(),
  max_number: integer(),
  phonenumber: optionalText(50),
  conference: optionalText(50),
  completed: boolean(),
  queue: link(['queue'], (ctx, id) => queueVisible(ctx.db, ctx.user, id), { nullable: true }),
  sms_text: optionalText(10_000),
  api_url: optionalText(2000, httpUrl),
  callback_minutes: integer({
    min: 1,
    max: 43_200,
    nullable: true,
    description: 'a call passing this section asks to be called back this many minutes after it ends (issue 16)',
  }),
};

const nullableString = Type.Union([Type.String(), Type.Null()]);
const nullableUri = Type.Union([Type.String({ format: 'uri' }), Type.Null()]);

export const SectionTemplateRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  order: Type.Integer(),
  type: Type.Integer(),
  question: Type.String(),
  script: Type.String(),
  audiofile: nullableUri,
  retries: Type.Union([Type.Integer(), Type.Null()]),
  timeout: Type.Integer(),
  key_0: nullableString,
  key_1: nullableString,
  key_2: nullableString,
  key_3: nullableString,
  key_4: nullableString,
  key_5: nullableString,
  key_6: nullableString,
  key_7: nullableString,
  key_8: nullableString,
  key_9: nullableString,
  rating_laps: Type.Integer(),
  validate_number: Type.Boolean(),
  number_digits: Type.Integer(),
  min_number: Type.Integer(),
  max_number: Type.Integer(),
  phonenumber: nullableString,
  conference: nullableString,
  completed: Type.Boolean(),
  queue: nullableUri,
  sms_text: nullableString,
  api_url: nullableString,
  /** Shown only when set: the record of a section without it stays the one Newfies clients know. */
  callback_minutes: Type.Optional(Type.Integer()),
  created_date: Type.String({ format: 'date-time' }),
  updated_date: Type.String({ format: 'date-time' }),
  survey: Type.String({ format: 'uri' }),
  invalid_audiofile: nullableUri,
});
