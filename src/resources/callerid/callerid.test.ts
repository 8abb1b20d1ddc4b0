import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, idOf, testApp } from '../../../test/helpers.ts';
import { callerids } from '../../db/schema.ts';

const t = await testApp();
const { db } = t.database;
const admin = await makeUser(db, { admin: true });
const alice = await makeUser(db);
const bob = await makeUser(db);

async function makeGroup(owner: { auth: string }) {
  const res = await call(t.app, owner.auth, 'POST', '/rest-api/callerid_group/', { name: unique('grp') });
  assert.equal(res.statusCode, 201, res.body);
  return res.data.id as number;
}

async function makeCallerid(owner: { auth: string }, group: number, extra: Record<string, unknown> = {}) {
  const res = await call(t.app, owner.auth, 'POST', '/rest-api/callerid/', { callerid_num: '+12035550100', callerid_group: group, ...extra });
  assert.equal(res.statusCode, 201, res.body);
  return res.data;
}

const ids = (res: { data: { results: { id: number }[] } }) => res.data.results.map((r) => r.id);
const read = async (id: number) => (await call(t.app, admin.auth, 'GET', `/rest-api/callerid/${id}/`)).data;

describe(`callerid (${dbLabel})`, () => {
  test('POST answers 201 with the record, a normalised number and its Location', async () => {
    const g = await makeGroup(alice);
    const res = await call(t.app, alice.auth, 'POST', '/rest-api/callerid/', {
      areacode: '1203',
      callerid_num: '+1 (203) 555-0100',
      callerid_name: 'Sales',
      callerid_group: `/rest-api/callerid_group/${g}/`,
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.headers.location, res.data.url);
    assert.equal(res.data.url, `http://localhost:80/rest-api/callerid/${res.data.id}/`);
    assert.equal(res.data.callerid_group, `http://localhost:80/rest-api/callerid_group/${g}/`);
    assert.equal(res.data.areacode, '1203');
    assert.equal(res.data.callerid_num, '+12035550100');
    assert.equal(res.data.callerid_name, 'Sales');
  });

  test('areacode * (any number) and an omitted areacode are accepted', async () => {
    const g = await makeGroup(alice);
    assert.equal((await makeCallerid(alice, g, { areacode: '*' })).areacode, '*');
    assert.equal((await makeCallerid(alice, g)).areacode, '');
  });

  test('missing fields are listed at once; bad number, areacode and long name answer 400; nothing is created', async () => {
    const before = await db.$count(callerids);
    const missing = await call(t.app, alice.auth, 'POST', '/rest-api/callerid/', { areacode: '1' });
    assert.deepEqual(missing.data, { callerid_num: ['This field is required.'], callerid_group: ['This field is required.'] });
    const g = await makeGroup(alice);
    const bad = await call(t.app, alice.auth, 'POST', '/rest-api/callerid/', {
      areacode: '12a',
      callerid_num: 'abc',
      callerid_name: 'n'.repeat(101),
      callerid_group: g,
    });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.deepEqual(bad.data, {
      areacode: ['Enter a number prefix (digits) or *.'],
      callerid_num: ['Enter a valid phone number.'],
      callerid_name: ['Ensure this field has no more than 100 characters.'],
    });
    assert.equal(await db.$count(callerids), before);
  });

  test("the group link takes three forms; another resource or another user's group answers 400", async () => {
    const g = await makeGroup(alice);
    for (const callerid_group of [`http://localhost/rest-api/callerid_group/${g}/`, `/rest-api/callerid_group/${g}`, g]) {
      assert.equal(idOf((await makeCallerid(alice, g, { callerid_group })).callerid_group), g);
    }
    const wrong = await call(t.app, alice.auth, 'POST', '/rest-api/callerid/', { callerid_num: '2035550100', callerid_group: `/rest-api/phonebook/${g}/` });
    assert.deepEqual(wrong.data, { callerid_group: ['Invalid hyperlink - Incorrect URL match.'] });
    const foreign = await call(t.app, alice.auth, 'POST', '/rest-api/callerid/', { callerid_num: '2035550100', callerid_group: await makeGroup(bob) });
    assert.deepEqual(foreign.data, { callerid_group: ['Invalid hyperlink - Object does not exist.'] });
  });

  test('the list filters by callerid_group_id, areacode and callerid_num in any combination; empty means no filter', async () => {
    const g1 = await makeGroup(alice);
    const g2 = await makeGroup(alice);
    const a = await makeCallerid(alice, g1, { areacode: '1203', callerid_num: '+12035550111' });
    const b = await makeCallerid(alice, g1, { areacode: '1415', callerid_num: '+14155550111' });
    const c = await makeCallerid(alice, g2, { areacode: '1203', callerid_num: '+12035550111' });
    const get = (query: string) => call(t.app, alice.auth, 'GET', `/rest-api/callerid/?page_size=1000&${query}`);
    assert.deepEqual(ids(await get(`callerid_group_id=${g1}`)), [a.id, b.id]);
    assert.deepEqual(ids(await get(`callerid_group_id=${g1}&areacode=1203`)), [a.id]);
    assert.deepEqual(ids(await get(`callerid_group_id=${g1}&areacode=&callerid_num=`)), [a.id, b.id]);
    assert.deepEqual(ids(await get(`callerid_group_id=${g2}&callerid_num=%2B12035550111`)), [c.id]);
    const byNumber = ids(await get('callerid_num=%2B12035550111&areacode=1203'));
    assert.ok(byNumber.includes(a.id) && byNumber.includes(c.id) && !byNumber.includes(b.id));
    // An unencoded + reads as a space: the digits still find the number.
    assert.deepEqual(ids(await get(`callerid_group_id=${g2}&callerid_num=+12035550111`)), [c.id]);
  });

  test("another user's caller ids are absent from the list and answer 404 to GET, PATCH and DELETE", async () => {
    const theirs = await makeCallerid(bob, await makeGroup(bob), { callerid_name: 'Bob' });
    assert.ok(!ids(await call(t.app, alice.auth, 'GET', '/rest-api/callerid/?page_size=1000')).includes(theirs.id));
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const res = await call(t.app, alice.auth, method, `/rest-api/callerid/${theirs.id}/`, method === 'PATCH' ? { callerid_name: 'x' } : undefined);
      assert.equal(res.statusCode, 404, `${method}: ${res.body}`);
    }
    assert.equal((await read(theirs.id)).callerid_name, 'Bob');
  });

  test('PATCH and PUT answer 202 with an empty body; a rejected one changes nothing', async () => {
    const g = await makeGroup(alice);
    const c = await makeCallerid(alice, g, { areacode: '1203' });
    const patch = await call(t.app, alice.auth, 'PATCH', `/rest-api/callerid/${c.id}/`, { callerid_num: '+1 203 555 0199' });
    assert.equal(patch.statusCode, 202, patch.body);
    assert.equal(patch.body, '');
    const put = await call(t.app, alice.auth, 'PUT', `/rest-api/callerid/${c.id}/`, { areacode: '*', callerid_name: 'Any' });
    assert.equal(put.statusCode, 202, put.body);
    const bad = await call(t.app, alice.auth, 'PATCH', `/rest-api/callerid/${c.id}/`, { callerid_name: 'Nope', callerid_group: await makeGroup(bob) });
    assert.equal(bad.statusCode, 400, bad.body);
    const after = await read(c.id);
    assert.equal(after.callerid_num, '+12035550199');
    assert.equal(after.areacode, '*');
    assert.equal(after.callerid_name, 'Any');
    assert.equal(idOf(after.callerid_group), g);
  });

  test('DELETE answers 204', async () => {
    const c = await makeCallerid(alice, await makeGroup(alice));
    const res = await call(t.app, alice.auth, 'DELETE', `/rest-api/callerid/${c.id}/`);
    assert.equal(res.statusCode, 204, res.body);
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/callerid/${c.id}/`)).statusCode, 404);
  });

  test('every route answers 401 without credentials', async () => {
    const c = await makeCallerid(alice, await makeGroup(alice));
    for (const [method, url] of [
      ['GET', '/rest-api/callerid/'],
      ['POST', '/rest-api/callerid/'],
      ['GET', `/rest-api/callerid/${c.id}/`],
      ['PATCH', `/rest-api/callerid/${c.id}/`],
      ['DELETE', `/rest-api/callerid/${c.id}/`],
    ] as const) {
      const res = await call(t.app, undefined, method, url, method === 'POST' || method === 'PATCH' ? {} : undefined);
      assert.equal(res.statusCode, 401, `${method} ${url}: ${res.body}`);
    }
  });
});
