import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import type { SectionTemplateRow } from './section-template.repository.ts';
import type { SectionTemplateRecord } from './section-template.schema.ts';

export function presentSectionTemplate(request: FastifyRequest, row: SectionTemplateRow): Static<typeof SectionTemplateRecord> {
  const link = linker(request);
  return {
    id: row.id,
    url: link('section-template', row.id) as string,
    order: row.order,
    type: row.type,
    question: row.question,
    script: row.script,
    audiofile: link('audio-files', row.audiofile_id),
    retries: row.retries,
    timeout: row.timeout,
    key_0: row.key_0,
    key_1: row.key_1,
    key_2: row.key_2,
    key_3: row.key_3,
    key_4: row.key_4,
    key_5: row.key_5,
    key_6: row.key_6,
    key_7: row.key_7,
    key_8: row.key_8,
    key_9: row.key_9,
    rating_laps: row.rating_laps,
    validate_number: row.validate_number,
    number_digits: row.number_digits,
    min_number: row.min_number,
    max_number: row.max_number,
    phonenumber: row.phonenumber,
    conference: row.conference,
    completed: row.completed,
    queue: link('queue', row.queue_id),
    sms_text: row.sms_text,
    api_url: row.api_url,
    ...(row.callback_minutes === null ? {} : { callback_minutes: row.callback_minutes }),
    created_date: isoTime(row.created_date) as string,
    updated_date: isoTime(row.updated_date) as string,
    survey: link('survey-template', row.survey_id) as string,
    invalid_audiofile: link('audio-files', row.invalid_audiofile_id),
  };
}
