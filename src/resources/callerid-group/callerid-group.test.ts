import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { makeUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, idOf, testApp } from '../../../test/helpers.ts';
import { calleridGroups } from '../../db/schema.ts';

const t = await testApp();
const { db } = t.database;
const admin = await makeUser(db, { admin: true });
const alice = await makeUser(db);
const bob = await makeUser(db);

async function makeGroup(owner: { auth: string }, extra: Record<string, unknown> = {}) {
  const res = await call(t.app, owner.auth, 'POST', '/rest-api/callerid_group/', { name: unique('grp'), ...extra });
  assert.equal(res.statusCode, 201, res.body);
  return res.data;
}

describe(`callerid_group (${dbLabel})`, () => {
  test('POST answers 201 with the record and its Location', async () => {
    const res = await call(t.app, alice.auth, 'POST', '/rest-api/callerid_group/', { name: 'East', description: 'NE numbers' });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.headers.location, res.data.url);
    assert.equal(res.data.url, `http://localhost:80/rest-api/callerid_group/${res.data.id}/`);
    assert.equal(res.data.user, `http://localhost:80/rest-api/users/${alice.id}/`);
    assert.equal(res.data.name, 'East');
    assert.equal(res.data.description, 'NE numbers');
  });

  test('POST without name, or with a too long name or description, answers 400 and creates nothing', async () => {
    const before = await db.$count(calleridGroups);
    const missing = await call(t.app, alice.auth, 'POST', '/rest-api/callerid_group/', { description: 'x' });
    assert.deepEqual(missing.data, { name: ['This field is required.'] });
    const long = await call(t.app, alice.auth, 'POST', '/rest-api/callerid_group/', { name: 'n'.repeat(101), description: 'd'.repeat(2001) });
    assert.equal(long.statusCode, 400, long.body);
    assert.deepEqual(long.data, {
      name: ['Ensure this field has no more than 100 characters.'],
      description: ['Ensure this field has no more than 2000 characters.'],
    });
    assert.equal(await db.$count(calleridGroups), before);
  });

  test('the user link takes three forms; naming another user is refused to a non-admin, allowed to an admin', async () => {
    for (const user of [`http://localhost/rest-api/users/${alice.id}/`, `/rest-api/users/${alice.id}/`, String(alice.id)]) {
      await makeGroup(alice, { user });
    }
    const wrong = await call(t.app, alice.auth, 'POST', '/rest-api/callerid_group/', { name: 'x', user: `/rest-api/callerid/${alice.id}/` });
    assert.deepEqual(wrong.data, { user: ['Invalid hyperlink - Incorrect URL match.'] });
    const other = await call(t.app, alice.auth, 'POST', '/rest-api/callerid_group/', { name: 'x', user: bob.id });
    assert.deepEqual(other.data, { user: ['Invalid hyperlink - Object does not exist.'] });
    assert.equal(idOf((await makeGroup(admin, { user: bob.id })).user), bob.id);
  });

  test("another user's group is absent from the list and answers 404 to GET, PATCH and DELETE", async () => {
    const theirs = await makeGroup(bob, { name: 'bob group' });
    const mine = await makeGroup(alice);
    const list = await call(t.app, alice.auth, 'GET', '/rest-api/callerid_group/?page_size=1000');
    const ids = list.data.results.map((r: { id: number }) => r.id);
    assert.ok(ids.includes(mine.id) && !ids.includes(theirs.id));
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const res = await call(t.app, alice.auth, method, `/rest-api/callerid_group/${theirs.id}/`, method === 'PATCH' ? { name: 'x' } : undefined);
      assert.equal(res.statusCode, 404, `${method}: ${res.body}`);
    }
    const [row] = await db.select().from(calleridGroups).where(eq(calleridGroups.id, theirs.id));
    assert.equal(row.name, 'bob group');
  });

  test('PATCH and PUT answer 202 with an empty body; a rejected one changes nothing', async () => {
    const g = await makeGroup(alice, { name: 'one' });
    const patch = await call(t.app, alice.auth, 'PATCH', `/rest-api/callerid_group/${g.id}/`, { name: 'two' });
    assert.equal(patch.statusCode, 202, patch.body);
    assert.equal(patch.body, '');
    const put = await call(t.app, alice.auth, 'PUT', `/rest-api/callerid_group/${g.id}/`, { description: 'described' });
    assert.equal(put.statusCode, 202, put.body);
    const bad = await call(t.app, alice.auth, 'PATCH', `/rest-api/callerid_group/${g.id}/`, { name: 'three', user: bob.id });
    assert.equal(bad.statusCode, 400, bad.body);
    const after = await call(t.app, alice.auth, 'GET', `/rest-api/callerid_group/${g.id}/`);
    assert.equal(after.data.name, 'two');
    assert.equal(after.data.description, 'described');
  });

  test('DELETE answers 204', async () => {
    const g = await makeGroup(alice);
    const res = await call(t.app, alice.auth, 'DELETE', `/rest-api/callerid_group/${g.id}/`);
    assert.equal(res.statusCode, 204, res.body);
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/callerid_group/${g.id}/`)).statusCode, 404);
  });

  test('every route answers 401 without credentials', async () => {
    const g = await makeGroup(alice);
    for (const [method, url] of [
      ['GET', '/rest-api/callerid_group/'],
      ['POST', '/rest-api/callerid_group/'],
      ['GET', `/rest-api/callerid_group/${g.id}/`],
      ['PATCH', `/rest-api/callerid_group/${g.id}/`],
      ['DELETE', `/rest-api/callerid_group/${g.id}/`],
    ] as const) {
      const res = await call(t.app, undefined, method, url, method === 'POST' || method === 'PATCH' ? {} : undefined);
      assert.equal(res.statusCode, 401, `${method} ${url}: ${res.body}`);
    }
  });

  test('rotation rules: set on create, read back, refused out of range with nothing stored, cleared with null (issue 16 item 5)', async () => {
    const group = await makeGroup(alice, { daily_cap: '300', min_answer_rate: 0.25, answer_rate_min_calls: 10 });
    assert.deepEqual([group.daily_cap, group.min_answer_rate, group.answer_rate_min_calls], [300, 0.25, 10]);
    const before = await db.$count(calleridGroups);
    const bad = await call(t.app, alice.auth, 'POST', '/rest-api/callerid_group/', { name: unique('grp'), min_answer_rate: -0.1, answer_rate_min_calls: 0, daily_cap: 'many' });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.deepEqual(Object.keys(bad.data).sort(), ['answer_rate_min_calls', 'daily_cap', 'min_answer_rate']);
    assert.equal(await db.$count(calleridGroups), before);
    const off = await call(t.app, alice.auth, 'PATCH', group.url, { daily_cap: null, min_answer_rate: null });
    assert.equal(off.statusCode, 202, off.body);
    const read = await call(t.app, alice.auth, 'GET', group.url);
    assert.deepEqual([read.data.daily_cap, read.data.min_answer_rate, read.data.answer_rate_min_calls], [null, null, 10]);
  });
});
