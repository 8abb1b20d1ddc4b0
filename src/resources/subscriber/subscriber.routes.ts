/**
 * POST /rest-api/subscriber/ — Newfies' subscriber view (issue 17, item 3): a new active contact
 * in one of the caller's phonebooks, which joins at once every running campaign (voice and SMS)
 * that dials that phonebook (contract §5, the trickle rule, run here rather than on the
 * engine's next cycle so the answer is true when it is sent). It answers as Newfies does:
 * 200 {"status": "Contact created"}, plus a Location naming the new contact.
 */
import type { AppDeps, Api, Resource } from '../../http/api.ts';
import { fieldContext } from '../../http/api.ts';
import { phoneKeyOf } from '../../campaign/phone-country.ts';
import { smsSpool, spoolNewContacts, voiceSpool } from '../../campaign/spool.ts';
import { AppError } from '../../http/errors.ts';
import { parseBody } from '../../http/fields.ts';
import { recordUrl } from '../../http/links.ts';
import { insertContact } from '../contact/contact.repository.ts';
import { findPhonebook } from '../phonebook/phonebook.repository.ts';
import { EXTRA_FIELDS, SubscriberAnswer, SubscriberBody, subscriberFields } from './subscriber.schema.ts';

const NAME = 'subscriber';
const tags = [NAME];

/** Newfies' answer for a phonebook that is missing or not the caller's (with 400, not 200). */
// Newfies' `error`, and the contract's `detail` (§2), as bulkcontact answers.
const badPhonebook = () => new AppError(400, { detail: 'phonebook id is not valid', error: 'phonebook id is not valid' });

function routes(api: Api, { database, config, engine }: AppDeps) {
  const { db } = database;
  api.post(`/${NAME}/`, { schema: { tags, body: SubscriberBody, response: { 200: SubscriberAnswer } } }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const raw = typeof body.phonebook_id === 'string' ? body.phonebook_id.trim() : body.phonebook_id;
    const id = typeof raw === 'number' || (typeof raw === 'string' && /^\d{1,10}$/.test(raw)) ? Number(raw) : NaN;
    const phonebook = Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647 ? await findPhonebook(db, request.user, id) : undefined;
    if (!phonebook) throw badPhonebook();
    const { phonebook_id: _ignored, ...fields } = body;
    const values = await parseBody(subscriberFields, fields, fieldContext(db, request));
    const extras = Object.fromEntries(EXTRA_FIELDS.filter((name) => values[name]).map((name) => [name, values[name]]));
    const full_name = [values.first_name, values.last_name].filter((part) => part?.trim()).join(' ').slice(0, 200);
    const contact = await insertContact(db, {
      phonebook_id: phonebook.id,
      contact: values.contact as string,
      phone_key: await phoneKeyOf(db, 'phonebooks', phonebook.id, values.contact as string, config.defaultCountry),
      full_name,
      additional_vars: { ...extras, ...(values.additional_vars ?? {}) },
    });
    for (const target of [voiceSpool, smsSpool]) await spoolNewContacts(db, { target, timeZone: config.timeZone, phonebookId: phonebook.id });
    engine?.wake();
    return reply.code(200).header('location', recordUrl(request, 'contact', contact.id)).send({ status: 'Contact created' });
  });
}

export const subscriberResource: Resource = { name: NAME, listed: false, routes };
