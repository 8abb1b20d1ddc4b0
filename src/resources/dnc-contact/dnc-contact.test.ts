import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, idOf, testApp } from '../../../test/helpers.ts';
import { dncContacts } from '../../db/schema.ts';

const t = await testApp();
const { db } = t.database;
const admin = await makeUser(db, { admin: true });
const alice = await makeUser(db);
const bob = await makeUser(db);

async function makeList(owner: { auth: string }) {
  const res = await call(t.app, owner.auth, 'POST', '/rest-api/dnc-list/', { name: unique('dnc') });
  assert.equal(res.statusCode, 201, res.body);
  return res.data.id as number;
}

async function makeNumber(owner: { auth: string }, dnc: number, phone_number = '+1 203 555 0101') {
  const res = await call(t.app, owner.auth, 'POST', '/rest-api/dnc-contact/', { phone_number, dnc });
  assert.equal(res.statusCode, 201, res.body);
  return res.data;
}

const read = async (id: number) => (await call(t.app, admin.auth, 'GET', `/rest-api/dnc-contact/${id}/`)).data;

describe(`dnc-contact (${dbLabel})`, () => {
  test('POST answers 201 with the record; its dnc link is /rest-api/dnc/<id>/', async () => {
    const list = await makeList(alice);
    const res = await call(t.app, alice.auth, 'POST', '/rest-api/dnc-contact/', { phone_number: '+1 (203) 555-0101', dnc: `/rest-api/dnc-list/${list}/` });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.headers.location, res.data.url);
    assert.equal(res.data.url, `http://localhost:80/rest-api/dnc-contact/${res.data.id}/`);
    assert.equal(res.data.dnc, `http://localhost:80/rest-api/dnc/${list}/`);
    assert.equal(res.data.phone_number, '+12035550101');
  });

  test('the dnc link is accepted as a URL or path of dnc or dnc-list, or a bare id', async () => {
    const list = await makeList(alice);
    for (const dnc of [`http://localhost/rest-api/dnc/${list}/`, `/rest-api/dnc-list/${list}/`, `/rest-api/dnc/${list}`, list, String(list)]) {
      const res = await call(t.app, alice.auth, 'POST', '/rest-api/dnc-contact/', { phone_number: '2035550101', dnc });
      assert.equal(res.statusCode, 201, `${dnc}: ${res.body}`);
      assert.equal(idOf(res.data.dnc), list);
    }
  });

  test('missing fields are listed at once; bad number, wrong resource and foreign list answer 400; nothing is created', async () => {
    const before = await db.$count(dncContacts);
    const missing = await call(t.app, alice.auth, 'POST', '/rest-api/dnc-contact/', {});
    assert.equal(missing.statusCode, 400, missing.body);
    assert.deepEqual(missing.data, { phone_number: ['This field is required.'], dnc: ['This field is required.'] });
    const list = await makeList(alice);
    const bad = await call(t.app, alice.auth, 'POST', '/rest-api/dnc-contact/', { phone_number: '1-800-CALL', dnc: `/rest-api/phonebook/${list}/` });
    assert.deepEqual(bad.data, { phone_number: ['Enter a valid phone number.'], dnc: ['Invalid hyperlink - Incorrect URL match.'] });
    const foreign = await call(t.app, alice.auth, 'POST', '/rest-api/dnc-contact/', { phone_number: '2035550101', dnc: await makeList(bob) });
    assert.deepEqual(foreign.data, { dnc: ['Invalid hyperlink - Object does not exist.'] });
    assert.equal(await db.$count(dncContacts), before);
  });

  test("the list shows only numbers of the caller's lists and filters by dnc_id", async () => {
    const l1 = await makeList(alice);
    const l2 = await makeList(alice);
    const n1 = await makeNumber(alice, l1);
    const n2 = await makeNumber(alice, l2);
    const theirs = await makeNumber(bob, await makeList(bob));
    const all = await call(t.app, alice.auth, 'GET', '/rest-api/dnc-contact/?page_size=1000');
    assert.equal(all.statusCode, 200, all.body);
    const ids = all.data.results.map((r: { id: number }) => r.id);
    assert.ok(ids.includes(n1.id) && ids.includes(n2.id));
    assert.ok(!ids.includes(theirs.id));
    const filtered = await call(t.app, alice.auth, 'GET', `/rest-api/dnc-contact/?dnc_id=${l2}`);
    assert.deepEqual(filtered.data.results.map((r: { id: number }) => r.id), [n2.id]);
  });

  test('?phone_number= finds the caller\'s lists holding a number, written any way (digits compared); a number without digits is a 400', async () => {
    const complaints = await makeList(alice);
    const vip = await makeList(alice);
    const bobs = await makeList(bob);
    await makeNumber(alice, complaints, '+1 (475) 555-0199');
    await makeNumber(alice, vip, '14755550199');
    await makeNumber(bob, bobs, '+14755550199');
    await makeNumber(alice, vip, '+14755550100');
    const res = await call(t.app, alice.auth, 'GET', `/rest-api/dnc-contact/?phone_number=${encodeURIComponent('1-475-555-0199')}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.data.results.map((r: { dnc: string }) => idOf(r.dnc)).sort(), [complaints, vip].sort());
    const none = await call(t.app, alice.auth, 'GET', '/rest-api/dnc-contact/?phone_number=%2B19999999999');
    assert.equal(none.data.count, 0);
    const bad = await call(t.app, alice.auth, 'GET', '/rest-api/dnc-contact/?phone_number=abc');
    assert.equal(bad.statusCode, 400, bad.body);
    assert.ok(bad.data.phone_number, bad.body);
  });

  test("another user's number answers 404 to GET, PUT and DELETE and stays", async () => {
    const theirs = await makeNumber(bob, await makeList(bob), '2035550177');
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await call(t.app, alice.auth, method, `/rest-api/dnc-contact/${theirs.id}/`, method === 'PUT' ? { phone_number: '999' } : undefined);
      assert.equal(res.statusCode, 404, `${method}: ${res.body}`);
    }
    assert.equal((await read(theirs.id)).phone_number, '2035550177');
  });

  test('PUT and PATCH are partial updates answering 202 with an empty body', async () => {
    const list = await makeList(alice);
    const other = await makeList(alice);
    const n = await makeNumber(alice, list);
    const put = await call(t.app, alice.auth, 'PUT', `/rest-api/dnc-contact/${n.id}/`, { phone_number: '203-555-0142' });
    assert.equal(put.statusCode, 202, put.body);
    assert.equal(put.body, '');
    assert.equal((await read(n.id)).phone_number, '2035550142');
    assert.equal(idOf((await read(n.id)).dnc), list);
    const patch = await call(t.app, alice.auth, 'PATCH', `/rest-api/dnc-contact/${n.id}/`, { dnc: `/rest-api/dnc/${other}/` });
    assert.equal(patch.statusCode, 202, patch.body);
    assert.equal(idOf((await read(n.id)).dnc), other);
  });

  test('a rejected PUT changes nothing', async () => {
    const n = await makeNumber(alice, await makeList(alice), '2035550101');
    const res = await call(t.app, alice.auth, 'PUT', `/rest-api/dnc-contact/${n.id}/`, { phone_number: '12', dnc: await makeList(bob) });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(Object.keys(res.data).sort(), ['dnc', 'phone_number']);
    const after = await read(n.id);
    assert.equal(after.phone_number, '2035550101');
    assert.equal(after.dnc, n.dnc);
  });

  test('DELETE answers 204', async () => {
    const n = await makeNumber(alice, await makeList(alice));
    const res = await call(t.app, alice.auth, 'DELETE', `/rest-api/dnc-contact/${n.id}/`);
    assert.equal(res.statusCode, 204, res.body);
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/dnc-contact/${n.id}/`)).statusCode, 404);
  });

  test('every route answers 401 without credentials', async () => {
    const n = await makeNumber(alice, await makeList(alice));
    for (const [method, url] of [
      ['GET', '/rest-api/dnc-contact/'],
      ['POST', '/rest-api/dnc-contact/'],
      ['GET', `/rest-api/dnc-contact/${n.id}/`],
      ['PUT', `/rest-api/dnc-contact/${n.id}/`],
      ['DELETE', `/rest-api/dnc-contact/${n.id}/`],
    ] as const) {
      const res = await call(t.app, undefined, method, url, method === 'POST' || method === 'PUT' ? {} : undefined);
      assert.equal(res.statusCode, 401, `${method} ${url}: ${res.body}`);
    }
  });
});
