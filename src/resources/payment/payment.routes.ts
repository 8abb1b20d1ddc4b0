/** /rest-api/payment/ — admin only (contract §3): 403 for anyone else. */
import type { FastifyRequest } from 'fastify';
import { type AppDeps, type Api, fieldContext, type Resource } from '../../http/api.ts';
import { forbidden } from '../../http/errors.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { presentPayment } from './payment.present.ts';
import { countPayments, listPayments } from './payment.repository.ts';
import { PaymentRecord, paymentFields } from './payment.schema.ts';
import { recordPayment } from './payment.service.ts';

function adminOnly(request: FastifyRequest): void {
  if (!request.user.is_admin) throw forbidden();
}

function routes(api: Api, { database }: AppDeps) {
  const { db } = database;

  api.get('/payment/', { schema: { tags: ['payment'], response: { 200: envelopeOf(PaymentRecord) } } }, async (request) => {
    adminOnly(request);
    return paginate(
      request,
      () => countPayments(db),
      (limit, offset) => listPayments(db, undefined, limit, offset),
      (row) => presentPayment(request, row),
    );
  });

  api.post(
    '/payment/',
    { schema: { tags: ['payment'], body: bodySchema(paymentFields), response: { 201: PaymentRecord } } },
    async (request, reply) => {
      adminOnly(request);
      const values = await parseBody(paymentFields, request.body, fieldContext(db, request));
      const payment = await recordPayment(db, {
        user_id: values.user as number,
        amount: values.amount as string,
        description: values.description ?? '',
      });
      // A payment has no detail route, so no Location (contract §8).
      return reply.code(201).send(presentPayment(request, payment));
    },
  );
}

export const paymentResource: Resource = { name: 'payment', routes };
