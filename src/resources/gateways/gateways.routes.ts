/**
 * /rest-api/<kind>/ — a gateway kind's records (contract §3, §7). Admins create, change and
 * delete them and see their configuration (secrets masked); any user reads their url and name
 * and may use any of them (contract §8).
 */
import type { FastifyRequest } from 'fastify';
import { type AppDeps, type Api, fieldContext, recordId } from '../../http/api.ts';
import { conflict, forbidden, notFound } from '../../http/errors.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { recordUrl } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { isoTime } from '../../http/present.ts';
import { GatewayStatus } from '../../db/schema.ts';
import type { GatewayKind, GatewayTable, RowOf } from './gateway-kind.ts';
import { campaignsUsing, countRows, deleteRow, findRow, listRows } from './gateways.repository.ts';
import type { CommonGatewayFields } from './gateways.schema.ts';
import { maskSecrets } from './gateways.secrets.ts';
import { changeGateway, createGateway } from './gateways.service.ts';

type Kind<T extends GatewayTable> = GatewayKind<T, CommonGatewayFields>;

/** Contract §3: gateways are written by admins only (403 for anyone else, before any lookup). */
function adminOnly(request: FastifyRequest): void {
  if (!request.user.is_admin) throw forbidden();
}

/** Contract §3: admins see the configuration (secrets masked); anyone else the url and name. */
export function presentGateway<T extends GatewayTable>(kind: Kind<T>, request: FastifyRequest, row: RowOf<T>): Record<string, unknown> {
  const head = { id: row.id, url: recordUrl(request, kind.resource, row.id), name: row.name };
  if (!request.user.is_admin) return head;
  const { config, derived } = kind.present(request, row);
  return {
    ...head,
    status: row.status,
    description: row.description,
    driver: row.driver,
    ...config,
    settings: maskSecrets(row.settings),
    ...derived,
    created_date: isoTime(row.created_date),
    updated_date: isoTime(row.updated_date),
  };
}

/** The list, read, create, update and delete routes of a gateway kind. */
export function gatewayRoutes<T extends GatewayTable>(kind: Kind<T>) {
  const { resource, table, fields, record, words } = kind;
  const tags = [resource];
  const present = (request: FastifyRequest) => (row: RowOf<T>) => presentGateway(kind, request, row);

  return function routes(api: Api, { database }: AppDeps): void {
    const { db } = database;

    api.get(`/${resource}/`, { schema: { tags, response: { 200: envelopeOf(record) } } }, async (request) =>
      paginate(
        request,
        () => countRows(table, db),
        (limit, offset) => listRows(table, db, limit, offset),
        present(request),
      ),
    );

    api.get(`/${resource}/:id/`, { schema: { tags, response: { 200: record } } }, async (request) => {
      const row = await findRow(table, db, recordId(request));
      if (!row) throw notFound();
      return present(request)(row);
    });

    api.post(`/${resource}/`, { schema: { tags, body: bodySchema(fields), response: { 201: record } } }, async (request, reply) => {
      adminOnly(request);
      const values = await parseBody(fields, request.body, fieldContext(db, request));
      const row = await createGateway(kind, db, values);
      return reply.code(201).header('location', recordUrl(request, resource, row.id)).send(present(request)(row));
    });

    // contract §2: update answers 202 with an empty body; PUT is a partial update too.
    api.route({
      method: ['PATCH', 'PUT'],
      url: `/${resource}/:id/`,
      schema: { tags, body: bodySchema(fields, { partial: true }) },
      handler: async (request, reply) => {
        adminOnly(request);
        const row = await findRow(table, db, recordId(request));
        if (!row) throw notFound();
        const values = await parseBody(fields, request.body, fieldContext(db, request), { partial: true });
        await changeGateway(kind, db, row, values);
        return reply.code(202).send();
      },
    });

    api.delete(`/${resource}/:id/`, { schema: { tags } }, async (request, reply) => {
      adminOnly(request);
      const id = recordId(request);
      if (!(await findRow(table, db, id))) throw notFound();
      await db.transaction(async (tx) => {
        const use = await campaignsUsing(kind, tx, id);
        if (use.running) throw conflict(`This ${words.noun} is used by a running ${words.campaign}; pause or end the campaign first.`);
        // A campaign's gateway link restricts the delete: a gateway they name stays (set it inactive).
        if (use.any) throw conflict(`This ${words.noun} is used by ${words.campaign}s; set it inactive (status ${GatewayStatus.Inactive}) instead.`);
        await deleteRow(table, tx, id);
      });
      return reply.code(204).send();
    });
  };
}
