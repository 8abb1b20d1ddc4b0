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

  test('a number is already in the phonebook, or given twice, when its key is: however either was written (contract §1)', async () => {
    const book = await makePhonebook(db, alice.id, ['+12035550101']);
    const cases: [string, string][] = [
      ['777,+1 203-555-0101', '+1 203-555-0101'],
      ['777,1 (203) 555-0101', '1 (203) 555-0101'],
      ['777,+12035550102,1-203-555-0102', '1-203-555-0102'],
    ];
    for (const [list, item] of cases) {
      const res = await bulk(alice.auth, { phonebook_id: book, phoneno_list: list });
      assert.equal(res.statusCode, 400, `${list}: ${res.body}`);
      const error = `The contact duplicated (${item})!\n`;
      assert.deepEqual(res.data, { detail: error, error }, list);
    }
    assert.deepEqual(await numbersIn(book), ['+12035550101']);
  });

  test("numbers written nationally are keyed in the phonebook owner's default_country", async () => {
    const admin = await makeUser(db, { admin: true });
    const carol = await makeUser(db);
    const set = await call(t.app, admin.auth, 'PATCH', `/rest-api/accounts/${carol.id}/`, { default_country: 'US' });
    assert.equal(set.statusCode, 202, set.body);
    const book = await makePhonebook(db, carol.id);
    const made = await call(t.app, carol.auth, 'POST', '/rest-api/contact/', { phonebook: book, contact: '(203) 555-0111' });
    assert.equal(made.statusCode, 201, made.body);
    const there = await bulk(carol.auth, { phonebook_id: book, phoneno_list: '+12035550111' });
    assert.equal(there.statusCode, 400, there.body);
    assert.equal(there.data.error, 'The contact duplicated (+12035550111)!\n');
    const twice = await bulk(carol.auth, { phonebook_id: book, phoneno_list: '2035550112,+1 203 555 0112' });
    assert.equal(twice.statusCode, 400, twice.body);
    assert.equal(twice.data.error, 'The contact duplicated (+1 203 555 0112)!\n');
    assert.deepEqual(await numbersIn(book), [made.data.contact]);
    const added = await bulk(carol.auth, { phonebook_id: book, phoneno_list: '2035550113' });
    assert.equal(added.statusCode, 200, added.body);
    const [, row] = await db.select().from(contacts).where(eq(contacts.phonebook_id, book)).orderBy(contacts.id);
    assert.equal(row?.phone_key, '12035550113', JSON.stringify(row));
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
