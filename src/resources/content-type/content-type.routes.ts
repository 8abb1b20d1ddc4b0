/**
 * /rest-api/content-type/ — read-only (issue 17, item 6): the content types a campaign's
 * `object_id` may point to, as Newfies lists Django's (url, name, app_label, model). Newfies'
 * campaigns run survey templates only, and so do ours: one fixed record, id 1.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { type AppDeps, type Api, recordId, type Resource } from '../../http/api.ts';
import { notFound } from '../../http/errors.ts';
import { linker, listUrl } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';

const NAME = 'content-type';
const tags = [NAME];

/** The content types, by id: what a campaign's object_id names. */
export const CONTENT_TYPES = [{ id: 1, name: 'survey template', app_label: 'survey', model: 'survey_template' }] as const;

const ContentTypeRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  name: Type.String(),
  app_label: Type.String(),
  model: Type.String(),
  objects: Type.String({ format: 'uri', description: 'The list of the records object_id may name' }),
});

function present(request: FastifyRequest, type: (typeof CONTENT_TYPES)[number]) {
  const link = linker(request);
  return { ...type, url: link(NAME, type.id) as string, objects: listUrl(request, 'survey-template') };
}

function routes(api: Api, _deps: AppDeps) {
  api.get(`/${NAME}/`, { schema: { tags, response: { 200: envelopeOf(ContentTypeRecord) } } }, async (request) =>
    paginate(
      request,
      async () => CONTENT_TYPES.length,
      async (limit, offset) => CONTENT_TYPES.slice(offset, offset + limit),
      (type) => present(request, type),
    ),
  );

  api.get(`/${NAME}/:id/`, { schema: { tags, response: { 200: ContentTypeRecord } } }, async (request) => {
    const type = CONTENT_TYPES.find((t) => t.id === recordId(request));
    if (!type) throw notFound();
    return present(request, type);
  });
}

export const contentTypeResource: Resource = { name: NAME, routes };
