/**
 * /rest-api/accounts/ — accounts managed by admins without a shell (issue 11 §2), beside the
 * contract's read-only /rest-api/users/ (§3, §8: writes there stay 405). Admin only: 403 for
 * anyone else, before any lookup, as the contract's admin-only writes. The rules are those of
 * the CLI (users.service). No DELETE (405): a user owns campaigns, CDRs and payments that must
 * stay; an account is deactivated instead (`is_active: false`), which refuses its password and
 * tokens at once. Queues, which /rest-api/queue/ does not create (POST 405, contract §2), are
 * created for an account at /rest-api/accounts/<id>/queues/.
 */
import type { FastifyRequest } from 'fastify';
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import { forbidden, invalid, notFound } from '../../http/errors.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { recordUrl } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { presentQueue } from '../queue/queue.present.ts';
import { findQueue, insertQueue } from '../queue/queue.repository.ts';
import { QueueRecord } from '../queue/queue.schema.ts';
import { countUsers, findUser, listUsers } from '../../users/users.repository.ts';
import { AccountError, changeAccount, createUser, type UserInput } from '../users/users.service.ts';
import { presentAccount } from './accounts.present.ts';
import { releaseHeldSubscribers } from '../../campaign/contact-waits.ts';
import { AccountRecord, accountFields, accountQueueFields } from './accounts.schema.ts';

const tags = ['accounts'];

function adminOnly(request: FastifyRequest): void {
  if (!request.user.is_admin) throw forbidden();
}

/** A broken account rule is a 400 under the field it concerns. */
function asInvalid(err: unknown): never {
  if (err instanceof AccountError) throw invalid({ [err.field]: [err.message] });
  throw err;
}

function routes(api: Api, { database }: AppDeps) {
  const { db } = database;

  api.get('/accounts/', { schema: { tags, response: { 200: envelopeOf(AccountRecord) } } }, async (request) => {
    adminOnly(request);
    return paginate(
      request,
      () => countUsers(db),
      (limit, offset) => listUsers(db, undefined, limit, offset),
      (row) => presentAccount(request, row),
    );
  });

  api.get('/accounts/:id/', { schema: { tags, response: { 200: AccountRecord } } }, async (request) => {
    adminOnly(request);
    const row = await findUser(db, recordId(request));
    if (!row) throw notFound();
    return presentAccount(request, row);
  });

  api.post('/accounts/', { schema: { tags, body: bodySchema(accountFields), response: { 201: AccountRecord } } }, async (request, reply) => {
    adminOnly(request);
    const values = (await parseBody(accountFields, request.body, fieldContext(db, request))) as UserInput & { username: string; password: string };
    const row = await createUser(db, values).catch(asInvalid);
    return reply.code(201).header('location', recordUrl(request, 'accounts', row.id)).send(presentAccount(request, row));
  });

  // contract §2: update answers 202 with an empty body; PUT is a partial update too.
  api.route({
    method: ['PATCH', 'PUT'],
    url: '/accounts/:id/',
    schema: { tags, body: bodySchema(accountFields, { partial: true }) },
    handler: async (request, reply) => {
      adminOnly(request);
      const row = await findUser(db, recordId(request));
      if (!row) throw notFound();
      const values = (await parseBody(accountFields, request.body, fieldContext(db, request), { partial: true })) as UserInput;
      await changeAccount(db, row, values).catch(asInvalid);
      // New caps or hours: the subscribers they held are looked at again by the next claim.
      if (values.contact_caps !== undefined || values.calling_hours !== undefined) await releaseHeldSubscribers(db, new Date().toISOString(), row.id);
      return reply.code(202).send();
    },
  });

  api.post(
    '/accounts/:id/queues/',
    { schema: { tags, body: bodySchema(accountQueueFields), response: { 201: QueueRecord } } },
    async (request, reply) => {
      adminOnly(request);
      const owner = await findUser(db, recordId(request));
      if (!owner) throw notFound();
      const values = await parseBody(accountQueueFields, request.body, fieldContext(db, request));
      // Every field is non-nullable, so parseBody never returns null for them.
      const queue = await insertQueue(db, { ...(values as Omit<Parameters<typeof insertQueue>[1], 'user_id'>), user_id: owner.id });
      const row = await findQueue(db, request.user, queue.id);
      return reply.code(201).header('location', recordUrl(request, 'queue', queue.id)).send(presentQueue(request, row as NonNullable<typeof row>));
    },
  );
}

export const accountsResource: Resource = { name: 'accounts', routes };
