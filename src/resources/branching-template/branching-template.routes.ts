/** /rest-api/branching-template/ — where a call goes after a section, by answer (issue 4 §5). */
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import { notFound } from '../../http/errors.ts';
import { queryInteger } from '../../http/filters.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { recordUrl } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { presentBranchingTemplate } from './branching-template.present.ts';
import {
  branchingTemplatesWhere,
  countBranchingTemplates,
  deleteBranchingTemplate,
  findBranchingTemplate,
  insertBranchingTemplate,
  listBranchingTemplates,
  updateBranchingTemplate,
} from './branching-template.repository.ts';
import { BranchingTemplateRecord, branchingTemplateFields } from './branching-template.schema.ts';
import { checkBranch, duplicateKeys, isDuplicateKeys } from './branching-template.service.ts';

const tags = ['branching-template'];

async function orDuplicate<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (isDuplicateKeys(err)) throw duplicateKeys();
    throw err;
  }
}

function routes(api: Api, { database }: AppDeps) {
  const { db } = database;

  api.get('/branching-template/', { schema: { tags, response: { 200: envelopeOf(BranchingTemplateRecord) } } }, async (request) => {
    const where = branchingTemplatesWhere(db, request.user, queryInteger(request, 'section_id'));
    return paginate(
      request,
      () => countBranchingTemplates(db, where),
      (limit, offset) => listBranchingTemplates(db, where, limit, offset),
      (row) => presentBranchingTemplate(request, row),
    );
  });

  api.get('/branching-template/:id/', { schema: { tags, response: { 200: BranchingTemplateRecord } } }, async (request) => {
    const row = await findBranchingTemplate(db, request.user, recordId(request));
    if (!row) throw notFound();
    return presentBranchingTemplate(request, row);
  });

  // contract §8: no branch is created automatically; a second one for the same keys is a 400.
  api.post(
    '/branching-template/',
    { schema: { tags, body: bodySchema(branchingTemplateFields), response: { 201: BranchingTemplateRecord } } },
    async (request, reply) => {
      const input = await parseBody(branchingTemplateFields, request.body, fieldContext(db, request));
      const branch = { keys: input.keys as string, section_id: input.section as number, goto_id: input.goto ?? null };
      const keys = await checkBranch(db, branch);
      const row = await orDuplicate(insertBranchingTemplate(db, { ...branch, keys }));
      return reply
        .code(201)
        .header('location', recordUrl(request, 'branching-template', row.id))
        .send(presentBranchingTemplate(request, row));
    },
  );

  // contract §2: update answers 202 with an empty body; PUT is a partial update too.
  api.route({
    method: ['PATCH', 'PUT'],
    url: '/branching-template/:id/',
    schema: { tags, body: bodySchema(branchingTemplateFields, { partial: true }) },
    handler: async (request, reply) => {
      const id = recordId(request);
      const row = await findBranchingTemplate(db, request.user, id);
      if (!row) throw notFound();
      const input = await parseBody(branchingTemplateFields, request.body, fieldContext(db, request), { partial: true });
      const branch = {
        id,
        keys: input.keys ?? row.keys,
        section_id: input.section ?? row.section_id,
        goto_id: input.goto === undefined ? row.goto_id : input.goto,
      };
      const keys = await checkBranch(db, branch);
      await orDuplicate(updateBranchingTemplate(db, id, { keys, section_id: branch.section_id, goto_id: branch.goto_id }));
      return reply.code(202).send();
    },
  });

  api.delete('/branching-template/:id/', { schema: { tags } }, async (request, reply) => {
    const id = recordId(request);
    if (!(await findBranchingTemplate(db, request.user, id))) throw notFound();
    await deleteBranchingTemplate(db, id);
    return reply.code(204).send();
  });
}

export const branchingTemplateResource: Resource = { name: 'branching-template', routes };
