import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { PgDialect } from 'drizzle-orm/pg-core';
import { makeUser, unique } from '../../../test/factories.ts';
import { basic, call, dbLabel, eventually, idOf, onPostgres, testApp } from '../../../test/helpers.ts';

const t = await testApp();
const db = t.database.db;
const admin = await makeUser(db, { admin: true });
const alice = await makeUser(db);
// A database of its own, where one admin only is active (for the last suite; opened before any
// test is declared: test/test-files.test.ts says why).
const own = await testApp();
const only = await makeUser(own.database.db, { admin: true });

/** Creates an account through the API; returns its record and Basic credentials. */
async function account(body: Record<string, unknown> = {}) {
  const username = unique('acct');
  const res = await call(t.app, admin.auth, 'POST', '/rest-api/accounts/', { username, password: 'pw-1', ...body });
  assert.equal(res.statusCode, 201, res.body);
  return { ...res.data, auth: basic(username, 'pw-1') } as { id: number; url: string; username: string; auth: string };
}

const me = (auth: string) => call(t.app, auth, 'GET', '/rest-api/users/');

describe(`accounts (${dbLabel})`, () => {
  test('an admin creates an account: 201, Location, every field but the password; it authenticates', async () => {
    const username = unique('carol');
    const res = await call(t.app, admin.auth, 'POST', '/rest-api/accounts/', {
      username,
      password: 's3cret',
      email: 'carol@example.com',
      first_name: 'Carol',
      balance: '12.5',
      call_rate: 0.02,
      sms_rate: '0.01',
    });
    assert.equal(res.statusCode, 201, res.body);
    const id = idOf(res.data.url);
    assert.equal(res.headers.location, `http://localhost:80/rest-api/accounts/${id}/`);
    const { created_date, updated_date, ...rest } = res.data;
    assert.deepEqual(rest, {
      url: `http://localhost:80/rest-api/accounts/${id}/`,
      id,
      user: `http://localhost:80/rest-api/users/${id}/`,
      username,
      is_admin: false,
      is_active: true,
      email: 'carol@example.com',
      first_name: 'Carol',
      last_name: '',
      balance: 12.5,
      call_rate: 0.02,
      sms_rate: 0.01,
      balance_low_threshold: null,
      recording_retention_days: null,
      contact_caps: null,
      calling_hours: null,
      default_country: null,
    });
    assert.match(created_date, /Z$/);
    assert.match(updated_date, /Z$/);
    const login = await me(basic(username, 's3cret'));
    assert.equal(login.statusCode, 200, login.body);
    const read = await call(t.app, admin.auth, 'GET', `/rest-api/accounts/${id}/`);
    assert.deepEqual(read.data, res.data);
    const list = await call(t.app, admin.auth, 'GET', '/rest-api/accounts/?page_size=1000');
    assert.ok(list.data.results.some((a: { id: number }) => a.id === id), list.body);
  });

  test('400: missing username and password at once, a duplicate username, a bad username or e-mail', async () => {
    const missing = await call(t.app, admin.auth, 'POST', '/rest-api/accounts/', { email: 'x@example.com' });
    assert.equal(missing.statusCode, 400);
    assert.deepEqual(missing.data, { username: ['This field is required.'], password: ['This field is required.'] });
    const duplicate = await call(t.app, admin.auth, 'POST', '/rest-api/accounts/', { username: alice.username, password: 'x' });
    assert.equal(duplicate.statusCode, 400);
    assert.deepEqual(duplicate.data, { username: [`user "${alice.username}" already exists`] });
    const spaces = await call(t.app, admin.auth, 'POST', '/rest-api/accounts/', { username: 'two words', password: 'x' });
    assert.deepEqual(spaces.data, { username: ['a username is 1 to 150 letters, digits and @.+-_'] });
    const email = await call(t.app, admin.auth, 'POST', '/rest-api/accounts/', { username: unique('e'), password: 'x', email: 'nope' });
    assert.deepEqual(email.data, { email: ['Enter a valid email address.'] });
    const blank = await call(t.app, admin.auth, 'POST', '/rest-api/accounts/', { username: unique('b'), password: '', balance: 'lots' });
    assert.deepEqual(blank.data, { password: ['This field may not be blank.'], balance: ['A valid number is required.'] });
    const renamed = await account();
    const rename = await call(t.app, admin.auth, 'PATCH', renamed.url, { username: alice.username });
    assert.deepEqual(rename.data, { username: [`user "${alice.username}" already exists`] });
  });

  test('401 without credentials; 403 for a non-admin on every route, before any lookup', async () => {
    assert.equal((await call(t.app, undefined, 'GET', '/rest-api/accounts/')).statusCode, 401);
    const own = `/rest-api/accounts/${alice.id}/`;
    for (const [method, url] of [
      ['GET', '/rest-api/accounts/'],
      ['GET', own],
      ['POST', '/rest-api/accounts/'],
      ['PATCH', own],
      ['PUT', '/rest-api/accounts/999999/'],
      ['POST', `${own}queues/`],
    ] as const) {
      const res = await call(t.app, alice.auth, method, url, method === 'GET' ? undefined : { is_admin: true, username: 'x', password: 'y', name: 'q' });
      assert.equal(res.statusCode, 403, `${method} ${url}: ${res.body}`);
      assert.deepEqual(res.data, { detail: 'You do not have permission to perform this action.' });
    }
    assert.equal((await me(alice.auth)).data.results[0].username, alice.username, 'alice is unchanged');
  });

  test('404 for an account that does not exist', async () => {
    for (const method of ['GET', 'PATCH', 'PUT'] as const) {
      const res = await call(t.app, admin.auth, method, '/rest-api/accounts/999999/', method === 'GET' ? undefined : {});
      assert.equal(res.statusCode, 404, `${method}: ${res.body}`);
    }
    assert.equal((await call(t.app, admin.auth, 'POST', '/rest-api/accounts/999999/queues/', { name: 'q' })).statusCode, 404);
  });

  test('PATCH and PUT change an account (202, empty): a new password replaces the old at once', async () => {
    const dave = await account();
    const patch = await call(t.app, admin.auth, 'PATCH', dave.url, { password: 'pw-2', last_name: 'Jones', call_rate: '0.5' });
    assert.equal(patch.statusCode, 202, patch.body);
    assert.equal(patch.body, '');
    assert.equal((await me(dave.auth)).statusCode, 401, 'the old password still works');
    assert.equal((await me(basic(dave.username, 'pw-2'))).statusCode, 200);
    const put = await call(t.app, admin.auth, 'PUT', dave.url, { is_admin: true });
    assert.equal(put.statusCode, 202, put.body);
    const read = await call(t.app, admin.auth, 'GET', dave.url);
    assert.deepEqual([read.data.last_name, read.data.call_rate, read.data.is_admin], ['Jones', 0.5, true]);
  });

  test('balance_low_threshold (balance.low events): set, read back, refused when not a number, cleared with null', async () => {
    const dave = await makeUser(t.database.db);
    const set = await call(t.app, admin.auth, 'PATCH', `/rest-api/accounts/${dave.id}/`, { balance_low_threshold: '5.25' });
    assert.equal(set.statusCode, 202, set.body);
    assert.equal((await call(t.app, admin.auth, 'GET', `/rest-api/accounts/${dave.id}/`)).data.balance_low_threshold, 5.25);
    const bad = await call(t.app, admin.auth, 'PATCH', `/rest-api/accounts/${dave.id}/`, { balance_low_threshold: 'lots' });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.ok(bad.data.balance_low_threshold, bad.body);
    assert.equal((await call(t.app, admin.auth, 'GET', `/rest-api/accounts/${dave.id}/`)).data.balance_low_threshold, 5.25);
    const off = await call(t.app, admin.auth, 'PATCH', `/rest-api/accounts/${dave.id}/`, { balance_low_threshold: null });
    assert.equal(off.statusCode, 202, off.body);
    assert.equal((await call(t.app, admin.auth, 'GET', `/rest-api/accounts/${dave.id}/`)).data.balance_low_threshold, null);
  });

  test('a deactivated account is refused at once, by password and by token; reactivated, it works again', async () => {
    const erin = await account();
    const token = await call(t.app, admin.auth, 'POST', '/rest-api/tokens/', { user: erin.id });
    const byToken = `Token ${token.data.key}`;
    assert.equal((await me(erin.auth)).statusCode, 200);
    assert.equal((await me(byToken)).statusCode, 200);
    assert.equal((await call(t.app, admin.auth, 'PATCH', erin.url, { is_active: false })).statusCode, 202);
    for (const auth of [erin.auth, byToken]) {
      const refused = await me(auth);
      assert.equal(refused.statusCode, 401, refused.body);
      assert.deepEqual(refused.data, { detail: 'User inactive or deleted.' });
    }
    assert.equal((await call(t.app, admin.auth, 'GET', erin.url)).data.is_active, false);
    assert.equal((await call(t.app, admin.auth, 'PATCH', erin.url, { is_active: 'True' })).statusCode, 202);
    assert.equal((await me(erin.auth)).statusCode, 200);
    assert.equal((await me(byToken)).statusCode, 200);
  });

  test('an account deactivated by another process (SQL by hand) is refused within a short time', async () => {
    const frank = await account();
    assert.equal((await me(frank.auth)).statusCode, 200); // now cached, and its password verified
    const change = sql`update users set is_active = false where id = ${frank.id}`;
    if (onPostgres) {
      const client = new pg.Client({ connectionString: t.database.url });
      await client.connect();
      const built = new PgDialect().sqlToQuery(change);
      await client.query(built.sql, built.params);
      await client.end();
    } else {
      await db.execute(change); // one session: only the users_changed notification tells the cache
    }
    assert.ok(await eventually(async () => (await me(frank.auth)).statusCode === 401), 'still accepted 3 s after');
  });

  test('DELETE is 405 (deactivate instead); writes to /users/ stay 405', async () => {
    const gina = await account();
    const del = await call(t.app, admin.auth, 'DELETE', gina.url);
    assert.equal(del.statusCode, 405, del.body);
    assert.deepEqual(del.data, { detail: 'Method "DELETE" not allowed.' });
    assert.equal((await call(t.app, admin.auth, 'POST', '/rest-api/users/', { username: 'x', password: 'y' })).statusCode, 405);
    assert.equal((await call(t.app, admin.auth, 'PATCH', `/rest-api/users/${gina.id}/`, { is_active: false })).statusCode, 405);
    assert.equal((await call(t.app, admin.auth, 'DELETE', `/rest-api/users/${gina.id}/`)).statusCode, 405);
    assert.equal((await me(gina.auth)).statusCode, 200, 'gina is untouched');
  });

  test('an admin creates a queue for an account (POST /rest-api/queue/ stays 405)', async () => {
    const res = await call(t.app, admin.auth, 'POST', `/rest-api/accounts/${alice.id}/queues/`, { name: 'Support', strategy: 2 });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.headers.location, `http://localhost:80/rest-api/queue/${res.data.id}/`);
    assert.deepEqual([res.data.name, res.data.strategy, res.data.manager, res.data.user], ['Support', 2, alice.username, `http://localhost:80/rest-api/users/${alice.id}/`]);
    const mine = await call(t.app, alice.auth, 'GET', `/rest-api/queue/${res.data.id}/`);
    assert.equal(mine.statusCode, 200, mine.body);
    const invalid = await call(t.app, admin.auth, 'POST', `/rest-api/accounts/${alice.id}/queues/`, { strategy: 99 });
    assert.equal(invalid.statusCode, 400);
    assert.deepEqual(invalid.data, { name: ['This field is required.'], strategy: ['"99" is not a valid choice.'] });
    const direct = await call(t.app, admin.auth, 'POST', '/rest-api/queue/', { name: 'x' });
    assert.equal(direct.statusCode, 405, direct.body);
  });

  test('the accounts and tokens routes are in the OpenAPI document', async () => {
    const doc = await call(t.app, undefined, 'GET', '/rest-api/openapi.json');
    for (const path of ['/rest-api/accounts/', '/rest-api/accounts/{id}/', '/rest-api/accounts/{id}/queues/', '/rest-api/tokens/', '/rest-api/tokens/{id}/']) {
      assert.ok(doc.data.paths[path], `${path} missing`);
    }
    assert.ok(doc.data.paths['/rest-api/accounts/'].post.requestBody, 'no request body for account create');
  });
});

describe(`the last active admin (${dbLabel})`, () => {
  test('cannot be deactivated or made a regular user; another admin can', async () => {
    const url = `/rest-api/accounts/${only.id}/`;
    const deactivate = await call(own.app, only.auth, 'PATCH', url, { is_active: false });
    assert.equal(deactivate.statusCode, 400);
    assert.deepEqual(deactivate.data, { is_active: ['the last active admin cannot be deactivated or made a regular user'] });
    const demote = await call(own.app, only.auth, 'PATCH', url, { is_admin: false });
    assert.deepEqual(demote.data, { is_admin: ['the last active admin cannot be deactivated or made a regular user'] });
    const second = await call(own.app, only.auth, 'POST', '/rest-api/accounts/', { username: unique('boss'), password: 'x', is_admin: true });
    assert.equal(second.statusCode, 201, second.body);
    assert.equal((await call(own.app, only.auth, 'PATCH', url, { is_admin: false })).statusCode, 202);
  });
});
