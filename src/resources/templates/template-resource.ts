/**
 * Newfies' templates (issue 17): /rest-api/sms-template/ and /rest-api/mail-template/, one
 * resource built twice from a kind (its table, request fields, record and text columns). Newfies
 * serves them read-only (templates are made in its admin); we have no admin pages for them, so
 * owners create, update and delete them here with the common rules (contract §2, §3). A
 * template's `template_key` is unique among its owner's templates of its kind.
 */
import type { TObject } from '@sinclair/typebox';
import { and, asc, eq, ne, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { mailTemplates, smsTemplates } from '../../db/schema.ts';
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import type { AuthUser } from '../../http/auth.ts';
import { invalid, notFound } from '../../http/errors.ts';
import { bodySchema, type Field, parseBody } from '../../http/fields.ts';
import { linker, recordUrl } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { isoTime } from '../../http/present.ts';
import { ownedBy } from '../../http/scope.ts';

/** Both tables have id, user_id, label, template_key and the dates; the rest is the kind's text columns. */
type Table = typeof smsTemplates | typeof mailTemplates;
type Row = { id: number; user_id: number; label: string; template_key: string; created_date: string; updated_date: string } & Record<string, unknown>;

export interface TemplateKind {
  /** The resource's path segment: sms-template, mail-template. */
  name: string;
  /** What a duplicate key's error calls it: "sms template". */
  noun: string;
  table: Table;
  fields: Record<string, Field<unknown>>;
  record: TObject;
  /** The columns after label and template_key, in the record's order ('' when not given). */
  text: string[];
}

/** The routes of one kind of template. */
export function templateResource(kind: TemplateKind): Resource {
  const { name, table, fields, record } = kind;
  // One table of the two; drizzle's types follow the first, the columns used are common to both.
  const t = table as typeof smsTemplates;
  const tags = [name];
  const keyTaken = { template_key: [`${kind.noun} with this template key already exists.`] };
  const visible = (user: AuthUser): SQL | undefined => ownedBy(user, t.user_id);
  const find = async (db: Db, user: AuthUser, id: number) =>
    (await db.select().from(t).where(and(eq(t.id, id), visible(user))))[0] as Row | undefined;
  /** Whether the owner has another template of this kind with `key` (`except`: the one being updated). */
  const taken = async (db: Db, userId: number, key: string, except = 0) =>
    (await db.$count(t, and(eq(t.user_id, userId), eq(t.template_key, key), ne(t.id, except)))) > 0;
  const textOf = (values: Record<string, unknown>, absent: '' | undefined) =>
    Object.fromEntries(kind.text.map((column) => [column, values[column] ?? absent]));

  const present = (request: Parameters<typeof linker>[0], row: Row) => {
    const link = linker(request);
    return {
      id: row.id,
      url: link(name, row.id) as string,
      label: row.label,
      template_key: row.template_key,
      ...Object.fromEntries(kind.text.map((column) => [column, row[column]])),
      user: link('users', row.user_id) as string,
      created_date: isoTime(row.created_date) as string,
      updated_date: isoTime(row.updated_date) as string,
    };
  };

  function routes(api: Api, { database }: AppDeps) {
    const { db } = database;

    api.get(`/${name}/`, { schema: { tags, response: { 200: envelopeOf(record) } } }, async (request) => {
      const where = visible(request.user);
      return paginate(
        request,
        () => db.$count(t, where),
        async (limit, offset) => (await db.select().from(t).where(where).orderBy(asc(t.id)).limit(limit).offset(offset)) as Row[],
        (row) => present(request, row),
      );
    });

    api.get(`/${name}/:id/`, { schema: { tags, response: { 200: record } } }, async (request) => {
      const row = await find(db, request.user, recordId(request));
      if (!row) throw notFound();
      return present(request, row);
    });

    api.post(`/${name}/`, { schema: { tags, body: bodySchema(fields), response: { 201: record } } }, async (request, reply) => {
      const values = (await parseBody(fields, request.body, fieldContext(db, request))) as Record<string, unknown>;
      const userId = (values.user as number | null) ?? request.user.id;
      if (await taken(db, userId, values.template_key as string)) throw invalid(keyTaken);
      const inserted = { user_id: userId, label: values.label, template_key: values.template_key, ...textOf(values, '') };
      const [row] = (await db.insert(t).values(inserted as typeof smsTemplates.$inferInsert).returning()) as Row[];
      return reply.code(201).header('location', recordUrl(request, name, row.id)).send(present(request, row));
    });

    // contract §2: update answers 202 with an empty body; PUT is a partial update too.
    api.route({
      method: ['PATCH', 'PUT'],
      url: `/${name}/:id/`,
      schema: { tags, body: bodySchema(fields, { partial: true }) },
      handler: async (request, reply) => {
        const current = await find(db, request.user, recordId(request));
        if (!current) throw notFound();
        const values = (await parseBody(fields, request.body, fieldContext(db, request), { partial: true })) as Record<string, unknown>;
        const userId = (values.user as number | null) ?? current.user_id;
        const key = (values.template_key as string | null) ?? current.template_key;
        if (await taken(db, userId, key, current.id)) throw invalid(keyTaken);
        const changed = { user_id: values.user ?? undefined, label: values.label ?? undefined, template_key: values.template_key ?? undefined, ...textOf(values, undefined) };
        await db
          .update(t)
          .set({ ...(changed as Partial<typeof smsTemplates.$inferInsert>), updated_date: sql`now()` })
          .where(eq(t.id, current.id));
        return reply.code(202).send();
      },
    });

    // Campaigns and alarms that named it keep no template (on delete set null).
    api.delete(`/${name}/:id/`, { schema: { tags } }, async (request, reply) => {
      const id = recordId(request);
      if (!(await find(db, request.user, id))) throw notFound();
      await db.delete(t).where(eq(t.id, id));
      return reply.code(204).send();
    });
  }

  return { name, routes };
}
