/** /rest-api/survey-template/ — IVR surveys: a named list of sections (issue 4). */
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import { notFound } from '../../http/errors.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { recordUrl } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { presentSurveyTemplate } from './survey-template.present.ts';
import {
  countSurveyTemplates,
  deleteSurveyTemplate,
  findSurveyTemplate,
  insertSurveyTemplate,
  listSurveyTemplates,
  updateSurveyTemplate,
  visibleSurveyTemplates,
} from './survey-template.repository.ts';
import { SurveyFlowRecord, SurveyTemplateRecord, surveyTemplateFields } from './survey-template.schema.ts';
import { flowProblems, loadFlow } from '../../campaign/survey-flow.ts';

const tags = ['survey-template'];

function routes(api: Api, { database }: AppDeps) {
  const { db } = database;

  api.get('/survey-template/', { schema: { tags, response: { 200: envelopeOf(SurveyTemplateRecord) } } }, async (request) => {
    const where = visibleSurveyTemplates(request.user);
    return paginate(
      request,
      () => countSurveyTemplates(db, where),
      (limit, offset) => listSurveyTemplates(db, where, limit, offset),
      (row) => presentSurveyTemplate(request, row),
    );
  });

  api.get('/survey-template/:id/', { schema: { tags, response: { 200: SurveyTemplateRecord } } }, async (request) => {
    const row = await findSurveyTemplate(db, request.user, recordId(request));
    if (!row) throw notFound();
    return presentSurveyTemplate(request, row);
  });

  // The flow check: the survey as a call would run it, and the problems that stop it (issue 4 §5).
  api.get('/survey-template/:id/flow/', { schema: { tags, response: { 200: SurveyFlowRecord } } }, async (request) => {
    const id = recordId(request);
    if (!(await findSurveyTemplate(db, request.user, id))) throw notFound();
    const flow = await loadFlow(db, id);
    if (!flow) throw notFound();
    return { survey: recordUrl(request, 'survey-template', id), sections: flow.sections, problems: flowProblems(flow) };
  });

  api.post(
    '/survey-template/',
    { schema: { tags, body: bodySchema(surveyTemplateFields), response: { 201: SurveyTemplateRecord } } },
    async (request, reply) => {
      const values = await parseBody(surveyTemplateFields, request.body, fieldContext(db, request));
      const row = await insertSurveyTemplate(db, {
        name: values.name as string,
        description: values.description ?? null,
        user_id: values.user ?? request.user.id,
      });
      return reply
        .code(201)
        .header('location', recordUrl(request, 'survey-template', row.id))
        .send(presentSurveyTemplate(request, row));
    },
  );

  // contract §2: update answers 202 with an empty body; PUT is a partial update too.
  api.route({
    method: ['PATCH', 'PUT'],
    url: '/survey-template/:id/',
    schema: { tags, body: bodySchema(surveyTemplateFields, { partial: true }) },
    handler: async (request, reply) => {
      const id = recordId(request);
      if (!(await findSurveyTemplate(db, request.user, id))) throw notFound();
      const values = await parseBody(surveyTemplateFields, request.body, fieldContext(db, request), { partial: true });
      await updateSurveyTemplate(db, id, {
        name: values.name ?? undefined,
        description: values.description,
        user_id: values.user ?? undefined,
      });
      return reply.code(202).send();
    },
  });

  api.delete('/survey-template/:id/', { schema: { tags } }, async (request, reply) => {
    const id = recordId(request);
    if (!(await findSurveyTemplate(db, request.user, id))) throw notFound();
    await deleteSurveyTemplate(db, id);
    return reply.code(204).send();
  });
}

export const surveyTemplateResource: Resource = { name: 'survey-template', routes };
