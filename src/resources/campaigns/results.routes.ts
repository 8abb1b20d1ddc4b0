/**
 * /rest-api/campaigns/<id>/results/ — a voice campaign's survey answers aggregated per question
 * (what /rest-api/callrequest/<id>/results/ shows call by call). Visible exactly as the campaign
 * is: another user's campaign is a 404, an admin sees all.
 */
import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { voiceKind } from '../../campaign/kinds.ts';
import { type AppDeps, type Api, recordId } from '../../http/api.ts';
import { notFound } from '../../http/errors.ts';
import { linker } from '../../http/links.ts';
import { findCampaign } from './repository.ts';
import { listResponseCounts, type ResponseCountRow } from './results.repository.ts';
import { SurveyResults } from './results.schema.ts';

type Results = Static<typeof SurveyResults>;

/** The rows (sorted by question, then count) folded into one entry per question. */
export function presentResults(request: FastifyRequest, campaignId: number, rows: ResponseCountRow[]): Results {
  const link = linker(request);
  const results: Results['results'] = [];
  let key = '';
  for (const r of rows) {
    const rowKey = JSON.stringify([r.section_order, r.section_id, r.question]);
    if (rowKey !== key) {
      key = rowKey;
      results.push({ section: link('section-template', r.section_id), section_order: r.section_order, question: r.question, answered: r.answered, responses: [] });
    }
    results[results.length - 1].responses.push({ response: r.response, count: r.count });
  }
  return { campaign: link('campaigns', campaignId) as string, results };
}

export function surveyResultsRoutes(api: Api, { database }: AppDeps) {
  const { db } = database;
  api.get('/campaigns/:id/results/', { schema: { tags: ['campaigns'], response: { 200: SurveyResults } } }, async (request) => {
    const campaign = await findCampaign(db, voiceKind, request.user, recordId(request));
    if (!campaign) throw notFound();
    return presentResults(request, campaign.id, await listResponseCounts(db, campaign.id));
  });
}
