/**
 * POST /rest-api/bulkcontact/ — Newfies' bulk contact view (issue 17, item 2): a comma-separated
 * list of numbers added to one of the caller's phonebooks in one statement. It answers as
 * Newfies does, {"result": "Bulk contacts are created"}, and its refusals are Newfies' messages
 * under `error` — with status 400 (Newfies sent them with 200) and nothing added: a list with
 * one bad or duplicated number adds none of them.
 */
import { Type } from '@sinclair/typebox';
import type { AppDeps, Api, Resource } from '../../http/api.ts';
import { AppError } from '../../http/errors.ts';
import { countryOf } from '../../campaign/phone-country.ts';
import { normalizePhone, phoneKey } from '../../http/phone.ts';
import { findPhonebook } from '../phonebook/phonebook.repository.ts';
import { firstNumberInPhonebook, insertNumbers, lockPhonebook } from './bulkcontact.repository.ts';

const NAME = 'bulkcontact';
const tags = [NAME];
/** What one request may add: a 1 MB body holds about this many numbers. */
export const MAX_BULK_NUMBERS = 100_000;

// Newfies' clients read `error`; our contract's clients read `detail` (contract §2): both carry the message.
const refuse = (error: string) => new AppError(400, { detail: error, error });

const BulkContactBody = Type.Object({
  phonebook_id: Type.Union([Type.Integer(), Type.String()], { description: "One of the caller's phonebooks" }),
  phoneno_list: Type.String({ description: 'Phone numbers separated by commas', examples: ['12345,54344'] }),
});

/** The numbers of `phoneno_list`, normalised (contract §1); a refusal names the first bad one. */
function numbersOf(list: unknown): string[] {
  if (typeof list !== 'string' && typeof list !== 'number') throw refuse('Phone number list is empty!');
  const items = String(list)
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length === 0) throw refuse('Phone number list is empty!');
  if (items.length > MAX_BULK_NUMBERS) throw refuse(`Ensure the list has no more than ${MAX_BULK_NUMBERS} numbers.`);
  const numbers: string[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    const number = normalizePhone(item);
    if (!number) throw refuse(`Enter a valid phone number (${item}).`);
    // Newfies' message for a number already there; one given twice would be a duplicate too.
    if (seen.has(number)) throw refuse(`The contact duplicated (${item})!\n`);
    seen.add(number);
    numbers.push(number);
  }
  return numbers;
}

function routes(api: Api, { database, config, engine }: AppDeps) {
  const { db } = database;
  api.post(
    `/${NAME}/`,
    { schema: { tags, body: BulkContactBody, response: { 200: Type.Object({ result: Type.String() }) } } },
    async (request, reply) => {
      const body = request.body as Record<string, unknown> | null;
      if (!body || typeof body !== 'object' || Object.keys(body).length === 0) throw refuse('Data set is empty');
      const raw = body.phonebook_id;
      if (raw === undefined || raw === null || raw === '') throw refuse('Phonebook is not selected!');
      const id = Number(typeof raw === 'string' ? raw.trim() : raw);
      const phonebook = Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647 ? await findPhonebook(db, request.user, id) : undefined;
      if (!phonebook) throw refuse('Phonebook is not valid!');
      const numbers = numbersOf(body.phoneno_list);
      await db.transaction(async (tx) => {
        await lockPhonebook(tx, phonebook.id);
        const taken = await firstNumberInPhonebook(tx, phonebook.id, numbers);
        if (taken) throw refuse(`The contact duplicated (${taken})!\n`);
        const country = await countryOf(tx, 'phonebooks', phonebook.id, config.defaultCountry);
        await insertNumbers(tx, phonebook.id, numbers.map((contact) => ({ contact, key: phoneKey(contact, country) })));
      });
      // contract §5: contacts added to a running campaign's phonebook join it (the trickle rule).
      engine?.wake();
      return reply.code(200).send({ result: 'Bulk contacts are created' });
    },
  );
}

export const bulkContactResource: Resource = { name: NAME, listed: false, routes };
