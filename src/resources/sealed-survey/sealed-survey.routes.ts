/**
 * /rest-api/sealed-survey/ — read-only (issue 17, item 6): the survey each started campaign runs,
 * frozen at its first start (contract §5). Newfies copies a survey template into a "sealed"
 * survey when a campaign starts; ours is the campaign's snapshot, so a sealed survey's id is its
 * campaign's id. The record carries Newfies' fields (url, name, user, dates) and the frozen
 * sections as the template's /flow/ shows them.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { SurveyFlow } from '../../campaign/survey-flow.ts';
import { type AppDeps, type Api, recordId, type Resource } from '../../http/api.ts';
import { notFound } from '../../http/errors.ts';
import { linker } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { isoTime } from '../../http/present.ts';
import { FlowSectionRecord } from '../survey-template/survey-template.schema.ts';
import { countSealedSurveys, findSealedSurvey, listSealedSurveys, type SealedSurveyRow, visibleSealedSurveys } from './sealed-survey.repository.ts';

const NAME = 'sealed-survey';
const tags = [NAME];
const uri = Type.String({ format: 'uri' });

const SealedSurveyRecord = Type.Object({
  id: Type.Integer({ description: "The campaign's id: each started campaign seals its own copy" }),
  url: uri,
  name: Type.String(),
  user: uri,
  campaign: uri,
  survey_template: Type.Union([uri, Type.Null()], { description: 'The template it was copied from (null once deleted)' }),
  created_date: Type.String({ format: 'date-time', description: 'When it was sealed (the first start)' }),
  updated_date: Type.String({ format: 'date-time' }),
  sections: Type.Array(FlowSectionRecord),
});

function present(request: FastifyRequest, row: SealedSurveyRow) {
  const link = linker(request);
  const flow = row.survey_snapshot as SurveyFlow;
  const sealed = isoTime(row.started_date ?? row.created_date) as string;
  return {
    id: row.id,
    url: link(NAME, row.id) as string,
    name: flow.name,
    user: link('users', row.user_id) as string,
    campaign: link('campaigns', row.id) as string,
    survey_template: link('survey-template', row.survey_id),
    created_date: sealed,
    updated_date: sealed,
    sections: flow.sections,
  };
}

function routes(api: Api, { database }: AppDeps) {
  const { db } = database;

  api.get(`/${NAME}/`, { schema: { tags, response: { 200: envelopeOf(SealedSurveyRecord) } } }, async (request) => {
    const where = visibleSealedSurveys(request.user);
    return paginate(
      request,
      () => countSealedSurveys(db, where),
      (limit, offset) => listSealedSurveys(db, where, limit, offset),
      (row) => present(request, row),
    );
  });

  api.get(`/${NAME}/:id/`, { schema: { tags, response: { 200: SealedSurveyRecord } } }, async (request) => {
    const row = await findSealedSurvey(db, request.user, recordId(request));
    if (!row) throw notFound();
    return present(request, row);
  });
}

export const sealedSurveyResource: Resource = { name: NAME, routes };
