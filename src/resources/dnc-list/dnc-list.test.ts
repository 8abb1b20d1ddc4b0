import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { makeUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, idOf, testApp } from '../../../test/helpers.ts';
import { dncLists } from '../../db/schema.ts';

const t = await testApp();
const { db } = t.database;
const admin = await makeUser(db, { admin: true });
const alice = await makeUser(db);
const bob = await makeUser(db);

async function makeList(owner: { auth: string }, extra: Record<string, unknown> = {}) {
  const res = await call(t.app, owner.auth, 'POST', '/rest-api/dnc-list/', { name: unique('dnc'), ...extra });
  assert.equal(res.statusCode, 201, res.body);
  return res.data;
}

describe(`dnc-list (${dbLabel})`, () => {
  test('POST answers 201 with the record; its url and Location are /rest-api/dnc/<id>/', async () => {
    const res = await call(t.app, alice.auth, 'POST', '/rest-api/dnc-list/', { name: 'Opt-outs', is_global: 'True' });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.data.url, `http://localhost:80/rest-api/dnc/${res.data.id}/`);
    assert.equal(res.headers.location, res.data.url);
    assert.equal(res.data.name, 'Opt-outs');
    assert.equal(res.data.is_global, true);
    assert.equal(res.data.user, `http://localhost:80/rest-api/users/${alice.id}/`);
  });

  test('the /rest-api/dnc/ alias serves the same resource', async () => {
    const created = await call(t.app, alice.auth, 'POST', '/rest-api/dnc/', { name: 'via alias' });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.data.is_global, false);
    const viaList = await call(t.app, alice.auth, 'GET', `/rest-api/dnc-list/${created.data.id}/`);
    assert.deepEqual(viaList.data, created.data);
    const list = await call(t.app, alice.auth, 'GET', '/rest-api/dnc/?page_size=1000');
    assert.ok(list.data.results.some((r: { id: number }) => r.id === created.data.id));
    const patch = await call(t.app, alice.auth, 'PATCH', `/rest-api/dnc/${created.data.id}`, { name: 'renamed' });
    assert.equal(patch.statusCode, 202, patch.body);
    const del = await call(t.app, alice.auth, 'DELETE', `/rest-api/dnc/${created.data.id}/`);
    assert.equal(del.statusCode, 204, del.body);
  });

  test('POST without name, with a long name or a bad is_global answers 400 and creates nothing', async () => {
    const before = await db.$count(dncLists);
    const missing = await call(t.app, alice.auth, 'POST', '/rest-api/dnc-list/', {});
    assert.deepEqual(missing.data, { name: ['This field is required.'] });
    const bad = await call(t.app, alice.auth, 'POST', '/rest-api/dnc-list/', { name: 'n'.repeat(101), is_global: 'maybe' });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.deepEqual(bad.data, {
      name: ['Ensure this field has no more than 100 characters.'],
      is_global: ['Must be a valid boolean.'],
    });
    assert.equal(await db.$count(dncLists), before);
  });

  test('the user link takes three forms; another user is refused to a non-admin, allowed to an admin', async () => {
    for (const user of [`http://localhost/rest-api/users/${alice.id}/`, `/rest-api/users/${alice.id}/`, alice.id]) {
      const res = await call(t.app, alice.auth, 'POST', '/rest-api/dnc-list/', { name: 'x', user });
      assert.equal(res.statusCode, 201, res.body);
    }
    const wrong = await call(t.app, alice.auth, 'POST', '/rest-api/dnc-list/', { name: 'x', user: `/rest-api/phonebook/${alice.id}/` });
    assert.deepEqual(wrong.data, { user: ['Invalid hyperlink - Incorrect URL match.'] });
    const other = await call(t.app, alice.auth, 'POST', '/rest-api/dnc-list/', { name: 'x', user: bob.id });
    assert.deepEqual(other.data, { user: ['Invalid hyperlink - Object does not exist.'] });
    const byAdmin = await call(t.app, admin.auth, 'POST', '/rest-api/dnc-list/', { name: 'x', user: bob.id });
    assert.equal(idOf(byAdmin.data.user), bob.id);
  });

  test("another user's list is absent from the list and answers 404 to GET, PATCH and DELETE", async () => {
    const theirs = await makeList(bob, { name: 'bob list' });
    const list = await call(t.app, alice.auth, 'GET', '/rest-api/dnc-list/?page_size=1000');
    assert.ok(!list.data.results.some((r: { id: number }) => r.id === theirs.id));
    for (const method of ['GET', 'PATCH', 'PUT', 'DELETE'] as const) {
      const body = method === 'PATCH' || method === 'PUT' ? { name: 'x' } : undefined;
      const res = await call(t.app, alice.auth, method, `/rest-api/dnc-list/${theirs.id}/`, body);
      assert.equal(res.statusCode, 404, `${method}: ${res.body}`);
    }
    const [row] = await db.select().from(dncLists).where(eq(dncLists.id, theirs.id));
    assert.equal(row.name, 'bob list');
  });

  test('PATCH and PUT answer 202 with an empty body; a rejected one changes nothing', async () => {
    const list = await makeList(alice, { name: 'first' });
    const patch = await call(t.app, alice.auth, 'PATCH', `/rest-api/dnc-list/${list.id}/`, { name: 'second' });
    assert.equal(patch.statusCode, 202, patch.body);
    assert.equal(patch.body, '');
    const put = await call(t.app, alice.auth, 'PUT', `/rest-api/dnc-list/${list.id}/`, { is_global: 1 });
    assert.equal(put.statusCode, 202, put.body);
    const bad = await call(t.app, alice.auth, 'PATCH', `/rest-api/dnc-list/${list.id}/`, { name: '', is_global: false });
    assert.equal(bad.statusCode, 400, bad.body);
    const after = await call(t.app, alice.auth, 'GET', `/rest-api/dnc-list/${list.id}/`);
    assert.equal(after.data.name, 'second');
    assert.equal(after.data.is_global, true);
  });

  test('every route answers 401 without credentials', async () => {
    const list = await makeList(alice);
    for (const [method, url] of [
      ['GET', '/rest-api/dnc-list/'],
      ['POST', '/rest-api/dnc/'],
      ['GET', `/rest-api/dnc/${list.id}/`],
      ['PATCH', `/rest-api/dnc-list/${list.id}/`],
      ['DELETE', `/rest-api/dnc-list/${list.id}/`],
    ] as const) {
      const res = await call(t.app, undefined, method, url, method === 'POST' || method === 'PATCH' ? {} : undefined);
      assert.equal(res.statusCode, 401, `${method} ${url}: ${res.body}`);
    }
  });
});
