/** POST /rest-api/bulkcontact/ (issue 17, item 2): Newfies' bulk add of numbers to a phonebook. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { makePhonebook, makeUser } from '../../../test/factories.ts';
import { call, dbLabel, testApp } from '../../../test/helpers.ts';
import { contacts } from '../../db/schema.ts';

const t = await testApp();
const { db } = t.database;
const alice = await makeUser(db);
const bob = await makeUser(db);

const numbersIn = async (phonebookId: number) =>
  (await db.select().from(contacts).where(eq(contacts.phonebook_id, phonebookId)).orderBy(contacts.id)).map((c) => c.contact);
const bulk = (auth: string | undefined, body: unknown) => call(t.app, auth, 'POST', '/rest-api/bulkcontact/', body);

describe(`bulkcontact (${dbLabel})`, () => {
  test("POST adds the numbers to the caller's phonebook and answers as Newfies does", async () => {
    const book = await makePhonebook(db, alice.id);
    const res = await bulk(alice.auth, { phonebook_id: String(book), phoneno_list: '12345,54344, +1 (203) 555-0101' });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.data, { result: 'Bulk contacts are created' });
    assert.deepEqual(await numbersIn(book), ['12345', '54344', '+12035550101']);
    const listed = await call(t.app, alice.auth, 'GET', `/rest-api/contact/?phonebook_id=${book}`);
    assert.equal(listed.data.count, 3);
    assert.equal(listed.data.results[0].status, 1, 'added active');
  });

  test('a thousand numbers go in one request', async () => {
    const book = await makePhonebook(db, alice.id);
    const list = Array.from({ length: 1000 }, (_, i) => String(3_000_000 + i)).join(',');
    const res = await bulk(alice.auth, { phonebook_id: book, phoneno_list: list });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((await numbersIn(book)).length, 1000);
  });

  test("an empty body, no phonebook, another user's phonebook, a bad number or one already there answer 400 {error} and add nothing", async () => {
    const book = await makePhonebook(db, alice.id, ['12345']);
    const bobs = await makePhonebook(db, bob.id);
    const cases: [unknown, string][] = [
      [{}, 'Data set is empty'],
      [{ phoneno_list: '777' }, 'Phonebook is not selected!'],
      [{ phonebook_id: '', phoneno_list: '777' }, 'Phonebook is not selected!'],
      [{ phonebook_id: bobs, phoneno_list: '777' }, 'Phonebook is not valid!'],
      [{ phonebook_id: 999999, phoneno_list: '777' }, 'Phonebook is not valid!'],
      [{ phonebook_id: 'x', phoneno_list: '777' }, 'Phonebook is not valid!'],
      [{ phonebook_id: book }, 'Phone number list is empty!'],
      [{ phonebook_id: book, phoneno_list: ' , ' }, 'Phone number list is empty!'],
      [{ phonebook_id: book, phoneno_list: '777,abc' }, 'Enter a valid phone number (abc).'],
      [{ phonebook_id: book, phoneno_list: '777,12345' }, 'The contact duplicated (12345)!\n'],
      [{ phonebook_id: book, phoneno_list: '777,888,777' }, 'The contact duplicated (777)!\n'],
    ];
    for (const [body, error] of cases) {
      const res = await bulk(alice.auth, body);
      assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
      assert.deepEqual(res.data, { detail: error, error }, JSON.stringify(body));
    }
    assert.deepEqual(await numbersIn(book), ['12345']);
    assert.deepEqual(await numbersIn(bobs), []);
  });

  test('a number in another phonebook of the caller may be added', async () => {
    const first = await makePhonebook(db, alice.id, ['+12035550199']);
    const second = await makePhonebook(db, alice.id);
    const res = await bulk(alice.auth, { phonebook_id: second, phoneno_list: '+12035550199' });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(await numbersIn(second), ['+12035550199']);
    assert.deepEqual(await numbersIn(first), ['+12035550199']);
  });

  test('401 without credentials; GET answers 405', async () => {
    const book = await makePhonebook(db, alice.id);
    assert.equal((await bulk(undefined, { phonebook_id: book, phoneno_list: '777' })).statusCode, 401);
    assert.deepEqual(await numbersIn(book), []);
    const get = await call(t.app, alice.auth, 'GET', '/rest-api/bulkcontact/');
    assert.equal(get.statusCode, 405, get.body);
  });
});
