/**
 * GET /rest-api/surveyaggregate/<survey_id>/ — Newfies' aggregated survey results (issue 17,
 * item 5): the answers of the calls of every campaign that ran the survey template, counted per
 * section and response, as Newfies' bare array of {section__question, response, count} (plus
 * `section`, the section's link, null for a section deleted since). A survey the caller may not
 * see answers 404 (contract §3) with Newfies' message under `error`; so does the path without an id.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppDeps, Api, Resource } from '../../http/api.ts';
import { AppError } from '../../http/errors.ts';
import { linker } from '../../http/links.ts';
import { RECORDED } from '../campaigns/results.repository.ts';
import { aggregateSurvey, surveyVisible } from './surveyaggregate.repository.ts';

const NAME = 'surveyaggregate';
const tags = [NAME];

const AggregateList = Type.Array(
  Type.Object({
    section: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
    section__question: Type.String(),
    response: Type.String({ description: `The answer (key, digits, words); "${RECORDED}" for a recorded message` }),
    count: Type.Integer({ description: 'Calls that gave this response' }),
  }),
);

// Newfies' survey_id names a sealed survey; ours names a template. Sealed surveys' ids are
// campaigns' ids, another id space, so the path is never read as one (README).
const description =
  "`survey_id` is a survey template's id, where Newfies takes a sealed survey's; one sealed survey's answers are its campaign's, at /rest-api/campaigns/<id>/results/";

const invalidSurvey = () => new AppError(404, { detail: 'Not found.', error: 'Survey ID is not valid!' });

function surveyId(request: FastifyRequest): number | undefined {
  const raw = (request.params as { survey_id?: string }).survey_id ?? '';
  return /^\d{1,10}$/.test(raw) && Number(raw) >= 1 && Number(raw) <= 2_147_483_647 ? Number(raw) : undefined;
}

function routes(api: Api, { database }: AppDeps) {
  const { db } = database;

  api.get(`/${NAME}/`, { schema: { tags, hide: true } }, async () => {
    throw new AppError(404, { detail: 'Not found.', error: 'Please enter Survey ID.' });
  });

  api.get(`/${NAME}/:survey_id/`, { schema: { tags, description, response: { 200: AggregateList } } }, async (request) => {
    const id = surveyId(request);
    if (id === undefined || !(await surveyVisible(db, request.user, id))) throw invalidSurvey();
    const link = linker(request);
    return (await aggregateSurvey(db, id, RECORDED)).map((row) => ({
      section: link('section-template', row.section_id),
      section__question: row.question,
      response: row.response,
      count: row.count,
    }));
  });
}

export const surveyAggregateResource: Resource = { name: NAME, listed: false, routes };
