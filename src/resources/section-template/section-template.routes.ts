/** /rest-api/section-template/ — the sections of a survey (issue 4; contract §4 types). */
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import { invalid, notFound } from '../../http/errors.ts';
import { queryInteger } from '../../http/filters.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { recordUrl } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { presentSectionTemplate } from './section-template.present.ts';
import {
  countSectionTemplates,
  deleteSectionTemplate,
  findSectionTemplate,
  insertSectionTemplate,
  listSectionTemplates,
  nextSectionOrder,
  sectionHasBranches,
  sectionTemplatesWhere,
  type SectionTemplateValues,
  updateSectionTemplate,
} from './section-template.repository.ts';
import { SectionTemplateRecord, sectionTemplateFields } from './section-template.schema.ts';
import { checkSectionRules, SECTION_DEFAULTS, sectionColumns } from './section-template.service.ts';

const tags = ['section-template'];

function routes(api: Api, { database }: AppDeps) {
  const { db } = database;

  api.get('/section-template/', { schema: { tags, response: { 200: envelopeOf(SectionTemplateRecord) } } }, async (request) => {
    const where = sectionTemplatesWhere(db, request.user, queryInteger(request, 'survey_id'));
    return paginate(
      request,
      () => countSectionTemplates(db, where),
      (limit, offset) => listSectionTemplates(db, where, limit, offset),
      (row) => presentSectionTemplate(request, row),
    );
  });

  api.get('/section-template/:id/', { schema: { tags, response: { 200: SectionTemplateRecord } } }, async (request) => {
    const row = await findSectionTemplate(db, request.user, recordId(request));
    if (!row) throw notFound();
    return presentSectionTemplate(request, row);
  });

  api.post(
    '/section-template/',
    { schema: { tags, body: bodySchema(sectionTemplateFields), response: { 201: SectionTemplateRecord } } },
    async (request, reply) => {
      const input = await parseBody(sectionTemplateFields, request.body, fieldContext(db, request));
      const columns = sectionColumns(input) as SectionTemplateValues;
      columns.script ??= columns.question; // the text said when there is no audio
      checkSectionRules({ ...SECTION_DEFAULTS, ...columns });
      columns.order ??= await nextSectionOrder(db, columns.survey_id);
      const row = await insertSectionTemplate(db, columns);
      return reply
        .code(201)
        .header('location', recordUrl(request, 'section-template', row.id))
        .send(presentSectionTemplate(request, row));
    },
  );

  // contract §2: update answers 202 with an empty body; PUT is a partial update too.
  api.route({
    method: ['PATCH', 'PUT'],
    url: '/section-template/:id/',
    schema: { tags, body: bodySchema(sectionTemplateFields, { partial: true }) },
    handler: async (request, reply) => {
      const id = recordId(request);
      const row = await findSectionTemplate(db, request.user, id);
      if (!row) throw notFound();
      const input = await parseBody(sectionTemplateFields, request.body, fieldContext(db, request), { partial: true });
      const columns = sectionColumns(input);
      if (columns.script === null) columns.script = columns.question ?? row.question;
      const moves = columns.survey_id !== undefined && columns.survey_id !== row.survey_id;
      if (moves && (await sectionHasBranches(db, id))) {
        throw invalid({ survey: ['A section with branches cannot move to another survey; delete its branches first.'] });
      }
      checkSectionRules({ ...row, ...columns });
      await updateSectionTemplate(db, id, columns);
      return reply.code(202).send();
    },
  });

  api.delete('/section-template/:id/', { schema: { tags } }, async (request, reply) => {
    const id = recordId(request);
    if (!(await findSectionTemplate(db, request.user, id))) throw notFound();
    await deleteSectionTemplate(db, id);
    return reply.code(204).send();
  });
}

export const sectionTemplateResource: Resource = { name: 'section-template', routes };
