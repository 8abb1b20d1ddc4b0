/**
 * /rest-api/campaigns/ (voice) and /rest-api/sms-campaigns/ — campaigns and their life
 * (contract §2, §5), one set of routes registered for each kind: they parse, call the service
 * and answer; what differs by kind is its resource (voice.ts, sms.ts).
 */
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import { notFound } from '../../http/errors.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { recordUrl } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import type { AnyCampaignRow } from '../../campaign/kinds.ts';
import { CampaignStatus } from '../../db/schema.ts';
import { presentCampaigns } from './present.ts';
import { countCampaigns, findCampaign, listCampaigns, visibleCampaigns } from './repository.ts';
import type { CampaignResource } from './resource-kind.ts';
import { recycleRoutes } from './recycle.routes.ts';
import { surveyResultsRoutes } from './results.routes.ts';
import { createCampaign, deleteCampaign, updateCampaign } from './service.ts';
import { smsCampaignResource } from './sms.ts';
import { voiceCampaignResource } from './voice.ts';

/** The routes of one kind's resource. */
function routesOf(resource: CampaignResource) {
  const { kind, path, record } = resource;
  const tags = [path];
  return (api: Api, { database, config, engine }: AppDeps) => {
    const { db } = database;
    const { timeZone } = config;
    const fields = resource.fields(timeZone);
    const present = (request: Parameters<typeof presentCampaigns>[0], rows: AnyCampaignRow[]) =>
      presentCampaigns(request, db, resource, rows, { timeZone });
    /** A START wakes the engine, once the transaction that started it is committed. */
    const wakeIfRunning = (row: AnyCampaignRow) => {
      if (row.status === CampaignStatus.Start) engine?.wake();
    };

    api.get(`/${path}/`, { schema: { tags, response: { 200: envelopeOf(record) } } }, async (request) => {
      const where = visibleCampaigns(kind, request.user);
      const page = await paginate(
        request,
        () => countCampaigns(db, kind, where),
        (limit, offset) => listCampaigns(db, kind, where, limit, offset),
        (row) => row,
      );
      return { ...page, results: await present(request, page.results) };
    });

    api.get(`/${path}/:id/`, { schema: { tags, response: { 200: record } } }, async (request) => {
      const row = await findCampaign(db, kind, request.user, recordId(request));
      if (!row) throw notFound();
      return (await present(request, [row]))[0];
    });

    api.post(`/${path}/`, { schema: { tags, body: bodySchema(fields), response: { 201: record } } }, async (request, reply) => {
      const values = await parseBody(fields, request.body, fieldContext(db, request));
      const row = await db.transaction((tx) => createCampaign(tx, resource, { values, caller: request.user, timeZone }));
      wakeIfRunning(row);
      const [json] = await present(request, [row]);
      return reply.code(201).header('location', recordUrl(request, path, row.id)).send(json);
    });

    // contract §2: update answers 202 with an empty body; PUT is a partial update too.
    api.route({
      method: ['PATCH', 'PUT'],
      url: `/${path}/:id/`,
      schema: { tags, body: bodySchema(fields, { partial: true }) },
      handler: async (request, reply) => {
        const id = recordId(request);
        if (!(await findCampaign(db, kind, request.user, id))) throw notFound();
        const values = await parseBody(fields, request.body, fieldContext(db, request), { partial: true });
        const row = await db.transaction((tx) => updateCampaign(tx, resource, { id, values, caller: request.user, timeZone }));
        wakeIfRunning(row);
        return reply.code(202).send();
      },
    });

    // contract §2: a voice campaign's delete answers 204, an SMS campaign's 200 {"data": …}; 409 while it runs.
    api.delete(`/${path}/:id/`, { schema: { tags } }, async (request, reply) => {
      await deleteCampaign(db, resource, { id: recordId(request), caller: request.user });
      return reply.code(resource.deleted.code).send(resource.deleted.body);
    });
  };
}

const voiceRoutes = routesOf(voiceCampaignResource);
const smsRoutes = routesOf(smsCampaignResource);
/** Both kinds have recycling (recycle.routes.ts); voice campaigns also have survey results (results.routes.ts). */
export const campaignsResource: Resource = {
  name: 'campaigns',
  routes: (api, deps) => {
    voiceRoutes(api, deps);
    surveyResultsRoutes(api, deps);
    recycleRoutes('voice')(api, deps);
  },
};
export const smsCampaignsResource: Resource = {
  name: 'sms-campaigns',
  routes: (api, deps) => {
    smsRoutes(api, deps);
    recycleRoutes('sms')(api, deps);
  },
};
