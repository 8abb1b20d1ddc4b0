/**
 * /rest-api/queue/ — call-center queues that a section of type 12 hands calls to. Read and
 * update only: the API document says queues cannot be created through the API, so POST is
 * not offered (405, contract §2) and neither is DELETE, as for a DRF read/update view. Queues
 * are created by `campaign-dialer queue create`, or by an admin at /rest-api/accounts/<id>/queues/.
 */
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import { notFound } from '../../http/errors.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { presentQueue } from './queue.present.ts';
import { countQueues, findQueue, listQueues, updateQueue, visibleQueues } from './queue.repository.ts';
import { QueueRecord, queueFields } from './queue.schema.ts';

const tags = ['queue'];

function routes(api: Api, { database }: AppDeps) {
  const { db } = database;

  api.get('/queue/', { schema: { tags, response: { 200: envelopeOf(QueueRecord) } } }, async (request) => {
    const where = visibleQueues(request.user);
    return paginate(
      request,
      () => countQueues(db, where),
      (limit, offset) => listQueues(db, where, limit, offset),
      (row) => presentQueue(request, row),
    );
  });

  api.get('/queue/:id/', { schema: { tags, response: { 200: QueueRecord } } }, async (request) => {
    const row = await findQueue(db, request.user, recordId(request));
    if (!row) throw notFound();
    return presentQueue(request, row);
  });

  // contract §2: PUT on a queue is a partial update like PATCH; both answer 202, empty.
  api.route({
    method: ['PATCH', 'PUT'],
    url: '/queue/:id/',
    schema: { tags, body: bodySchema(queueFields, { partial: true }) },
    handler: async (request, reply) => {
      const id = recordId(request);
      if (!(await findQueue(db, request.user, id))) throw notFound();
      const { user, ...values } = await parseBody(queueFields, request.body, fieldContext(db, request), { partial: true });
      // Every field but `user` is non-nullable, so parseBody never returns null for them.
      const changes = values as Parameters<typeof updateQueue>[2];
      await updateQueue(db, id, { ...changes, user_id: user ?? undefined });
      return reply.code(202).send();
    },
  });
}

export const queueResource: Resource = { name: 'queue', routes };
