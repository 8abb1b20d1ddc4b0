/**
 * /rest-api/gateway/ — the carriers that campaigns dial through (contract §3, §7). Admins create,
 * change and delete them and see their configuration; any user reads their url and name and
 * may use any of them (contract §8).
 */
import type { FastifyRequest } from 'fastify';
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import { conflict, forbidden, notFound } from '../../http/errors.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { recordUrl } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { presentGateway } from './gateway.present.ts';
import { campaignsUsing, countGateways, deleteGateway, findGateway, listGateways } from './gateway.repository.ts';
import { GatewayRecord, gatewayFields } from './gateway.schema.ts';
import { changeGateway, createGateway } from './gateway.service.ts';

const tags = ['gateway'];

/** Contract §3: gateways are written by admins only (403 for anyone else, before any lookup). */
function adminOnly(request: FastifyRequest): void {
  if (!request.user.is_admin) throw forbidden();
}

function routes(api: Api, { database }: AppDeps) {
  const { db } = database;

  api.get('/gateway/', { schema: { tags, response: { 200: envelopeOf(GatewayRecord) } } }, async (request) =>
    paginate(
      request,
      () => countGateways(db),
      (limit, offset) => listGateways(db, limit, offset),
      (row) => presentGateway(request, row),
    ),
  );

  api.get('/gateway/:id/', { schema: { tags, response: { 200: GatewayRecord } } }, async (request) => {
    const row = await findGateway(db, recordId(request));
    if (!row) throw notFound();
    return presentGateway(request, row);
  });

  api.post(
    '/gateway/',
    { schema: { tags, body: bodySchema(gatewayFields), response: { 201: GatewayRecord } } },
    async (request, reply) => {
      adminOnly(request);
      const values = await parseBody(gatewayFields, request.body, fieldContext(db, request));
      const row = await createGateway(db, values);
      return reply.code(201).header('location', recordUrl(request, 'gateway', row.id)).send(presentGateway(request, row));
    },
  );

  // contract §2: update answers 202 with an empty body; PUT is a partial update too.
  api.route({
    method: ['PATCH', 'PUT'],
    url: '/gateway/:id/',
    schema: { tags, body: bodySchema(gatewayFields, { partial: true }) },
    handler: async (request, reply) => {
      adminOnly(request);
      const row = await findGateway(db, recordId(request));
      if (!row) throw notFound();
      const values = await parseBody(gatewayFields, request.body, fieldContext(db, request), { partial: true });
      await changeGateway(db, row, values);
      return reply.code(202).send();
    },
  });

  api.delete('/gateway/:id/', { schema: { tags } }, async (request, reply) => {
    adminOnly(request);
    const id = recordId(request);
    if (!(await findGateway(db, id))) throw notFound();
    await db.transaction(async (tx) => {
      const use = await campaignsUsing(tx, id);
      if (use.running) throw conflict('This gateway is used by a running campaign; pause or end the campaign first.');
      // The campaigns' aleg_gateway is required, so a gateway they name stays (set it inactive).
      if (use.any) throw conflict('This gateway is used by campaigns; set it inactive (status 0) instead.');
      await deleteGateway(tx, id);
    });
    return reply.code(204).send();
  });
}

export const gatewayResource: Resource = { name: 'gateway', routes };
