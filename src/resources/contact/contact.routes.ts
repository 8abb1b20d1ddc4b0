/** /rest-api/contact/ — the numbers of a phonebook; visible through their phonebook (contract §3). */
import { queryInteger } from '../../http/filters.ts';
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import { notFound } from '../../http/errors.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { recordUrl } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { phoneKeyOf } from '../../campaign/phone-country.ts';
import { presentContact } from './contact.present.ts';
import {
  contactFilter,
  countContacts,
  deleteContact,
  findContact,
  insertContact,
  listContacts,
  updateContact,
} from './contact.repository.ts';
import { ContactRecord, contactFields } from './contact.schema.ts';

const tags = ['contact'];

/** An id filter of the query string: empty means no filter; not a number is 400, as django-filter says. */
function routes(api: Api, { database, engine, config }: AppDeps) {
  const { db } = database;

  api.get('/contact/', { schema: { tags, response: { 200: envelopeOf(ContactRecord) } } }, async (request) => {
    const where = contactFilter(db, request.user, queryInteger(request, 'phonebook_id'));
    return paginate(
      request,
      () => countContacts(db, where),
      (limit, offset) => listContacts(db, where, limit, offset),
      (row) => presentContact(request, row),
    );
  });

  api.get('/contact/:id/', { schema: { tags, response: { 200: ContactRecord } } }, async (request) => {
    const row = await findContact(db, request.user, recordId(request));
    if (!row) throw notFound();
    return presentContact(request, row);
  });

  api.post(
    '/contact/',
    { schema: { tags, body: bodySchema(contactFields), response: { 201: ContactRecord } } },
    async (request, reply) => {
      const values = await parseBody(contactFields, request.body, fieldContext(db, request));
      const [phonebookId, number] = [values.phonebook as number, values.contact as string];
      const row = await insertContact(db, {
        phonebook_id: phonebookId,
        contact: number,
        phone_key: await phoneKeyOf(db, 'phonebooks', phonebookId, number, config.defaultCountry),
        full_name: values.full_name ?? '',
        additional_vars: values.additional_vars ?? {},
        status: values.status ?? undefined,
      });
      // contract §5: a contact added to a running campaign's phonebook joins it.
      engine?.wake();
      return reply.code(201).header('location', recordUrl(request, 'contact', row.id)).send(presentContact(request, row));
    },
  );

  // contract §2: update answers 202 with an empty body; PUT is a partial update too.
  api.route({
    method: ['PATCH', 'PUT'],
    url: '/contact/:id/',
    schema: { tags, body: bodySchema(contactFields, { partial: true }) },
    handler: async (request, reply) => {
      const id = recordId(request);
      const current = await findContact(db, request.user, id);
      if (!current) throw notFound();
      const values = await parseBody(contactFields, request.body, fieldContext(db, request), { partial: true });
      const [phonebookId, number] = [values.phonebook ?? current.phonebook_id, values.contact ?? current.contact];
      await updateContact(db, id, {
        phonebook_id: values.phonebook ?? undefined,
        contact: values.contact ?? undefined,
        // A new number, or a phonebook whose owner reads numbers in another country: a new key.
        phone_key: await phoneKeyOf(db, 'phonebooks', phonebookId, number, config.defaultCountry),
        full_name: values.full_name ?? undefined,
        additional_vars: values.additional_vars === undefined ? undefined : (values.additional_vars ?? {}),
        status: values.status ?? undefined,
      });
      engine?.wake();
      return reply.code(202).send();
    },
  });

  api.delete('/contact/:id/', { schema: { tags } }, async (request, reply) => {
    const id = recordId(request);
    if (!(await findContact(db, request.user, id))) throw notFound();
    await deleteContact(db, id);
    return reply.code(204).send();
  });
}

export const contactResource: Resource = { name: 'contact', routes };
