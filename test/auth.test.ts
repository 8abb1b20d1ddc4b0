/**
 * Authentication and visibility (contract §3): Basic and Token credentials, hashes at rest, the
 * credential cache, throttling of failed logins, and owner scoping of records and links.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eq, type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { queryRows } from '../src/db/database.ts';
import { LISTEN_APPLICATION_NAME } from '../src/db/listen-postgres.ts';
import { apiTokens, users } from '../src/db/schema.ts';
import { hashSecret } from '../src/http/passwords.ts';
import { changeUser, createToken } from '../src/resources/users/users.service.ts';
import { makeUser, unique } from './factories.ts';
import { basic, call, dbLabel, eventually, idOf, onPostgres, testApp } from './helpers.ts';

const t = await testApp();
const admin = await makeUser(t.database.db, { admin: true });
const alice = await makeUser(t.database.db);
const bob = await makeUser(t.database.db);
const origin = 'http://localhost:80';

async function phonebookOf(auth: string, body: Record<string, unknown> = {}) {
  const res = await call(t.app, auth, 'POST', '/rest-api/phonebook/', { name: unique('pb'), ...body });
  assert.equal(res.statusCode, 201, res.body);
  return res.data as { url: string; user: string };
}

describe(`authentication (${dbLabel})`, () => {
  test('HTTP Basic with the right password authenticates', async () => {
    const res = await call(t.app, alice.auth, 'GET', '/rest-api/users/');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.data.results[0].username, alice.username);
  });

  test('a wrong password, an unknown user or a malformed header answers 401', async () => {
    const cases = [
      basic(alice.username, 'not-the-password'),
      basic(unique('ghost'), 'whatever'),
      `Basic ${Buffer.from('no-colon').toString('base64')}`,
      'Bearer abc',
    ];
    for (const auth of cases) {
      const res = await call(t.app, auth, 'GET', '/rest-api/users/');
      assert.equal(res.statusCode, 401, `${auth}: ${res.body}`);
      assert.equal(res.headers['www-authenticate'], 'Basic realm="api"');
      assert.equal(typeof res.data.detail, 'string');
    }
  });

  test('Authorization: Token <key> authenticates as the token owner', async () => {
    const key = await createToken(t.database.db, bob.username);
    const res = await call(t.app, `Token ${key}`, 'GET', '/rest-api/users/');
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.data.results.map((u: { username: string }) => u.username), [bob.username]);
  });

  test('an unknown or altered token answers 401', async () => {
    const key = await createToken(t.database.db, bob.username);
    const [prefix] = key.split('.');
    for (const auth of ['Token nonsense', `Token ${prefix}.wrongsecret`, `Token ${key}x`]) {
      const res = await call(t.app, auth, 'GET', '/rest-api/users/');
      assert.equal(res.statusCode, 401, `${auth}: ${res.body}`);
      assert.deepEqual(res.data, { detail: 'Invalid token.' });
    }
  });

  test('passwords and tokens are stored only as scrypt hashes', async () => {
    const key = await createToken(t.database.db, alice.username);
    const [user] = await t.database.db.select().from(users).where(eq(users.id, alice.id));
    assert.match(user.password_hash, /^scrypt\$/);
    assert.ok(!JSON.stringify(user).includes(alice.password), 'the password appears in the users row');
    const tokens = await t.database.db.select().from(apiTokens).where(eq(apiTokens.user_id, alice.id));
    assert.equal(tokens.length, 1);
    assert.match(tokens[0].key_hash, /^scrypt\$/);
    const secret = key.split('.')[1];
    assert.ok(!JSON.stringify(tokens).includes(secret), 'the token secret appears in the api_tokens row');
  });

  test('a changed password makes the old one fail at once, though it was cached', async () => {
    const carol = await makeUser(t.database.db);
    assert.equal((await call(t.app, carol.auth, 'GET', '/rest-api/users/')).statusCode, 200);
    assert.equal((await call(t.app, carol.auth, 'GET', '/rest-api/users/')).statusCode, 200);
    await changeUser(t.database.db, carol.username, { password: 'a-new-password' });
    const old = await call(t.app, carol.auth, 'GET', '/rest-api/users/');
    assert.equal(old.statusCode, 401, old.body);
    const fresh = await call(t.app, basic(carol.username, 'a-new-password'), 'GET', '/rest-api/users/');
    assert.equal(fresh.statusCode, 200, fresh.body);
  });
});

/**
 * SQL run as another process would: on PostgreSQL on a connection of its own, on PGlite (one
 * session) straight on the database; either way not through the app, so the only news of the
 * change is the users_changed notification.
 */
