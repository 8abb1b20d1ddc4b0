import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeUser } from '../../../test/factories.ts';
import { call, dbLabel, idOf, testApp } from '../../../test/helpers.ts';

const t = await testApp();
const admin = await makeUser(t.database.db, { admin: true });
const alice = await makeUser(t.database.db, { balance: '12.5', call_rate: '0.02', sms_rate: '0.01' });
const bob = await makeUser(t.database.db);

describe(`users (${dbLabel})`, () => {

  test('a user sees only themself in the list, with numbers as JSON numbers', async () => {
    const res = await call(t.app, alice.auth, 'GET', '/rest-api/users/');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.data.count, 1);
    const [me] = res.data.results;
    assert.equal(me.username, alice.username);
    assert.equal(me.balance, 12.5);
    assert.equal(me.call_rate, 0.02);
    assert.equal(me.sms_rate, 0.01);
    assert.deepEqual(Object.keys(me).sort(), ['balance', 'call_rate', 'email', 'first_name', 'last_name', 'sms_rate', 'url', 'username']);
    assert.equal(me.url, `http://localhost:80/rest-api/users/${alice.id}/`);
  });

  test('an admin sees every user', async () => {
    const res = await call(t.app, admin.auth, 'GET', '/rest-api/users/?page_size=1000');
    assert.equal(res.statusCode, 200, res.body);
    const names = res.data.results.map((u: { username: string }) => u.username);
    for (const u of [admin, alice, bob]) assert.ok(names.includes(u.username), `${u.username} missing`);
  });

  test("another user's record answers 404; one's own answers 200", async () => {
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/users/${bob.id}/`)).statusCode, 404);
    const own = await call(t.app, alice.auth, 'GET', `/rest-api/users/${alice.id}`);
    assert.equal(own.statusCode, 200, own.body);
    assert.equal(idOf(own.data.url), alice.id);
  });

  test('writes to users answer 405', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      const url = method === 'POST' ? '/rest-api/users/' : `/rest-api/users/${alice.id}/`;
      const res = await call(t.app, admin.auth, method, url, {});
      assert.equal(res.statusCode, 405, `${method}: ${res.body}`);
      assert.deepEqual(res.data, { detail: `Method "${method}" not allowed.` });
    }
  });
});
