/** /rest-api/phonebook/ — a user's contact lists. */
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import { conflict, notFound } from '../../http/errors.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { recordUrl } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { isDialedByRunningCampaign } from '../../campaign/phonebook-links.ts';
import { presentPhonebook } from './phonebook.present.ts';
import {
  countPhonebooks,
  deletePhonebook,
  findPhonebook,
  insertPhonebook,
  listPhonebooks,
  updatePhonebook,
  visiblePhonebooks,
} from './phonebook.repository.ts';
import { PhonebookRecord, phonebookFields } from './phonebook.schema.ts';

const tags = ['phonebook'];

function routes(api: Api, { database }: AppDeps) {
  const { db } = database;

  api.get('/phonebook/', { schema: { tags, response: { 200: envelopeOf(PhonebookRecord) } } }, async (request) => {
    const where = visiblePhonebooks(request.user);
    return paginate(
      request,
      () => countPhonebooks(db, where),
      (limit, offset) => listPhonebooks(db, where, limit, offset),
      (row) => presentPhonebook(request, row),
    );
  });

  api.get('/phonebook/:id/', { schema: { tags, response: { 200: PhonebookRecord } } }, async (request) => {
    const row = await findPhonebook(db, request.user, recordId(request));
    if (!row) throw notFound();
    return presentPhonebook(request, row);
  });

  api.post(
    '/phonebook/',
    { schema: { tags, body: bodySchema(phonebookFields), response: { 201: PhonebookRecord } } },
    async (request, reply) => {
      const values = await parseBody(phonebookFields, request.body, fieldContext(db, request));
      const row = await insertPhonebook(db, {
        name: values.name as string,
        description: values.description ?? '',
        user_id: values.user ?? request.user.id,
      });
      return reply.code(201).header('location', recordUrl(request, 'phonebook', row.id)).send(presentPhonebook(request, row));
    },
  );

  // contract §2: a phonebook update answers 200 with an empty body (PUT too, as a partial update).
  api.route({
    method: ['PATCH', 'PUT'],
    url: '/phonebook/:id/',
    schema: { tags, body: bodySchema(phonebookFields, { partial: true }) },
    handler: async (request, reply) => {
      const id = recordId(request);
      if (!(await findPhonebook(db, request.user, id))) throw notFound();
      const values = await parseBody(phonebookFields, request.body, fieldContext(db, request), { partial: true });
      await updatePhonebook(db, id, {
        name: values.name ?? undefined,
        description: values.description ?? undefined,
        user_id: values.user ?? undefined,
      });
      return reply.code(200).send();
    },
  });

  api.delete('/phonebook/:id/', { schema: { tags } }, async (request, reply) => {
    const id = recordId(request);
    if (!(await findPhonebook(db, request.user, id))) throw notFound();
    // contract §2: deleting what a running campaign (voice or SMS) dials is a 409.
    await db.transaction(async (tx) => {
      if (await isDialedByRunningCampaign(tx, id)) {
        throw conflict('This phonebook is dialed by a running campaign; pause or end the campaign first.');
      }
      await deletePhonebook(tx, id);
    });
    return reply.code(204).send();
  });
}

export const phonebookResource: Resource = { name: 'phonebook', routes };
