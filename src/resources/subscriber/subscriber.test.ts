/** POST /rest-api/subscriber/ (issue 17, item 3): a contact that joins the running campaigns dialling its phonebook. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { makeGateway, makePhonebook, makeSurvey, makeUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, idOf, testApp, type TestContext } from '../../../test/helpers.ts';
import { contacts } from '../../db/schema.ts';

const t: TestContext = await testApp();
const { db } = t.database;
const alice = await makeUser(db);
const bob = await makeUser(db);
const gateway = (await makeGateway(db)).id;
const survey = await makeSurvey(db, alice.id);

async function campaign(phonebook: number, status: number) {
  const res = await call(t.app, alice.auth, 'POST', '/rest-api/campaigns/', {
    name: unique('camp'),
    aleg_gateway: gateway,
    object_id: survey,
    phonebook: [phonebook],
    status,
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.data.id as number;
}

const numbersOf = async (campaignId: number) => {
  const res = await call(t.app, alice.auth, 'GET', `/rest-api/subscriber-list/?campaign_id=${campaignId}`);
  assert.equal(res.statusCode, 200, res.body);
  return (res.data as { duplicate_contact: string; full_name: string }[]).map((s) => s.duplicate_contact).sort();
};

describe(`subscriber (${dbLabel})`, () => {
  test('POST adds an active contact to the phonebook, answers as Newfies does, and the contact joins the running campaign', async () => {
    const book = await makePhonebook(db, alice.id, ['+12035550101']);
    const otherBook = await makePhonebook(db, alice.id, ['+12035550102']);
    const running = await campaign(book, 1);
    const notStarted = await campaign(book, 0);
    const elsewhere = await campaign(otherBook, 1);
    assert.deepEqual(await numbersOf(running), ['+12035550101']);

    const res = await call(t.app, alice.auth, 'POST', '/rest-api/subscriber/', {
      contact: '650784355',
      last_name: 'belaid',
      first_name: 'areski',
      email: 'areski@gmail.com',
      city: 'Barcelona',
      additional_vars: '{"debt": "12.50"}',
      phonebook_id: String(book),
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.data, { status: 'Contact created' });
    const [contact] = await db.select().from(contacts).where(eq(contacts.id, idOf(res.headers.location as string)));
    assert.equal(contact.phonebook_id, book);
    assert.equal(contact.contact, '650784355');
    assert.equal(contact.full_name, 'areski belaid');
    assert.equal(contact.status, 1);
    assert.deepEqual(contact.additional_vars, { email: 'areski@gmail.com', city: 'Barcelona', debt: '12.50' });

    assert.deepEqual(await numbersOf(running), ['+12035550101', '650784355'], 'joined the running campaign at once');
    assert.deepEqual(await numbersOf(notStarted), [], 'a campaign not started spools at its start');
    assert.deepEqual(await numbersOf(elsewhere), ['+12035550102'], 'a campaign on other phonebooks is untouched');
  });

  test("another user's or a missing phonebook answers 400 with Newfies' message; a bad contact answers 400 by field; nothing is added", async () => {
    const bobs = await makePhonebook(db, bob.id);
    const before = await db.$count(contacts);
    for (const phonebook_id of [bobs, 999999, 'x', undefined]) {
      const res = await call(t.app, alice.auth, 'POST', '/rest-api/subscriber/', { contact: '650784355', phonebook_id });
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(res.data, { detail: 'phonebook id is not valid', error: 'phonebook id is not valid' });
    }
    const book = await makePhonebook(db, alice.id);
    const missing = await call(t.app, alice.auth, 'POST', '/rest-api/subscriber/', { phonebook_id: book });
    assert.deepEqual(missing.data, { contact: ['This field is required.'] });
    const bad = await call(t.app, alice.auth, 'POST', '/rest-api/subscriber/', { phonebook_id: book, contact: 'abc', additional_vars: '[1]' });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.deepEqual(bad.data, { contact: ['Enter a valid phone number.'], additional_vars: ['Value must be a JSON object.'] });
    assert.equal(await db.$count(contacts), before);
  });

  test('401 without credentials', async () => {
    const book = await makePhonebook(db, alice.id);
    const res = await call(t.app, undefined, 'POST', '/rest-api/subscriber/', { contact: '650784355', phonebook_id: book });
    assert.equal(res.statusCode, 401, res.body);
  });
});
