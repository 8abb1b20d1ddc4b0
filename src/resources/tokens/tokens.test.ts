import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeUser } from '../../../test/factories.ts';
import { call, dbLabel, idOf, testApp } from '../../../test/helpers.ts';

const t = await testApp();
const admin = await makeUser(t.database.db, { admin: true });
const alice = await makeUser(t.database.db);
const bob = await makeUser(t.database.db);

const me = (auth: string) => call(t.app, auth, 'GET', '/rest-api/users/');

async function tokenOf(auth: string, body: Record<string, unknown> = {}) {
  const res = await call(t.app, auth, 'POST', '/rest-api/tokens/', body);
  assert.equal(res.statusCode, 201, res.body);
  return res.data as { url: string; id: number; key: string; key_prefix: string; user: string; username: string };
}

describe(`tokens (${dbLabel})`, () => {
  test('a user creates their own token: the key is answered once, then only its prefix is shown', async () => {
    const res = await call(t.app, alice.auth, 'POST', '/rest-api/tokens/', {});
    assert.equal(res.statusCode, 201, res.body);
    const id = idOf(res.data.url);
    assert.equal(res.headers.location, `http://localhost:80/rest-api/tokens/${id}/`);
    const { created_date, key, ...rest } = res.data;
    assert.match(created_date, /Z$/);
    assert.deepEqual(rest, {
      url: `http://localhost:80/rest-api/tokens/${id}/`,
      id,
      user: `http://localhost:80/rest-api/users/${alice.id}/`,
      username: alice.username,
      key_prefix: key.split('.')[0],
    });
    const byToken = await me(`Token ${key}`);
    assert.equal(byToken.statusCode, 200, byToken.body);
    assert.equal(byToken.data.results[0].username, alice.username);
    const read = await call(t.app, alice.auth, 'GET', `/rest-api/tokens/${id}/`);
    assert.deepEqual(read.data, { ...rest, created_date });
    const list = await call(t.app, alice.auth, 'GET', '/rest-api/tokens/');
    assert.ok(!list.body.includes(key.split('.')[1]), 'the key is shown again');
  });

  test('a user sees and revokes only their own tokens; naming another user is 400', async () => {
    const bobs = await tokenOf(bob.auth);
    const alices = await tokenOf(alice.auth);
    const list = await call(t.app, alice.auth, 'GET', '/rest-api/tokens/?page_size=1000');
    const ids = list.data.results.map((r: { id: number }) => r.id);
    assert.ok(ids.includes(alices.id) && !ids.includes(bobs.id), list.body);
    assert.equal((await call(t.app, alice.auth, 'GET', bobs.url)).statusCode, 404);
    assert.equal((await call(t.app, alice.auth, 'DELETE', bobs.url)).statusCode, 404);
    assert.equal((await me(`Token ${bobs.key}`)).statusCode, 200, "bob's token survives");
    const forBob = await call(t.app, alice.auth, 'POST', '/rest-api/tokens/', { user: bob.id });
    assert.equal(forBob.statusCode, 400);
    assert.deepEqual(forBob.data, { user: ['Invalid hyperlink - Object does not exist.'] });
  });

  test("an admin issues, lists (?user_id=) and revokes any user's tokens", async () => {
    const issued = await tokenOf(admin.auth, { user: `/rest-api/users/${bob.id}/` });
    assert.equal(issued.username, bob.username);
    assert.equal((await me(`Token ${issued.key}`)).data.results[0].username, bob.username);
    const list = await call(t.app, admin.auth, 'GET', `/rest-api/tokens/?user_id=${bob.id}&page_size=1000`);
    assert.ok(list.data.results.length >= 1 && list.data.results.every((r: { username: string }) => r.username === bob.username), list.body);
    assert.equal((await call(t.app, admin.auth, 'GET', '/rest-api/tokens/?user_id=abc')).statusCode, 400);
    assert.equal((await call(t.app, admin.auth, 'DELETE', issued.url)).statusCode, 204);
  });

  test('a revoked token is refused at once, though it was just verified', async () => {
    const token = await tokenOf(alice.auth);
    for (let i = 0; i < 3; i++) assert.equal((await me(`Token ${token.key}`)).statusCode, 200);
    const revoke = await call(t.app, alice.auth, 'DELETE', token.url);
    assert.equal(revoke.statusCode, 204, revoke.body);
    assert.equal(revoke.body, '');
    const refused = await me(`Token ${token.key}`);
    assert.equal(refused.statusCode, 401, refused.body);
    assert.deepEqual(refused.data, { detail: 'Invalid token.' });
    assert.equal((await call(t.app, alice.auth, 'GET', token.url)).statusCode, 404);
  });

  test('401 without credentials, 404 for a missing token, 405 for an update', async () => {
    assert.equal((await call(t.app, undefined, 'GET', '/rest-api/tokens/')).statusCode, 401);
    assert.equal((await call(t.app, undefined, 'POST', '/rest-api/tokens/', {})).statusCode, 401);
    assert.equal((await call(t.app, alice.auth, 'GET', '/rest-api/tokens/999999/')).statusCode, 404);
    assert.equal((await call(t.app, alice.auth, 'DELETE', '/rest-api/tokens/999999/')).statusCode, 404);
    const token = await tokenOf(alice.auth);
    assert.equal((await call(t.app, alice.auth, 'PATCH', token.url, { user: alice.id })).statusCode, 405);
  });
});
