/** /rest-api/callerid_group/ — sets of caller ids picked by area code (contract §6). */
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import { notFound } from '../../http/errors.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { recordUrl } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { presentCalleridGroup } from './callerid-group.present.ts';
import {
  countCalleridGroups,
  deleteCalleridGroup,
  findCalleridGroup,
  insertCalleridGroup,
  listCalleridGroups,
  updateCalleridGroup,
  visibleCalleridGroups,
} from './callerid-group.repository.ts';
import { CalleridGroupRecord, calleridGroupFields } from './callerid-group.schema.ts';

const tags = ['callerid_group'];

function routes(api: Api, { database }: AppDeps) {
  const { db } = database;

  api.get('/callerid_group/', { schema: { tags, response: { 200: envelopeOf(CalleridGroupRecord) } } }, async (request) => {
    const where = visibleCalleridGroups(request.user);
    return paginate(
      request,
      () => countCalleridGroups(db, where),
      (limit, offset) => listCalleridGroups(db, where, limit, offset),
      (row) => presentCalleridGroup(request, row),
    );
  });

  api.get('/callerid_group/:id/', { schema: { tags, response: { 200: CalleridGroupRecord } } }, async (request) => {
    const row = await findCalleridGroup(db, request.user, recordId(request));
    if (!row) throw notFound();
    return presentCalleridGroup(request, row);
  });

  api.post(
    '/callerid_group/',
    { schema: { tags, body: bodySchema(calleridGroupFields), response: { 201: CalleridGroupRecord } } },
    async (request, reply) => {
      const values = await parseBody(calleridGroupFields, request.body, fieldContext(db, request));
      const row = await insertCalleridGroup(db, {
        name: values.name as string,
        description: values.description ?? '',
        user_id: values.user ?? request.user.id,
        daily_cap: values.daily_cap ?? null,
        min_answer_rate: values.min_answer_rate ?? null,
        answer_rate_min_calls: values.answer_rate_min_calls ?? undefined,
      });
      return reply
        .code(201)
        .header('location', recordUrl(request, 'callerid_group', row.id))
        .send(presentCalleridGroup(request, row));
    },
  );

  // contract §2: update answers 202 with an empty body; PUT is a partial update too.
  api.route({
    method: ['PATCH', 'PUT'],
    url: '/callerid_group/:id/',
    schema: { tags, body: bodySchema(calleridGroupFields, { partial: true }) },
    handler: async (request, reply) => {
      const id = recordId(request);
      if (!(await findCalleridGroup(db, request.user, id))) throw notFound();
      const values = await parseBody(calleridGroupFields, request.body, fieldContext(db, request), { partial: true });
      await updateCalleridGroup(db, id, {
        name: values.name ?? undefined,
        description: values.description ?? undefined,
        user_id: values.user ?? undefined,
        // null clears the cap or the floor; absent leaves it.
        daily_cap: values.daily_cap,
        min_answer_rate: values.min_answer_rate,
        answer_rate_min_calls: values.answer_rate_min_calls ?? undefined,
      });
      return reply.code(202).send();
    },
  });

  api.delete('/callerid_group/:id/', { schema: { tags } }, async (request, reply) => {
    const id = recordId(request);
    if (!(await findCalleridGroup(db, request.user, id))) throw notFound();
    await deleteCalleridGroup(db, id);
    return reply.code(204).send();
  });
}

export const calleridGroupResource: Resource = { name: 'callerid_group', routes };