async function elsewhere(query: SQL): Promise<void> {
  if (!onPostgres) {
    await t.database.db.execute(query);
    return;
  }
  const client = new pg.Client({ connectionString: t.database.url });
  await client.connect();
  try {
    const built = new PgDialect().sqlToQuery(query);
    await client.query(built.sql, built.params);
  } finally {
    await client.end();
  }
}

describe(`the user cache is kept current (${dbLabel})`, () => {
  const detail = (user: { id: number }, auth: string) => call(t.app, auth, 'GET', `/rest-api/users/${user.id}/`);

  test('a password changed by another connection is refused within a short time', async () => {
    const erin = await makeUser(t.database.db);
    for (let i = 0; i < 3; i++) assert.equal((await detail(erin, erin.auth)).statusCode, 200);
    const hash = await hashSecret('changed-elsewhere');
    await elsewhere(sql`update users set password_hash = ${hash} where id = ${erin.id}`);
    const refused = await eventually(async () => (await detail(erin, erin.auth)).statusCode === 401);
    assert.ok(refused, 'the old password is still accepted 3 s after the change');
    const fresh = await detail(erin, basic(erin.username, 'changed-elsewhere'));
    assert.equal(fresh.statusCode, 200, fresh.body);
  });

  test('a balance and a name changed by another connection show within a short time', async () => {
    const frank = await makeUser(t.database.db, { balance: '3' });
    assert.equal((await detail(frank, frank.auth)).data.balance, 3);
    await elsewhere(sql`update users set balance = 41.5, first_name = 'Frank' where id = ${frank.id}`);
    let last: { balance?: number; first_name?: string } = {};
    const seen = await eventually(async () => {
      last = (await detail(frank, admin.auth)).data;
      return last.balance === 41.5;
    });
    assert.ok(seen, `the old balance is still shown 3 s after the change: ${JSON.stringify(last)}`);
    assert.equal(last.first_name, 'Frank');
    assert.equal((await detail(frank, frank.auth)).data.balance, 41.5);
  });

  test('a deleted user is refused and not found within a short time', async () => {
    const gina = await makeUser(t.database.db);
    assert.equal((await detail(gina, gina.auth)).statusCode, 200);
    assert.equal((await detail(gina, admin.auth)).statusCode, 200);
    await elsewhere(sql`delete from users where id = ${gina.id}`);
    assert.ok(await eventually(async () => (await detail(gina, admin.auth)).statusCode === 404), 'still found 3 s after the delete');
    assert.equal((await detail(gina, gina.auth)).statusCode, 401);
  });

  if (onPostgres) {
    test('changes made while the LISTEN connection was lost are not hidden by the cache', async () => {
      const listeners = sql`select pid from pg_stat_activity
        where datname = current_database() and application_name = ${LISTEN_APPLICATION_NAME} and pid <> pg_backend_pid()`;
      const hal = await makeUser(t.database.db, { balance: '1' });
      assert.equal((await detail(hal, hal.auth)).data.balance, 1);
      // Cut the cache's connection, and change the row while it is away.
      await elsewhere(sql`select pg_terminate_backend(pid) from (${listeners}) l`);
      await elsewhere(sql`update users set balance = 2 where id = ${hal.id}`);
      assert.ok(await eventually(async () => (await detail(hal, admin.auth)).data.balance === 2), 'balance 1 still shown');
      // It listens again: a later change is seen too.
      const count = async () => (await queryRows(t.database.db, listeners)).length;
      assert.ok(await eventually(async () => (await count()) > 0, 10_000), 'the cache did not LISTEN again');
      assert.equal((await detail(hal, hal.auth)).data.balance, 2);
      await elsewhere(sql`update users set balance = 3 where id = ${hal.id}`);
      assert.ok(await eventually(async () => (await detail(hal, admin.auth)).data.balance === 3), 'balance 2 still shown');
    });
  }
});

