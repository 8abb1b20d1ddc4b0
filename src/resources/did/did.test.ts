import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeGateway, makeSurvey, makeUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, idOf, testApp } from '../../../test/helpers.ts';

const t = await testApp();
const db = t.database.db;
const alice = await makeUser(db);
const bob = await makeUser(db);
const gateway = (await makeGateway(db)).id;
let serial = 0;
const number = () => `+1415555${String(1000 + serial++).padStart(4, '0')}${Math.floor(Math.random() * 10)}`;

async function campaign(user = alice): Promise<number> {
  const body = { name: unique('camp'), aleg_gateway: gateway, object_id: await makeSurvey(db, user.id) };
  return (await call(t.app, user.auth, 'POST', '/rest-api/campaigns/', body)).data.id;
}

describe(`did (${dbLabel})`, () => {
  test('POST answers 201 with the record and Location; GET list and detail show it', async () => {
    const c = await campaign();
    const did = number();
    const res = await call(t.app, alice.auth, 'POST', '/rest-api/did/', { did_number: did, user: `/rest-api/users/${alice.id}/`, campaign: `/rest-api/campaigns/${c}/` });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.headers.location, res.data.url);
    assert.equal(res.data.did_number, did);
    assert.equal(res.data.campaign, `http://localhost:80/rest-api/campaigns/${c}/`);
    const list = await call(t.app, alice.auth, 'GET', '/rest-api/did/');
    assert.ok(list.data.results.some((d: { url: string }) => d.url === res.data.url), list.body);
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/did/${idOf(res.data.url)}/`)).data.did_number, did);
  });

  test('POST errors: missing number, bad number, taken number, foreign campaign, another user', async () => {
    let res = await call(t.app, alice.auth, 'POST', '/rest-api/did/', {});
    assert.deepEqual(res.data, { did_number: ['This field is required.'] });
    res = await call(t.app, alice.auth, 'POST', '/rest-api/did/', { did_number: 'x', campaign: await campaign(bob), user: bob.id });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(Object.keys(res.data).sort(), ['campaign', 'did_number', 'user']);
    const did = number();
    assert.equal((await call(t.app, alice.auth, 'POST', '/rest-api/did/', { did_number: did })).statusCode, 201);
    res = await call(t.app, bob.auth, 'POST', '/rest-api/did/', { did_number: did });
    assert.equal(res.statusCode, 400, res.body);
    assert.ok(res.data.did_number);
  });

  test('PATCH answers 202; campaign null unassigns; DELETE answers 204; others get 404; 401 without credentials', async () => {
    const c = await campaign();
    const created = (await call(t.app, alice.auth, 'POST', '/rest-api/did/', { did_number: number(), campaign: c })).data;
    const url = `/rest-api/did/${created.id}/`;
    assert.equal((await call(t.app, bob.auth, 'GET', url)).statusCode, 404);
    assert.equal((await call(t.app, bob.auth, 'PATCH', url, { campaign: null })).statusCode, 404);
    const res = await call(t.app, alice.auth, 'PATCH', url, { campaign: null });
    assert.equal(res.statusCode, 202, res.body);
    assert.equal(res.body, '');
    assert.equal((await call(t.app, alice.auth, 'GET', url)).data.campaign, null);
    assert.equal((await call(t.app, alice.auth, 'PUT', url, { campaign: c })).statusCode, 202);
    assert.equal((await call(t.app, undefined, 'GET', url)).statusCode, 401);
    assert.equal((await call(t.app, bob.auth, 'DELETE', url)).statusCode, 404);
    assert.equal((await call(t.app, alice.auth, 'DELETE', url)).statusCode, 204);
    assert.equal((await call(t.app, alice.auth, 'GET', url)).statusCode, 404);
  });
});
