/**
 * The rules of a section beyond its fields: each type needs what it runs with (contract §4),
 * checked on the whole record, the merged one on PATCH.
 */
import { SectionType } from '../../db/schema.ts';
import { type FieldErrors, invalid } from '../../http/errors.ts';
import type { Parsed } from '../../http/fields.ts';
import type { SectionTemplateValues } from './section-template.repository.ts';
import type { sectionTemplateFields } from './section-template.schema.ts';

export type SectionInput = Parsed<typeof sectionTemplateFields>;

/** The defaults of a new section (the columns' defaults, contract §8), for checking before insert. */
export const SECTION_DEFAULTS = {
  type: SectionType.PlayMessage,
  retries: null,
  timeout: 5,
  rating_laps: 9,
  validate_number: true,
  number_digits: 2,
  min_number: 0,
  max_number: 99,
  completed: false,
} as const;

const KEYS = ['key_0', 'key_1', 'key_2', 'key_3', 'key_4', 'key_5', 'key_6', 'key_7', 'key_8', 'key_9'] as const;

/** The column values of the request fields present; links become their ids. */
export function sectionColumns(input: SectionInput): Partial<SectionTemplateValues> {
  const { survey, audiofile, invalid_audiofile, queue, ...rest } = input;
  const columns: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(rest)) if (value !== undefined) columns[name] = value;
  if (survey !== undefined) columns.survey_id = survey;
  if (audiofile !== undefined) columns.audiofile_id = audiofile;
  if (invalid_audiofile !== undefined) columns.invalid_audiofile_id = invalid_audiofile;
  if (queue !== undefined) columns.queue_id = queue;
  return columns as Partial<SectionTemplateValues>;
}

type Section = Partial<SectionTemplateValues>;

/** What each type needs (contract §4), as field errors; {} when the section can run. */
export function sectionRuleErrors(s: Section): FieldErrors {
  const errors: FieldErrors = {};
  switch (s.type) {
    case SectionType.MultiChoice:
      if (!KEYS.some((k) => s[k])) {
        errors.non_field_errors = ['A multi-choice section (type 2) needs at least one answer in key_0 … key_9.'];
      }
      break;
    case SectionType.CaptureDigits:
      if ((s.min_number ?? 0) > (s.max_number ?? 0)) {
        errors.max_number = ['Ensure max_number is greater than or equal to min_number.'];
      }
      break;
    // A call transfer (type 6) may be saved without its number, as Newfies allows (issue 17):
    // the survey's flow check lists it, and a campaign cannot start until it is given.
    case SectionType.Conference:
      if (!s.conference) errors.conference = ['A conference section (type 8) needs a conference room.'];
      break;
    case SectionType.SmsMessage:
      if (!s.sms_text) errors.sms_text = ['A send SMS section (type 10) needs an sms_text.'];
      break;
    case SectionType.ApiCall:
    case SectionType.AsyncApiCall:
      if (!s.api_url) errors.api_url = [`An API call section (type ${s.type}) needs an http(s) api_url.`];
      break;
    case SectionType.Queue:
      if (!s.queue_id) errors.queue = ['A queue section (type 12) needs a queue.'];
      break;
  }
  return errors;
}

/** Throws a 400 when the section (new, or merged on PATCH) misses what its type needs. */
export function checkSectionRules(section: Section): void {
  const errors = sectionRuleErrors(section);
  if (Object.keys(errors).length > 0) throw invalid(errors);
}
