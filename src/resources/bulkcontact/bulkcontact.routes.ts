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
import { firstKeyInPhonebook, insertNumbers, lockPhonebook } from './bulkcontact.repository.ts';

const NAME = 'bulkcontact';
const tags = [NAME];
/** What one request may add: a 1 MB body holds about this many numbers. */
export const MAX_BULK_NUMBERS = 100_000;

// Newfies' clients read `error`; our contract's clients read `detail` (contract §2): both carry the message.
const refuse = (error: string) => new AppError(400, { detail: error, error });
// Newfies names the number as the request wrote it.
const duplicated = (item: string) => `The contact duplicated (${item})!\n`;

const BulkContactBody = Type.Object({
  phonebook_id: Type.Union([Type.Integer(), Type.String()], { description: "One of the caller's phonebooks" }),
  phoneno_list: Type.String({ description: 'Phone numbers separated by commas', examples: ['12345,54344'] }),
});

/** One number of `phoneno_list`: as written, normalised, and its key (contract §1). */
type BulkNumber = { item: string; contact: string; key: string };

/**
 * The numbers of `phoneno_list`, normalised and keyed as the phonebook's owner reads them
 * (`country`); a refusal names the first bad item. Two items with one key are one number given
 * twice (`+12035550101` and `1 203 555 0101`), so the second is refused as a duplicate.
 */
function numbersOf(list: unknown, country: string | undefined): BulkNumber[] {
  if (typeof list !== 'string' && typeof list !== 'number') throw refuse('Phone number list is empty!');
  const items = String(list)
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length === 0) throw refuse('Phone number list is empty!');
  if (items.length > MAX_BULK_NUMBERS) throw refuse(`Ensure the list has no more than ${MAX_BULK_NUMBERS} numbers.`);
  const numbers: BulkNumber[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    const contact = normalizePhone(item);
    if (!contact) throw refuse(`Enter a valid phone number (${item}).`);
    const key = phoneKey(contact, country);
    // Newfies' message for a number already there; one given twice would be a duplicate too.
    if (seen.has(key)) throw refuse(duplicated(item));
    seen.add(key);
    numbers.push({ item, contact, key });
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
      const country = await countryOf(db, 'phonebooks', phonebook.id, config.defaultCountry);
      const numbers = numbersOf(body.phoneno_list, country);
      await db.transaction(async (tx) => {
        await lockPhonebook(tx, phonebook.id);
        const taken = await firstKeyInPhonebook(tx, phonebook.id, numbers.map((n) => n.key));
        if (taken !== undefined) throw refuse(duplicated(numbers[taken]?.item ?? ''));
        await insertNumbers(tx, phonebook.id, numbers.map(({ contact, key }) => ({ contact, key })));
      });
      // contract §5: contacts added to a running campaign's phonebook join it (the trickle rule).
      engine?.wake();
      return reply.code(200).send({ result: 'Bulk contacts are created' });
    },
  );
}

export const bulkContactResource: Resource = { name: NAME, listed: false, routes };
