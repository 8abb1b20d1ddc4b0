import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, idOf, testApp } from '../../../test/helpers.ts';
import { contacts } from '../../db/schema.ts';

const t = await testApp();
const { db } = t.database;
const admin = await makeUser(db, { admin: true });
const alice = await makeUser(db);
const bob = await makeUser(db);

/** A phonebook created through the API (checks the 201). */
async function postPhonebook(owner: { auth: string }) {
  const res = await call(t.app, owner.auth, 'POST', '/rest-api/phonebook/', { name: unique('pb') });
  assert.equal(res.statusCode, 201, res.body);
  return idOf(res.data.url);
}

async function makeContact(owner: { auth: string }, phonebook: number, extra: Record<string, unknown> = {}) {
  const res = await call(t.app, owner.auth, 'POST', '/rest-api/contact/', { contact: '+1 (203) 555-0101', phonebook, ...extra });
  assert.equal(res.statusCode, 201, res.body);
  return res.data;
}

const read = async (id: number) => (await call(t.app, admin.auth, 'GET', `/rest-api/contact/${id}/`)).data;

describe(`contact (${dbLabel})`, () => {
  test('POST creates a contact: 201, the record with a normalised number and additional_vars as JSON text', async () => {
    const pb = await postPhonebook(alice);
    const res = await call(t.app, alice.auth, 'POST', '/rest-api/contact/', {
      contact: '+1 (203) 555-0101',
      full_name: 'Ada Lovelace',
      phonebook: `/rest-api/phonebook/${pb}/`,
      additional_vars: '{"city": "Paris", "n": 2}',
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.headers.location, res.data.url);
    assert.deepEqual(Object.keys(res.data).sort(), [
      'additional_vars', 'contact', 'created_date', 'full_name', 'id', 'phonebook', 'status', 'updated_date', 'url',
    ]);
    assert.equal(res.data.url, `http://localhost:80/rest-api/contact/${res.data.id}/`);
    assert.equal(res.data.phonebook, `http://localhost:80/rest-api/phonebook/${pb}/`);
    assert.equal(res.data.contact, '+12035550101');
    assert.equal(res.data.full_name, 'Ada Lovelace');
    assert.equal(typeof res.data.additional_vars, 'string');
    assert.deepEqual(JSON.parse(res.data.additional_vars), { city: 'Paris', n: 2 });
    assert.equal(res.data.status, 1);
  });

  test('additional_vars given as an object is returned as JSON text; omitted, as "{}"', async () => {
    const pb = await postPhonebook(alice);
    const withObject = await makeContact(alice, pb, { additional_vars: { plan: 'gold' } });
    assert.deepEqual(JSON.parse(withObject.additional_vars), { plan: 'gold' });
    const without = await makeContact(alice, pb);
    assert.equal(without.additional_vars, '{}');
  });

  test('POST without contact and phonebook lists both as required and creates nothing', async () => {
    const before = await db.$count(contacts);
    const res = await call(t.app, alice.auth, 'POST', '/rest-api/contact/', { full_name: 'x' });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.data, { contact: ['This field is required.'], phonebook: ['This field is required.'] });
    assert.equal(await db.$count(contacts), before);
  });

  test('a bad number, additional_vars that is not an object, and a bad status each answer 400', async () => {
    const pb = await postPhonebook(alice);
    const before = await db.$count(contacts);
    const res = await call(t.app, alice.auth, 'POST', '/rest-api/contact/', {
      contact: '12ab',
      phonebook: pb,
      additional_vars: '[1, 2]',
      status: 5,
      full_name: 'f'.repeat(201),
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.data, {
      contact: ['Enter a valid phone number.'],
      additional_vars: ['Value must be a JSON object.'],
      status: ['"5" is not a valid choice.'],
      full_name: ['Ensure this field has no more than 200 characters.'],
    });
    const notJson = await call(t.app, alice.auth, 'POST', '/rest-api/contact/', { contact: '12035550101', phonebook: pb, additional_vars: '{nope' });
    assert.equal(notJson.statusCode, 400, notJson.body);
    assert.deepEqual(notJson.data, { additional_vars: ['Value must be valid JSON.'] });
    assert.equal(await db.$count(contacts), before);
  });

  test('the phonebook link is accepted as an absolute URL, a path, or a bare id', async () => {
    const pb = await postPhonebook(alice);
    for (const phonebook of [`http://localhost/rest-api/phonebook/${pb}/`, `/rest-api/phonebook/${pb}`, pb, String(pb)]) {
      const res = await call(t.app, alice.auth, 'POST', '/rest-api/contact/', { contact: '12035550101', phonebook });
      assert.equal(res.statusCode, 201, `${phonebook}: ${res.body}`);
      assert.equal(idOf(res.data.phonebook), pb);
    }
  });

  test("a link to another resource, or to another user's phonebook, answers 400", async () => {
    const pb = await postPhonebook(alice);
    const bobs = await postPhonebook(bob);
    const wrong = await call(t.app, alice.auth, 'POST', '/rest-api/contact/', { contact: '12035550101', phonebook: `/rest-api/dnc/${pb}/` });
    assert.equal(wrong.statusCode, 400, wrong.body);
    assert.deepEqual(wrong.data, { phonebook: ['Invalid hyperlink - Incorrect URL match.'] });
    const foreign = await call(t.app, alice.auth, 'POST', '/rest-api/contact/', { contact: '12035550101', phonebook: bobs });
    assert.equal(foreign.statusCode, 400, foreign.body);
    assert.deepEqual(foreign.data, { phonebook: ['Invalid hyperlink - Object does not exist.'] });
  });

  test("the list shows only the caller's contacts and filters by phonebook_id", async () => {
    const pb1 = await postPhonebook(alice);
    const pb2 = await postPhonebook(alice);
    const c1 = await makeContact(alice, pb1);
    const c2 = await makeContact(alice, pb2);
    const theirs = await makeContact(bob, await postPhonebook(bob));
    const all = await call(t.app, alice.auth, 'GET', '/rest-api/contact/?page_size=1000');
    assert.equal(all.statusCode, 200, all.body);
    const ids = all.data.results.map((r: { id: number }) => r.id);
    assert.ok(ids.includes(c1.id) && ids.includes(c2.id));
    assert.ok(!ids.includes(theirs.id));
    const filtered = await call(t.app, alice.auth, 'GET', `/rest-api/contact/?phonebook_id=${pb1}`);
    assert.deepEqual(filtered.data.results.map((r: { id: number }) => r.id), [c1.id]);
    const empty = await call(t.app, alice.auth, 'GET', '/rest-api/contact/?phonebook_id=&page_size=1000');
    assert.equal(empty.data.count, all.data.count);
    const bad = await call(t.app, alice.auth, 'GET', '/rest-api/contact/?phonebook_id=abc');
    assert.equal(bad.statusCode, 400, bad.body);
  });

  test("another user's contact answers 404 to GET, PATCH and DELETE and stays as it was", async () => {
    const theirs = await makeContact(bob, await postPhonebook(bob), { full_name: 'Bob' });
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const res = await call(t.app, alice.auth, method, `/rest-api/contact/${theirs.id}/`, method === 'PATCH' ? { full_name: 'x' } : undefined);
      assert.equal(res.statusCode, 404, `${method}: ${res.body}`);
    }
    assert.equal((await read(theirs.id)).full_name, 'Bob');
  });

  test('PATCH and PUT answer 202 with an empty body; status 0 deactivates without deleting', async () => {
    const pb = await postPhonebook(alice);
    const other = await postPhonebook(alice);
    const c = await makeContact(alice, pb);
    const patch = await call(t.app, alice.auth, 'PATCH', `/rest-api/contact/${c.id}/`, { status: 0, additional_vars: { a: 1 } });
    assert.equal(patch.statusCode, 202, patch.body);
    assert.equal(patch.body, '');
    const put = await call(t.app, alice.auth, 'PUT', `/rest-api/contact/${c.id}/`, { contact: '203.555.0199', phonebook: `/rest-api/phonebook/${other}/` });
    assert.equal(put.statusCode, 202, put.body);
    const after = await read(c.id);
    assert.equal(after.status, 0);
    assert.equal(after.contact, '2035550199');
    assert.equal(idOf(after.phonebook), other);
    assert.equal(after.additional_vars, '{"a":1}');
  });

  test("a rejected PATCH changes nothing, even its valid fields; moving to another user's phonebook is refused", async () => {
    const c = await makeContact(alice, await postPhonebook(alice), { full_name: 'Kept' });
    const bad = await call(t.app, alice.auth, 'PATCH', `/rest-api/contact/${c.id}/`, { full_name: 'Changed', contact: 'x' });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.deepEqual(bad.data, { contact: ['Enter a valid phone number.'] });
    const move = await call(t.app, alice.auth, 'PATCH', `/rest-api/contact/${c.id}/`, { phonebook: await postPhonebook(bob) });
    assert.deepEqual(move.data, { phonebook: ['Invalid hyperlink - Object does not exist.'] });
    const after = await read(c.id);
    assert.equal(after.full_name, 'Kept');
    assert.equal(after.contact, c.contact);
    assert.equal(after.phonebook, c.phonebook);
  });

  test('DELETE answers 204 and the contact is gone', async () => {
    const c = await makeContact(alice, await postPhonebook(alice));
    const res = await call(t.app, alice.auth, 'DELETE', `/rest-api/contact/${c.id}/`);
    assert.equal(res.statusCode, 204, res.body);
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/contact/${c.id}/`)).statusCode, 404);
  });

  test('every route answers 401 without credentials', async () => {
    const c = await makeContact(alice, await postPhonebook(alice));
    for (const [method, url] of [
      ['GET', '/rest-api/contact/'],
      ['POST', '/rest-api/contact/'],
      ['GET', `/rest-api/contact/${c.id}/`],
      ['PUT', `/rest-api/contact/${c.id}/`],
      ['DELETE', `/rest-api/contact/${c.id}/`],
    ] as const) {
      const res = await call(t.app, undefined, method, url, method === 'POST' || method === 'PUT' ? {} : undefined);
      assert.equal(res.statusCode, 401, `${method} ${url}: ${res.body}`);
    }
  });
});
