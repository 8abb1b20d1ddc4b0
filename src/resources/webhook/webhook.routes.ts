/**
 * /rest-api/webhook/ — the caller's webhook endpoints (issue 14 §2), owner-scoped like every
 * resource: `POST` answers the record with its `secret` (the only time it is shown),
 * `POST …/<id>/rotate-secret/` makes a new one, `GET …/<id>/deliveries/` lists the deliveries
 * newest first and `POST …/<id>/deliveries/<delivery>/redeliver/` sends one again now.
 */
import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import { invalid, notFound } from '../../http/errors.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { recordUrl } from '../../http/links.ts';
import { outboundUrlProblem } from '../../http/outbound.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { presentDelivery, presentWebhook } from './webhook.present.ts';
import {
  countDeliveries,
  countWebhooks,
  deleteWebhook,
  findWebhook,
  insertWebhook,
  listDeliveries,
  listWebhooks,
  newSecret,
  redeliver,
  updateWebhook,
  visibleWebhooks,
} from './webhook.repository.ts';
import { CreatedWebhookRecord, DeliveryRecord, WebhookRecord, webhookFields } from './webhook.schema.ts';

const tags = ['webhook'];

function routes(api: Api, { database, config }: AppDeps) {
  const { db } = database;

  /** The endpoint URL, refused with a 400 when it may not be called (scheme, private address). */
  async function checkedUrl(url: string): Promise<string> {
    const problem = await outboundUrlProblem(url, config.webhookAllowPrivate);
    if (problem) throw invalid({ url: [problem] });
    return url;
  }

  const webhookOf = async (request: FastifyRequest) => {
    const row = await findWebhook(db, request.user, recordId(request));
    if (!row) throw notFound();
    return row;
  };

  api.get('/webhook/', { schema: { tags, response: { 200: envelopeOf(WebhookRecord) } } }, async (request) => {
    const where = visibleWebhooks(request.user);
    return paginate(
      request,
      () => countWebhooks(db, where),
      (limit, offset) => listWebhooks(db, where, limit, offset),
      (row) => presentWebhook(request, row),
    );
  });

  api.get('/webhook/:id/', { schema: { tags, response: { 200: WebhookRecord } } }, async (request) => presentWebhook(request, await webhookOf(request)));

  api.post('/webhook/', { schema: { tags, body: bodySchema(webhookFields), response: { 201: CreatedWebhookRecord } } }, async (request, reply) => {
    const values = await parseBody(webhookFields, request.body, fieldContext(db, request));
    const row = await insertWebhook(db, {
      user_id: values.user ?? request.user.id,
      url: await checkedUrl(values.url as string),
      events: values.events ?? [],
      description: values.description ?? '',
      active: values.active ?? true,
      ordered: values.ordered ?? true,
      batch_size: values.batch_size ?? 1,
      secret: newSecret(),
    });
    return reply
      .code(201)
      .header('location', recordUrl(request, 'webhook', row.id))
      .send({ ...presentWebhook(request, row), secret: row.secret });
  });

  // contract §2: an update answers 202 with an empty body. Reactivating clears the failure clock.
  api.route({
    method: ['PATCH', 'PUT'],
    url: '/webhook/:id/',
    schema: { tags, body: bodySchema(webhookFields, { partial: true }) },
    handler: async (request, reply) => {
      const row = await webhookOf(request);
      const values = await parseBody(webhookFields, request.body, fieldContext(db, request), { partial: true });
      await updateWebhook(db, row.id, {
        url: values.url ? await checkedUrl(values.url) : undefined,
        events: values.events ?? undefined,
        description: values.description ?? undefined,
        active: values.active ?? undefined,
        ordered: values.ordered ?? undefined,
        batch_size: values.batch_size ?? undefined,
        user_id: values.user ?? undefined,
        failing_since: values.active === true ? null : undefined,
      });
      return reply.code(202).send();
    },
  });

  api.delete('/webhook/:id/', { schema: { tags } }, async (request, reply) => {
    await deleteWebhook(db, (await webhookOf(request)).id);
    return reply.code(204).send();
  });

  api.post(
    '/webhook/:id/rotate-secret/',
    { schema: { tags, response: { 200: Type.Object({ secret: Type.String() }) } } },
    async (request) => {
      const row = await webhookOf(request);
      const secret = newSecret();
      await updateWebhook(db, row.id, { secret });
      return { secret };
    },
  );

  api.get('/webhook/:id/deliveries/', { schema: { tags, response: { 200: envelopeOf(DeliveryRecord) } } }, async (request) => {
    const row = await webhookOf(request);
    return paginate(
      request,
      () => countDeliveries(db, row.id),
      (limit, offset) => listDeliveries(db, row.id, limit, offset),
      presentDelivery,
    );
  });

  api.post('/webhook/:id/deliveries/:delivery/redeliver/', { schema: { tags } }, async (request, reply) => {
    const row = await webhookOf(request);
    const raw = (request.params as { delivery?: string }).delivery ?? '';
    if (!/^\d{1,18}$/.test(raw) || !(await redeliver(db, row.id, Number(raw)))) throw notFound();
    return reply.code(202).send();
  });
}

export const webhookResource: Resource = { name: 'webhook', routes };
