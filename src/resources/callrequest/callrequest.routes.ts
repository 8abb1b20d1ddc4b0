/** /rest-api/callrequest/ — the calls the engine placed (read-only), and each call's survey answers. */
import { integerFilters } from '../../http/filters.ts';
import { and, type SQL } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.ts';
import { callrequests } from '../../db/schema.ts';
import { type AppDeps, type Api, recordId, type Resource } from '../../http/api.ts';
import { notFound } from '../../http/errors.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { presentCallRequest, presentCallResult } from './callrequest.present.ts';
import {
  countCallRequests,
  countCallResults,
  findCallRequest,
  listCallRequests,
  listCallResults,
  visibleCallRequests,
} from './callrequest.repository.ts';
import { CallRequestRecord, CallResultRecord } from './callrequest.schema.ts';
import { recordingRoutes } from './recordings.routes.ts';

const tags = ['callrequest'];

/** The list filters `campaign_id` and `status`. */
function filters(db: Db, request: FastifyRequest): SQL | undefined {
  const byValue = integerFilters(request, { campaign_id: callrequests.campaign_id, status: callrequests.status });
  return and(visibleCallRequests(db, request.user), ...byValue);
}

function routes(api: Api, deps: AppDeps) {
  const { db } = deps.database;
  recordingRoutes(api, deps);

  api.get('/callrequest/', { schema: { tags, response: { 200: envelopeOf(CallRequestRecord) } } }, async (request) => {
    const where = filters(db, request);
    return paginate(
      request,
      () => countCallRequests(db, where),
      (limit, offset) => listCallRequests(db, where, limit, offset),
      (row) => presentCallRequest(request, row),
    );
  });

  api.get('/callrequest/:id/', { schema: { tags, response: { 200: CallRequestRecord } } }, async (request) => {
    const row = await findCallRequest(db, request.user, recordId(request));
    if (!row) throw notFound();
    return presentCallRequest(request, row);
  });

  api.get('/callrequest/:id/results/', { schema: { tags, response: { 200: envelopeOf(CallResultRecord) } } }, async (request) => {
    const row = await findCallRequest(db, request.user, recordId(request));
    if (!row) throw notFound();
    return paginate(
      request,
      () => countCallResults(db, row.id),
      (limit, offset) => listCallResults(db, row.id, limit, offset),
      (result) => presentCallResult(request, result),
    );
  });
}

export const callrequestResource: Resource = { name: 'callrequest', routes };
