/**
 * /rest-api/campaigns/<id>/results/ — a voice campaign's survey answers aggregated per question
 * (what /rest-api/callrequest/<id>/results/ shows call by call). Visible exactly as the campaign
 * is: another user's campaign is a 404, an admin sees all.
 */
import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { voiceKind } from '../../campaign/kinds.ts';
import type { SurveyFlow } from '../../campaign/survey-flow.ts';
import { SectionType } from '../../db/schema.ts';
import { type AppDeps, type Api, recordId } from '../../http/api.ts';
import { notFound } from '../../http/errors.ts';
import { linker } from '../../http/links.ts';
import { findCampaign } from './repository.ts';
import { listResponseCounts, type ResponseCountRow } from './results.repository.ts';
import { SurveyResults } from './results.schema.ts';

type Results = Static<typeof SurveyResults>;

/**
 * The key labels of the campaign's multi-choice questions ("1" → "yes"), by order and question,
 * from the survey as the campaign froze it when it started (the template may have changed since).
 */
function keyLabels(snapshot: unknown): Map<string, (string | null)[]> {
  const sections = (snapshot as SurveyFlow | null)?.sections ?? [];
  return new Map(sections.filter((s) => s.type === SectionType.MultiChoice).map((s) => [`${s.order}:${s.question}`, s.keys]));
}

/** The rows (sorted by question, then count) folded into one entry per question. */
export function presentResults(request: FastifyRequest, campaignId: number, snapshot: unknown, rows: ResponseCountRow[]): Results {
  const link = linker(request);
  const labels = keyLabels(snapshot);
  const results: Results['results'] = [];
  let key = '';
  for (const r of rows) {
    const rowKey = JSON.stringify([r.section_order, r.section_id, r.question]);
    if (rowKey !== key) {
      key = rowKey;
      results.push({ section: link('section-template', r.section_id), section_order: r.section_order, question: r.question, answered: r.answered, responses: [] });
    }
    const keys = labels.get(`${r.section_order}:${r.question}`);
    const label = keys && /^\d$/.test(r.response) ? (keys[Number(r.response)] ?? null) : null;
    results[results.length - 1].responses.push({ response: r.response, label, count: r.count });
  }
  return { campaign: link('campaigns', campaignId) as string, results };
}

export function surveyResultsRoutes(api: Api, { database }: AppDeps) {
  const { db } = database;
  api.get('/campaigns/:id/results/', { schema: { tags: ['campaigns'], response: { 200: SurveyResults } } }, async (request) => {
    const campaign = await findCampaign(db, voiceKind, request.user, recordId(request));
    if (!campaign) throw notFound();
    return presentResults(request, campaign.id, campaign.survey_snapshot, await listResponseCounts(db, campaign.id));
  });
}
