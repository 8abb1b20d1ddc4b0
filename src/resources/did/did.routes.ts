/** /rest-api/did/ — inbound numbers, each optionally assigned to a campaign. */
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import { invalid, notFound } from '../../http/errors.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { recordUrl } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { presentDid } from './did.present.ts';
import { countDids, deleteDid, didNumberTaken, findDid, insertDid, listDids, updateDid, visibleDids } from './did.repository.ts';
import { DidRecord, didFields } from './did.schema.ts';

const tags = ['did'];
const takenError = () => invalid({ did_number: ['did with this did number already exists.'] });

function routes(api: Api, { database }: AppDeps) {
  const { db } = database;

  api.get('/did/', { schema: { tags, response: { 200: envelopeOf(DidRecord) } } }, async (request) => {
    const where = visibleDids(request.user);
    return paginate(
      request,
      () => countDids(db, where),
      (limit, offset) => listDids(db, where, limit, offset),
      (row) => presentDid(request, row),
    );
  });

  api.get('/did/:id/', { schema: { tags, response: { 200: DidRecord } } }, async (request) => {
    const row = await findDid(db, request.user, recordId(request));
    if (!row) throw notFound();
    return presentDid(request, row);
  });

  api.post('/did/', { schema: { tags, body: bodySchema(didFields), response: { 201: DidRecord } } }, async (request, reply) => {
    const values = await parseBody(didFields, request.body, fieldContext(db, request));
    if (await didNumberTaken(db, values.did_number as string)) throw takenError();
    const row = await insertDid(db, {
      did_number: values.did_number as string,
      user_id: values.user ?? request.user.id,
      campaign_id: values.campaign ?? null,
    });
    return reply.code(201).header('location', recordUrl(request, 'did', row.id)).send(presentDid(request, row));
  });

  // contract §2: update answers 202 with an empty body; `campaign: null` unassigns (spec §4).
  api.route({
    method: ['PATCH', 'PUT'],
    url: '/did/:id/',
    schema: { tags, body: bodySchema(didFields, { partial: true }) },
    handler: async (request, reply) => {
      const id = recordId(request);
      if (!(await findDid(db, request.user, id))) throw notFound();
      const values = await parseBody(didFields, request.body, fieldContext(db, request), { partial: true });
      if (values.did_number && (await didNumberTaken(db, values.did_number, id))) throw takenError();
      await updateDid(db, id, {
        did_number: values.did_number ?? undefined,
        user_id: values.user ?? undefined,
        campaign_id: values.campaign,
      });
      return reply.code(202).send();
    },
  });

  api.delete('/did/:id/', { schema: { tags } }, async (request, reply) => {
    const id = recordId(request);
    if (!(await findDid(db, request.user, id))) throw notFound();
    await deleteDid(db, id);
    return reply.code(204).send();
  });
}

export const didResource: Resource = { name: 'did', routes };
