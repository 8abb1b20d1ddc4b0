/**
 * The routes the eight appointment resources share (issue 17, item 8): list (ascending id,
 * paged, with optional filters), detail, create (201 + Location), update (PATCH and PUT as a
 * partial update, 202 empty: contract §2) and delete (204), each owner-scoped (contract §3) by
 * the row's own `user_id`. Each resource declares its table, fields, record and two functions:
 * `columns` (request values → column values, with the owner a new row gets) and `present`.
 * They are plain CRUD records; what is particular to one lives in its own file.
 */
import type { TSchema } from '@sinclair/typebox';
import { and, asc, eq, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.ts';
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import { notFound } from '../../http/errors.ts';
import { bodySchema, type FieldContext, type Fields, type Parsed, parseBody } from '../../http/fields.ts';
import { recordUrl } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { allOf, ownedBy } from '../../http/scope.ts';

export type OwnedTable = PgTable & { id: PgColumn; user_id: PgColumn };
export type Row = Record<string, unknown> & { id: number; user_id: number };

/** What a create or an update writes: the columns, and on create the owner (default: the caller). */
export interface Columns {
  values: Record<string, unknown>;
  owner?: number;
}

export interface CrudSpec<F extends Fields> {
  /** The path segment, /rest-api/<name>/. */
  name: string;
  table: OwnedTable;
  fields: (deps: AppDeps) => F;
  record: TSchema;
  /** Request values → columns. `current` is the row being updated (undefined on create). */
  columns(ctx: FieldContext, values: Parsed<F>, current?: Row): Promise<Columns> | Columns;
  present(request: FastifyRequest, row: Row): unknown;
  /** List filters read from the query (`?event=3`). */
  filters?: (request: FastifyRequest) => (SQL | undefined)[];
  /** Which writes the resource offers (default all); a missing one answers 405. */
  writes?: { create?: boolean; update?: boolean; delete?: boolean };
  /** Set on every update (updated_date). */
  touch?: Record<string, unknown>;
}

/** The row `id` of `table` if the caller may see it. */
export async function findOwned(db: Db, table: OwnedTable, user: FieldContext['user'], id: number): Promise<Row | undefined> {
  const rows = await db.select().from(table as PgTable).where(and(eq(table.id, id), ownedBy(user, table.user_id)));
  return rows[0] as Row | undefined;
}

/** The resource of `spec`, ready for app.ts's list. */
export function crudResource<F extends Fields>(spec: CrudSpec<F>): Resource {
  const { name, table, record } = spec;
  const tags = [name];
  const writes = { create: true, update: true, delete: true, ...spec.writes };

  function routes(api: Api, deps: AppDeps) {
    const { db } = deps.database;
    const fields = spec.fields(deps);

    api.get(`/${name}/`, { schema: { tags, response: { 200: envelopeOf(record) } } }, async (request) => {
      const where = allOf(ownedBy(request.user, table.user_id), ...(spec.filters?.(request) ?? []));
      return paginate(
        request,
        () => db.$count(table, where),
        async (limit, offset) => (await db.select().from(table as PgTable).where(where).orderBy(asc(table.id)).limit(limit).offset(offset)) as Row[],
        (row) => spec.present(request, row),
      );
    });

    api.get(`/${name}/:id/`, { schema: { tags, response: { 200: record } } }, async (request) => {
      const row = await findOwned(db, table, request.user, recordId(request));
      if (!row) throw notFound();
      return spec.present(request, row);
    });

    if (writes.create) {
      api.post(`/${name}/`, { schema: { tags, body: bodySchema(fields), response: { 201: record } } }, async (request, reply) => {
        const ctx = fieldContext(db, request);
        const values = await parseBody(fields, request.body, ctx);
        const { values: columns, owner } = await spec.columns(ctx, values);
        const [row] = (await db
          .insert(table)
          .values({ ...columns, user_id: owner ?? request.user.id } as never)
          .returning()) as Row[];
        return reply.code(201).header('location', recordUrl(request, name, row.id)).send(spec.present(request, row));
      });
    }

    if (writes.update) {
      // contract §2: update answers 202 with an empty body; PUT is a partial update too.
      api.route({
        method: ['PATCH', 'PUT'],
        url: `/${name}/:id/`,
        schema: { tags, body: bodySchema(fields, { partial: true }) },
        handler: async (request, reply) => {
          const id = recordId(request);
          const current = await findOwned(db, table, request.user, id);
          if (!current) throw notFound();
          const ctx = fieldContext(db, request);
          const values = await parseBody(fields, request.body, ctx, { partial: true });
          const { values: columns, owner } = await spec.columns(ctx, values, current);
          const set = Object.fromEntries(Object.entries({ ...columns, ...spec.touch }).filter(([, v]) => v !== undefined));
          if (owner !== undefined) set.user_id = owner;
          if (Object.keys(set).length) await db.update(table).set(set as never).where(eq(table.id, id));
          return reply.code(202).send();
        },
      });
    }

    if (writes.delete) {
      api.delete(`/${name}/:id/`, { schema: { tags } }, async (request, reply) => {
        const id = recordId(request);
        if (!(await findOwned(db, table, request.user, id))) throw notFound();
        await db.delete(table).where(eq(table.id, id));
        return reply.code(204).send();
      });
    }
  }

  return { name, routes };
}
