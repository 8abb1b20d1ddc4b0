/**
 * /rest-api/sms-template/ — Newfies' SMS templates (issue 17). Newfies serves them read-only
 * (templates are made in its admin); we have no admin pages for them, so owners create, update
 * and delete them here with the common rules (contract §2, §3).
 */
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import { invalid, notFound } from '../../http/errors.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { recordUrl } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { presentSmsTemplate } from './sms-template.present.ts';
import {
  countSmsTemplates,
  deleteSmsTemplate,
  findSmsTemplate,
  insertSmsTemplate,
  listSmsTemplates,
  smsTemplateKeyTaken,
  updateSmsTemplate,
  visibleSmsTemplates,
} from './sms-template.repository.ts';
import { SmsTemplateRecord, smsTemplateFields } from './sms-template.schema.ts';

const NAME = 'sms-template';
const tags = [NAME];
const KEY_TAKEN = { template_key: ['sms template with this template key already exists.'] };

function routes(api: Api, { database }: AppDeps) {
  const { db } = database;

  api.get(`/${NAME}/`, { schema: { tags, response: { 200: envelopeOf(SmsTemplateRecord) } } }, async (request) => {
    const where = visibleSmsTemplates(request.user);
    return paginate(
      request,
      () => countSmsTemplates(db, where),
      (limit, offset) => listSmsTemplates(db, where, limit, offset),
      (row) => presentSmsTemplate(request, row),
    );
  });

  api.get(`/${NAME}/:id/`, { schema: { tags, response: { 200: SmsTemplateRecord } } }, async (request) => {
    const row = await findSmsTemplate(db, request.user, recordId(request));
    if (!row) throw notFound();
    return presentSmsTemplate(request, row);
  });

  api.post(
    `/${NAME}/`,
    { schema: { tags, body: bodySchema(smsTemplateFields), response: { 201: SmsTemplateRecord } } },
    async (request, reply) => {
      const values = await parseBody(smsTemplateFields, request.body, fieldContext(db, request));
      const userId = values.user ?? request.user.id;
      if (await smsTemplateKeyTaken(db, userId, values.template_key as string)) throw invalid(KEY_TAKEN);
      const row = await insertSmsTemplate(db, {
        user_id: userId,
        label: values.label as string,
        template_key: values.template_key as string,
        sender_phonenumber: values.sender_phonenumber ?? '',
        sms_text: values.sms_text as string,
      });
      return reply.code(201).header('location', recordUrl(request, NAME, row.id)).send(presentSmsTemplate(request, row));
    },
  );

  // contract §2: update answers 202 with an empty body; PUT is a partial update too.
  api.route({
    method: ['PATCH', 'PUT'],
    url: `/${NAME}/:id/`,
    schema: { tags, body: bodySchema(smsTemplateFields, { partial: true }) },
    handler: async (request, reply) => {
      const current = await findSmsTemplate(db, request.user, recordId(request));
      if (!current) throw notFound();
      const values = await parseBody(smsTemplateFields, request.body, fieldContext(db, request), { partial: true });
      const userId = values.user ?? current.user_id;
      const key = values.template_key ?? current.template_key;
      if (await smsTemplateKeyTaken(db, userId, key, current.id)) throw invalid(KEY_TAKEN);
      await updateSmsTemplate(db, current.id, {
        user_id: values.user ?? undefined,
        label: values.label ?? undefined,
        template_key: values.template_key ?? undefined,
        sender_phonenumber: values.sender_phonenumber ?? undefined,
        sms_text: values.sms_text ?? undefined,
      });
      return reply.code(202).send();
    },
  });

  api.delete(`/${NAME}/:id/`, { schema: { tags } }, async (request, reply) => {
    const id = recordId(request);
    if (!(await findSmsTemplate(db, request.user, id))) throw notFound();
    await deleteSmsTemplate(db, id);
    return reply.code(204).send();
  });
}

export const smsTemplateResource: Resource = { name: NAME, routes };
