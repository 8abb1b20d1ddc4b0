import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import type { SurveyTemplateRow } from './survey-template.repository.ts';
import type { SurveyTemplateRecord } from './survey-template.schema.ts';

export function presentSurveyTemplate(request: FastifyRequest, row: SurveyTemplateRow): Static<typeof SurveyTemplateRecord> {
  const link = linker(request);
  return {
    id: row.id,
    url: link('survey-template', row.id) as string,
    name: row.name,
    description: row.description,
    user: link('users', row.user_id) as string,
    created_date: isoTime(row.created_date) as string,
    updated_date: isoTime(row.updated_date) as string,
  };
}
