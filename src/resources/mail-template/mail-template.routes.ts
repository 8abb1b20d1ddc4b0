/**
 * /rest-api/mail-template/ — Newfies' mail templates (issue 17). Newfies serves them read-only
 * (templates are made in its admin); we have no admin pages for them, so owners create, update
 * and delete them here with the common rules (contract §2, §3).
 */
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import { invalid, notFound } from '../../http/errors.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { recordUrl } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { presentMailTemplate } from './mail-template.present.ts';
import {
  countMailTemplates,
  deleteMailTemplate,
  findMailTemplate,
  insertMailTemplate,
  listMailTemplates,
  mailTemplateKeyTaken,
  updateMailTemplate,
  visibleMailTemplates,
} from './mail-template.repository.ts';
import { MailTemplateRecord, mailTemplateFields } from './mail-template.schema.ts';

const NAME = 'mail-template';
const tags = [NAME];
const KEY_TAKEN = { template_key: ['mail template with this template key already exists.'] };

function routes(api: Api, { database }: AppDeps) {
  const { db } = database;

  api.get(`/${NAME}/`, { schema: { tags, response: { 200: envelopeOf(MailTemplateRecord) } } }, async (request) => {
    const where = visibleMailTemplates(request.user);
    return paginate(
      request,
      () => countMailTemplates(db, where),
      (limit, offset) => listMailTemplates(db, where, limit, offset),
      (row) => presentMailTemplate(request, row),
    );
  });

  api.get(`/${NAME}/:id/`, { schema: { tags, response: { 200: MailTemplateRecord } } }, async (request) => {
    const row = await findMailTemplate(db, request.user, recordId(request));
    if (!row) throw notFound();
    return presentMailTemplate(request, row);
  });

  api.post(
    `/${NAME}/`,
    { schema: { tags, body: bodySchema(mailTemplateFields), response: { 201: MailTemplateRecord } } },
    async (request, reply) => {
      const values = await parseBody(mailTemplateFields, request.body, fieldContext(db, request));
      const userId = values.user ?? request.user.id;
      if (await mailTemplateKeyTaken(db, userId, values.template_key as string)) throw invalid(KEY_TAKEN);
      const row = await insertMailTemplate(db, {
        user_id: userId,
        label: values.label as string,
        template_key: values.template_key as string,
        from_email: values.from_email ?? '',
        from_name: values.from_name ?? '',
        subject: values.subject ?? '',
        message_plaintext: values.message_plaintext ?? '',
        message_html: values.message_html ?? '',
      });
      return reply.code(201).header('location', recordUrl(request, NAME, row.id)).send(presentMailTemplate(request, row));
    },
  );

  // contract §2: update answers 202 with an empty body; PUT is a partial update too.
  api.route({
    method: ['PATCH', 'PUT'],
    url: `/${NAME}/:id/`,
    schema: { tags, body: bodySchema(mailTemplateFields, { partial: true }) },
    handler: async (request, reply) => {
      const current = await findMailTemplate(db, request.user, recordId(request));
      if (!current) throw notFound();
      const values = await parseBody(mailTemplateFields, request.body, fieldContext(db, request), { partial: true });
      const userId = values.user ?? current.user_id;
      const key = values.template_key ?? current.template_key;
      if (await mailTemplateKeyTaken(db, userId, key, current.id)) throw invalid(KEY_TAKEN);
      await updateMailTemplate(db, current.id, {
        user_id: values.user ?? undefined,
        label: values.label ?? undefined,
        template_key: values.template_key ?? undefined,
        from_email: values.from_email ?? undefined,
        from_name: values.from_name ?? undefined,
        subject: values.subject ?? undefined,
        message_plaintext: values.message_plaintext ?? undefined,
        message_html: values.message_html ?? undefined,
      });
      return reply.code(202).send();
    },
  });

  api.delete(`/${NAME}/:id/`, { schema: { tags } }, async (request, reply) => {
    const id = recordId(request);
    if (!(await findMailTemplate(db, request.user, id))) throw notFound();
    await deleteMailTemplate(db, id);
    return reply.code(204).send();
  });
}

export const mailTemplateResource: Resource = { name: NAME, routes };