describe(`throttling of failed logins (${dbLabel})`, async () => {
  const guarded = await testApp({ database: t.database, auth: { throttle: { address: { threshold: 3 } } } });
  const dave = await makeUser(t.database.db);
  const wrong = basic(dave.username, 'wrong');
  /** A GET of the users list from `address` (each test uses its own client address). */
  const from = async (address: string, auth: string) => {
    const res = await guarded.app.inject({ method: 'GET', url: '/rest-api/users/', remoteAddress: address, headers: { authorization: auth } });
    return Object.assign(res, { data: JSON.parse(res.body) });
  };

  test('repeated failures for a user from one address answer 429 with Retry-After, even to their good login', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await from('10.0.0.1', wrong);
      assert.equal(res.statusCode, 401, `attempt ${i + 1}: ${res.body}`);
    }
    const blocked = await from('10.0.0.1', wrong);
    assert.equal(blocked.statusCode, 429, blocked.body);
    assert.match(String(blocked.headers['retry-after']), /^\d+$/);
    assert.ok(Number(blocked.headers['retry-after']) > 0);
    assert.equal(typeof blocked.data.detail, 'string');
    const good = await from('10.0.0.1', dave.auth);
    assert.equal(good.statusCode, 429, good.body);
    const elsewhere = await from('10.0.0.2', dave.auth);
    assert.equal(elsewhere.statusCode, 200, `another address is not blocked: ${elsewhere.body}`);
  });

  test('failures below the limit are forgotten after a good login', async () => {
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 2; i++) assert.equal((await from('10.0.0.3', wrong)).statusCode, 401);
      const ok = await from('10.0.0.3', dave.auth);
      assert.equal(ok.statusCode, 200, `round ${round}: ${ok.body}`);
    }
  });
});

describe(`owner scoping (${dbLabel})`, () => {
  test("another user's record answers 404 to GET, PATCH and DELETE, and stays", async () => {
    const book = await phonebookOf(alice.auth);
    const url = `/rest-api/phonebook/${idOf(book.url)}/`;
    for (const method of ['GET', 'PATCH', 'PUT', 'DELETE'] as const) {
      const res = await call(t.app, bob.auth, method, url, method === 'GET' || method === 'DELETE' ? undefined : { name: 'stolen' });
      assert.equal(res.statusCode, 404, `${method}: ${res.body}`);
      assert.deepEqual(res.data, { detail: 'Not found.' });
    }
    const still = await call(t.app, alice.auth, 'GET', url);
    assert.equal(still.statusCode, 200, still.body);
    assert.notEqual(still.data.name, 'stolen');
  });

  test('a user lists only their own records; an admin lists everyone’s', async () => {
    const mine = await phonebookOf(alice.auth);
    const theirs = await phonebookOf(bob.auth);
    const urls = async (auth: string) =>
      (await call(t.app, auth, 'GET', '/rest-api/phonebook/?page_size=1000')).data.results.map((r: { url: string }) => r.url);
    const aliceSees = await urls(alice.auth);
    assert.ok(aliceSees.includes(mine.url));
    assert.ok(!aliceSees.includes(theirs.url), 'alice sees a phonebook of bob');
    const adminSees = await urls(admin.auth);
    assert.ok(adminSees.includes(mine.url) && adminSees.includes(theirs.url), 'admin misses a phonebook');
  });

  test("an admin reads and changes another user's record", async () => {
    const book = await phonebookOf(alice.auth);
    const url = `/rest-api/phonebook/${idOf(book.url)}/`;
    assert.equal((await call(t.app, admin.auth, 'GET', url)).statusCode, 200);
    const patched = await call(t.app, admin.auth, 'PATCH', url, { name: 'renamed by admin' });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal((await call(t.app, alice.auth, 'GET', url)).data.name, 'renamed by admin');
  });

  test('`user` on create: an admin may name anyone; omitted, it is the caller', async () => {
    const forAlice = await phonebookOf(admin.auth, { user: `${origin}/rest-api/users/${alice.id}/` });
    assert.equal(forAlice.user, `${origin}/rest-api/users/${alice.id}/`);
    assert.equal((await call(t.app, alice.auth, 'GET', new URL(forAlice.url).pathname)).statusCode, 200);
    const own = await phonebookOf(bob.auth);
    assert.equal(own.user, `${origin}/rest-api/users/${bob.id}/`);
    const self = await phonebookOf(bob.auth, { user: bob.id });
    assert.equal(self.user, `${origin}/rest-api/users/${bob.id}/`);
  });

  test('a non-admin naming another user answers 400 "does not exist"', async () => {
    for (const user of [`/rest-api/users/${alice.id}/`, alice.id, `/rest-api/users/${admin.id}/`]) {
      const res = await call(t.app, bob.auth, 'POST', '/rest-api/phonebook/', { name: 'x', user });
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(res.data, { user: ['Invalid hyperlink - Object does not exist.'] });
    }
  });
});
