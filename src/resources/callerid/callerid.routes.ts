/** /rest-api/callerid/ — the numbers of a caller id group; visible through their group (contract §3). */
import type { FastifyRequest } from 'fastify';
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import { notFound } from '../../http/errors.ts';
import { queryInteger, queryText } from '../../http/filters.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { recordUrl } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { phoneDigits } from '../../http/phone.ts';
import { usageDay } from '../../campaign/callerid-usage.ts';
import { presentCallerid } from './callerid.present.ts';
import {
  type CalleridFilter,
  calleridFilter,
  countCallerids,
  deleteCallerid,
  findCallerid,
  insertCallerid,
  listCallerids,
  updateCallerid,
} from './callerid.repository.ts';
import { CalleridRecord, calleridFields, normalizeAreacode } from './callerid.schema.ts';

const tags = ['callerid'];

/**
 * The list filters (API §4): callerid_group_id, areacode, callerid_num, in any combination; an
 * empty value is no filter. Numbers compare by digits, so `%2B1203…`, `1203…` and a `+` that
 * arrived unencoded (read as a space) find the same caller id.
 */
function readFilter(request: FastifyRequest): CalleridFilter {
  const filter: CalleridFilter = {};
  const group = queryInteger(request, 'callerid_group_id');
  if (group !== undefined) filter.callerid_group_id = group;
  const areacode = queryText(request, 'areacode');
  if (areacode !== undefined) filter.areacode = normalizeAreacode(areacode) ?? areacode;
  const num = queryText(request, 'callerid_num');
  if (num !== undefined) filter.callerid_digits = phoneDigits(num);
  return filter;
}

function routes(api: Api, { database, config }: AppDeps) {
  // The use counters count TIME_ZONE's day (campaign/callerid-usage.ts), as the engine does.
  const today = () => usageDay(new Date(), config.timeZone);
  const { db } = database;

  api.get('/callerid/', { schema: { tags, response: { 200: envelopeOf(CalleridRecord) } } }, async (request) => {
    const where = calleridFilter(db, request.user, readFilter(request));
    return paginate(
      request,
      () => countCallerids(db, where),
      (limit, offset) => listCallerids(db, where, limit, offset),
      (row) => presentCallerid(request, row, today()),
    );
  });

  api.get('/callerid/:id/', { schema: { tags, response: { 200: CalleridRecord } } }, async (request) => {
    const row = await findCallerid(db, request.user, recordId(request));
    if (!row) throw notFound();
    return presentCallerid(request, row, today());
  });

  api.post(
    '/callerid/',
    { schema: { tags, body: bodySchema(calleridFields), response: { 201: CalleridRecord } } },
    async (request, reply) => {
      const values = await parseBody(calleridFields, request.body, fieldContext(db, request));
      const row = await insertCallerid(db, {
        areacode: values.areacode ?? '',
        callerid_num: values.callerid_num as string,
        callerid_name: values.callerid_name ?? '',
        callerid_group_id: values.callerid_group as number,
      });
      return reply.code(201).header('location', recordUrl(request, 'callerid', row.id)).send(presentCallerid(request, row, today()));
    },
  );

  // contract §2: update answers 202 with an empty body; PUT is a partial update too.
  api.route({
    method: ['PATCH', 'PUT'],
    url: '/callerid/:id/',
    schema: { tags, body: bodySchema(calleridFields, { partial: true }) },
    handler: async (request, reply) => {
      const id = recordId(request);
      if (!(await findCallerid(db, request.user, id))) throw notFound();
      const values = await parseBody(calleridFields, request.body, fieldContext(db, request), { partial: true });
      await updateCallerid(db, id, {
        areacode: values.areacode,
        callerid_num: values.callerid_num ?? undefined,
        callerid_name: values.callerid_name ?? undefined,
        callerid_group_id: values.callerid_group ?? undefined,
      });
      return reply.code(202).send();
    },
  });

  api.delete('/callerid/:id/', { schema: { tags } }, async (request, reply) => {
    const id = recordId(request);
    if (!(await findCallerid(db, request.user, id))) throw notFound();
    await deleteCallerid(db, id);
    return reply.code(204).send();
  });
}

export const calleridResource: Resource = { name: 'callerid', routes };
