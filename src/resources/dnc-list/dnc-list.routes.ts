/**
 * /rest-api/dnc-list/ and /rest-api/dnc/ — do-not-call lists, one resource under both names;
 * record URLs and Location are /rest-api/dnc/<id>/ (contract §1).
 */
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import { notFound } from '../../http/errors.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { recordUrl } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { DNC_LINK, presentDncList } from './dnc-list.present.ts';
import {
  countDncLists,
  deleteDncList,
  findDncList,
  insertDncList,
  listDncLists,
  updateDncList,
  visibleDncLists,
} from './dnc-list.repository.ts';
import { DncListRecord, dncListFields } from './dnc-list.schema.ts';

const tags = ['dnc-list'];
const NAME = 'dnc-list';
const ALIASES = [DNC_LINK];

function routesAt(api: Api, db: AppDeps['database']['db'], base: string) {
  // The alias is documented once, under its main name.
  const doc = { tags, hide: base !== NAME };
  api.get(`/${base}/`, { schema: { ...doc, response: { 200: envelopeOf(DncListRecord) } } }, async (request) => {
    const where = visibleDncLists(request.user);
    return paginate(
      request,
      () => countDncLists(db, where),
      (limit, offset) => listDncLists(db, where, limit, offset),
      (row) => presentDncList(request, row),
    );
  });

  api.get(`/${base}/:id/`, { schema: { ...doc, response: { 200: DncListRecord } } }, async (request) => {
    const row = await findDncList(db, request.user, recordId(request));
    if (!row) throw notFound();
    return presentDncList(request, row);
  });

  api.post(
    `/${base}/`,
    { schema: { ...doc, body: bodySchema(dncListFields), response: { 201: DncListRecord } } },
    async (request, reply) => {
      const values = await parseBody(dncListFields, request.body, fieldContext(db, request));
      const row = await insertDncList(db, {
        name: values.name as string,
        user_id: values.user ?? request.user.id,
        is_global: values.is_global ?? false,
      });
      return reply.code(201).header('location', recordUrl(request, DNC_LINK, row.id)).send(presentDncList(request, row));
    },
  );

  // contract §2: update answers 202 with an empty body; PUT is a partial update too.
  api.route({
    method: ['PATCH', 'PUT'],
    url: `/${base}/:id/`,
    schema: { ...doc, body: bodySchema(dncListFields, { partial: true }) },
    handler: async (request, reply) => {
      const id = recordId(request);
      if (!(await findDncList(db, request.user, id))) throw notFound();
      const values = await parseBody(dncListFields, request.body, fieldContext(db, request), { partial: true });
      await updateDncList(db, id, {
        name: values.name ?? undefined,
        user_id: values.user ?? undefined,
        is_global: values.is_global ?? undefined,
      });
      return reply.code(202).send();
    },
  });

  api.delete(`/${base}/:id/`, { schema: doc }, async (request, reply) => {
    const id = recordId(request);
    if (!(await findDncList(db, request.user, id))) throw notFound();
    await deleteDncList(db, id);
    return reply.code(204).send();
  });
}

// src/app.ts registers a resource's routes once, so the alias paths are routed here.
function routes(api: Api, { database }: AppDeps) {
  for (const base of [NAME, ...ALIASES]) routesAt(api, database.db, base);
}

export const dncListResource: Resource = { name: NAME, aliases: ALIASES, routes };
