/** /rest-api/dnc-contact/ — the numbers of a DNC list; visible through their list (contract §3). */
import { queryInteger, queryText } from '../../http/filters.ts';
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import { invalid, notFound } from '../../http/errors.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { recordUrl } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { phoneDigits } from '../../http/phone.ts';
import { phoneKeyOf } from '../../campaign/phone-country.ts';
import { presentDncContact } from './dnc-contact.present.ts';
import {
  countDncContacts,
  deleteDncContact,
  dncContactFilter,
  findDncContact,
  insertDncContact,
  listDncContacts,
  updateDncContact,
} from './dnc-contact.repository.ts';
import { DncContactRecord, dncContactFields } from './dnc-contact.schema.ts';

const tags = ['dnc-contact'];

/** An id filter of the query string: empty means no filter; not a number is 400, as django-filter says. */
function routes(api: Api, { database, config }: AppDeps) {
  const { db } = database;

  api.get('/dnc-contact/', { schema: { tags, response: { 200: envelopeOf(DncContactRecord) } } }, async (request) => {
    // ?phone_number=: "is this number blocked, and by which list?" — matched by key, as the
    // dialer matches (src/campaign/dnc.ts), through the (phone_key, dnc_id) index; the number is
    // read in the caller's country.
    const number = queryText(request, 'phone_number');
    if (number !== undefined && !phoneDigits(number)) throw invalid({ phone_number: ['Enter a phone number.'] });
    const key = number === undefined ? undefined : await phoneKeyOf(db, 'users', request.user.id, number, config.defaultCountry);
    const where = dncContactFilter(db, request.user, queryInteger(request, 'dnc_id'), key);
    return paginate(
      request,
      () => countDncContacts(db, where),
      (limit, offset) => listDncContacts(db, where, limit, offset),
      (row) => presentDncContact(request, row),
    );
  });

  api.get('/dnc-contact/:id/', { schema: { tags, response: { 200: DncContactRecord } } }, async (request) => {
    const row = await findDncContact(db, request.user, recordId(request));
    if (!row) throw notFound();
    return presentDncContact(request, row);
  });

  api.post(
    '/dnc-contact/',
    { schema: { tags, body: bodySchema(dncContactFields), response: { 201: DncContactRecord } } },
    async (request, reply) => {
      const values = await parseBody(dncContactFields, request.body, fieldContext(db, request));
      const [dncId, number] = [values.dnc as number, values.phone_number as string];
      const phone_key = await phoneKeyOf(db, 'dnc_lists', dncId, number, config.defaultCountry);
      const row = await insertDncContact(db, { dnc_id: dncId, phone_number: number, phone_key });
      return reply
        .code(201)
        .header('location', recordUrl(request, 'dnc-contact', row.id))
        .send(presentDncContact(request, row));
    },
  );

  // contract §2: PUT (the API's own update of dnc-contact) and PATCH are partial updates → 202.
  api.route({
    method: ['PATCH', 'PUT'],
    url: '/dnc-contact/:id/',
    schema: { tags, body: bodySchema(dncContactFields, { partial: true }) },
    handler: async (request, reply) => {
      const id = recordId(request);
      const current = await findDncContact(db, request.user, id);
      if (!current) throw notFound();
      const values = await parseBody(dncContactFields, request.body, fieldContext(db, request), { partial: true });
      const [dncId, number] = [values.dnc ?? current.dnc_id, values.phone_number ?? current.phone_number];
      // A new number, or a list whose owner reads numbers in another country: a new key.
      const phone_key = await phoneKeyOf(db, 'dnc_lists', dncId, number, config.defaultCountry);
      await updateDncContact(db, id, { dnc_id: values.dnc ?? undefined, phone_number: values.phone_number ?? undefined, phone_key });
      return reply.code(202).send();
    },
  });

  api.delete('/dnc-contact/:id/', { schema: { tags } }, async (request, reply) => {
    const id = recordId(request);
    if (!(await findDncContact(db, request.user, id))) throw notFound();
    await deleteDncContact(db, id);
    return reply.code(204).send();
  });
}

export const dncContactResource: Resource = { name: 'dnc-contact', routes };
