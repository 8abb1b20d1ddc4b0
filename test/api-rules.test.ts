/**
 * The API's common wire rules (contract §1, §2): paths, JSON only, the API root, health, the
 * OpenAPI document and docs, links out and in, the list envelope, error bodies and request ids.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.ts';
import { type Database, openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { conflict } from '../src/http/errors.ts';
import { makeUser, unique } from './factories.ts';
import { call, dbLabel, freshPostgresDatabase, idOf, onPostgres, testApp, testConfig, testLogger } from './helpers.ts';

const t = await testApp();
const admin = await makeUser(t.database.db, { admin: true });
const alice = await makeUser(t.database.db);
const bob = await makeUser(t.database.db);
const origin = 'http://localhost:80';

/** A database of its own, closed by the test that uses it (to provoke 500 and 503). */
async function closableDatabase(): Promise<Database> {
  if (!onPostgres) return openDatabase({ dataDir: 'memory' });
  const { url, drop } = await freshPostgresDatabase();
  after(drop);
  return openDatabase({ url, poolSize: 1 });
}

function multipartBody(boundary: string): string {
  return [`--${boundary}`, 'Content-Disposition: form-data; name="name"', '', 'x', `--${boundary}--`, ''].join('\r\n');
}

describe(`wire rules (${dbLabel})`, () => {
  test('every path answers with and without its trailing slash', async () => {
    for (const url of ['/rest-api/users/', '/rest-api/users', `/rest-api/users/${alice.id}/`, `/rest-api/users/${alice.id}`]) {
      const res = await call(t.app, alice.auth, 'GET', url);
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    }
    const created = await call(t.app, alice.auth, 'POST', '/rest-api/phonebook', { name: 'no slash' });
    assert.equal(created.statusCode, 201, created.body);
  });

  test('a write with a non-JSON body answers 415 with a detail', async () => {
    const boundary = 'xxBOUNDARYxx';
    const cases: Array<[string, string]> = [
      ['text/plain', 'name=x'],
      ['application/x-www-form-urlencoded', 'name=x'],
      [`multipart/form-data; boundary=${boundary}`, multipartBody(boundary)],
    ];
    for (const [type, body] of cases) {
      const res = await call(t.app, alice.auth, 'POST', '/rest-api/phonebook/', body, { 'content-type': type });
      assert.equal(res.statusCode, 415, `${type}: ${res.body}`);
      assert.equal(typeof res.data.detail, 'string', res.body);
      assert.deepEqual(Object.keys(res.data), ['detail']);
    }
  });

  test('a JSON body over 1 MB answers 413; malformed JSON answers 400', async () => {
    const big = await call(t.app, alice.auth, 'POST', '/rest-api/phonebook/', { name: 'big', description: 'x'.repeat(1024 * 1024) });
    assert.equal(big.statusCode, 413, big.body);
    assert.deepEqual(Object.keys(big.data), ['detail']);
    // Just under the limit the body is read (and judged by its fields: the description is too long).
    const under = await call(t.app, alice.auth, 'POST', '/rest-api/phonebook/', { name: 'big', description: 'x'.repeat(1000 * 1000) });
    assert.equal(under.statusCode, 400, under.body.slice(0, 300));
    assert.ok(under.data.description, under.body.slice(0, 300));
    const bad = await call(t.app, alice.auth, 'POST', '/rest-api/phonebook/', '{"name": ');
    assert.equal(bad.statusCode, 400, bad.body);
    assert.match(bad.data.detail, /JSON parse error/);
  });

  test('responses are JSON with charset utf-8', async () => {
    const res = await call(t.app, alice.auth, 'GET', '/rest-api/users/');
    assert.match(String(res.headers['content-type']), /^application\/json; charset=utf-8/);
  });

  test('the API root lists every list URL, absolute, and needs credentials', async () => {
    const res = await call(t.app, alice.auth, 'GET', '/rest-api/');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.data.users, `${origin}/rest-api/users/`);
    assert.equal(res.data.payment, `${origin}/rest-api/payment/`);
    assert.equal(res.data.phonebook, `${origin}/rest-api/phonebook/`);
    assert.equal((await call(t.app, undefined, 'GET', '/rest-api/')).statusCode, 401);
    assert.equal((await call(t.app, alice.auth, 'GET', '/rest-api')).statusCode, 200);
  });

  test('/healthz answers 200 {"status":"ok"} without credentials', async () => {
    const res = await call(t.app, undefined, 'GET', '/healthz');
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.data, { status: 'ok' });
  });

  test('/rest-api/openapi.json is OpenAPI 3 with the resources, without credentials', async () => {
    const res = await call(t.app, undefined, 'GET', '/rest-api/openapi.json');
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.data.openapi, /^3\./);
    const paths = Object.keys(res.data.paths);
    for (const name of ['users', 'payment', 'phonebook']) {
      assert.ok(paths.some((p) => p.startsWith(`/rest-api/${name}/`)), `${name} missing from ${paths.join(', ')}`);
    }
  });

  test('/rest-api/docs serves HTML without credentials', async () => {
    let res = await t.app.inject({ method: 'GET', url: '/rest-api/docs' });
    if (res.statusCode >= 300 && res.statusCode < 400) {
      res = await t.app.inject({ method: 'GET', url: new URL(String(res.headers.location), origin).pathname });
    }
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /text\/html/);
    assert.match(res.body, /<html/i);
  });

  test('links out are absolute, built from the Host header', async () => {
    const res = await call(t.app, alice.auth, 'GET', `/rest-api/users/${alice.id}/`, undefined, { host: 'dialer.example:8443' });
    assert.equal(res.data.url, `http://dialer.example:8443/rest-api/users/${alice.id}/`);
  });

  test('X-Forwarded-Proto/Host are ignored unless the proxy is trusted', async () => {
    const forwarded = { host: 'inner:8000', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com' };
    const untrusted = await call(t.app, alice.auth, 'GET', `/rest-api/users/${alice.id}/`, undefined, forwarded);
    assert.equal(untrusted.data.url, `http://inner:8000/rest-api/users/${alice.id}/`);

    const proxied = await testApp({ database: t.database, config: testConfig({ trustProxy: true }) });
    const trusted = await call(proxied.app, alice.auth, 'GET', `/rest-api/users/${alice.id}/`, undefined, forwarded);
    assert.equal(trusted.statusCode, 200, trusted.body);
    assert.equal(trusted.data.url, `https://api.example.com/rest-api/users/${alice.id}/`);
  });

  test('a link in may be an absolute URL, a path or a bare id (number or string)', async () => {
    const forms = [`https://elsewhere.example/rest-api/users/${alice.id}/`, `/rest-api/users/${alice.id}/`, `/rest-api/users/${alice.id}`, alice.id, String(alice.id)];
    for (const user of forms) {
      const res = await call(t.app, admin.auth, 'POST', '/rest-api/phonebook/', { name: unique('pb'), user });
      assert.equal(res.statusCode, 201, `${JSON.stringify(user)}: ${res.body}`);
      assert.equal(res.data.user, `${origin}/rest-api/users/${alice.id}/`);
    }
  });

  test('"" or null on a nullable link means none (the owner defaults to the caller)', async () => {
    for (const user of ['', null]) {
      const res = await call(t.app, admin.auth, 'POST', '/rest-api/phonebook/', { name: unique('pb'), user });
      assert.equal(res.statusCode, 201, `${JSON.stringify(user)}: ${res.body}`);
      assert.equal(res.data.user, `${origin}/rest-api/users/${admin.id}/`);
    }
  });

  test('a link to the wrong resource or to no record answers 400 with the contract messages', async () => {
    const wrong = await call(t.app, admin.auth, 'POST', '/rest-api/phonebook/', { name: 'w', user: `/rest-api/phonebook/${alice.id}/` });
    assert.equal(wrong.statusCode, 400, wrong.body);
    assert.deepEqual(wrong.data, { user: ['Invalid hyperlink - Incorrect URL match.'] });
    for (const user of [`${origin}/rest-api/users/987654/`, 987654, '987654']) {
      const res = await call(t.app, admin.auth, 'POST', '/rest-api/payment/', { amount: '1', user });
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(res.data, { user: ['Invalid hyperlink - Object does not exist.'] });
    }
  });

  test("a link to another user's record is 'does not exist'", async () => {
    const res = await call(t.app, alice.auth, 'POST', '/rest-api/phonebook/', { name: 'x', user: `/rest-api/users/${bob.id}/` });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.data, { user: ['Invalid hyperlink - Object does not exist.'] });
  });
});

describe(`the list envelope (${dbLabel})`, async () => {
  const owner = await makeUser(t.database.db);
  for (let i = 0; i < 12; i++) {
    const res = await call(t.app, owner.auth, 'POST', '/rest-api/phonebook/', { name: `book ${i}` });
    assert.equal(res.statusCode, 201, res.body);
  }

  test('lists 10 per page by default, in ascending id, with absolute next', async () => {
    const res = await call(t.app, owner.auth, 'GET', '/rest-api/phonebook/');
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(Object.keys(res.data).sort(), ['count', 'next', 'previous', 'results']);
    assert.equal(res.data.count, 12);
    assert.equal(res.data.results.length, 10);
    assert.equal(res.data.next, `${origin}/rest-api/phonebook/?page=2`);
    assert.equal(res.data.previous, null);
    const ids = res.data.results.map((r: { url: string }) => idOf(r.url));
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
    assert.deepEqual(res.data.results.map((r: { name: string }) => r.name).slice(0, 3), ['book 0', 'book 1', 'book 2']);
  });

  test('next and previous keep the other query parameters', async () => {
    const res = await call(t.app, owner.auth, 'GET', '/rest-api/phonebook/?format=json&page_size=5&page=2');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.data.results.length, 5);
    assert.equal(res.data.next, `${origin}/rest-api/phonebook/?format=json&page_size=5&page=3`);
    assert.equal(res.data.previous, `${origin}/rest-api/phonebook/?format=json&page_size=5`);
    const last = await call(t.app, owner.auth, 'GET', '/rest-api/phonebook/?page_size=5&page=3');
    assert.equal(last.data.results.length, 2);
    assert.equal(last.data.next, null);
    assert.equal(last.data.previous, `${origin}/rest-api/phonebook/?page_size=5&page=2`);
  });

  test('a page past the end, page=0 or page=abc answers 404 "Invalid page."', async () => {
    for (const page of ['3', '0', 'abc', '-1', '1.5']) {
      const res = await call(t.app, owner.auth, 'GET', `/rest-api/phonebook/?page=${page}`);
      assert.equal(res.statusCode, 404, `page=${page}: ${res.body}`);
      assert.deepEqual(res.data, { detail: 'Invalid page.' });
    }
  });

  test('page_size above 1000 is read as 1000', async () => {
    const many = await makeUser(t.database.db);
    await t.database.db.execute(
      sql`insert into phonebooks (name, user_id) select 'bulk ' || n, ${many.id} from generate_series(1, 1001) as n`,
    );
    const res = await call(t.app, many.auth, 'GET', '/rest-api/phonebook/?page_size=5000');
    assert.equal(res.statusCode, 200, res.body.slice(0, 500));
    assert.equal(res.data.count, 1001);
    assert.equal(res.data.results.length, 1000);
    assert.equal(res.data.next, `${origin}/rest-api/phonebook/?page_size=5000&page=2`);
  });
});

describe(`error bodies (${dbLabel})`, () => {
  test('401 without or with bad credentials, with WWW-Authenticate: Basic realm="api"', async () => {
    for (const auth of [undefined, 'Basic ' + Buffer.from(`${alice.username}:wrong`).toString('base64')]) {
      const res = await call(t.app, auth, 'GET', '/rest-api/users/');
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(typeof res.data.detail, 'string');
      assert.equal(res.headers['www-authenticate'], 'Basic realm="api"');
    }
  });

  test('400, 403, 404 and 405 carry the DRF bodies', async () => {
    const missing = await call(t.app, alice.auth, 'POST', '/rest-api/phonebook/', {});
    assert.equal(missing.statusCode, 400, missing.body);
    assert.deepEqual(missing.data, { name: ['This field is required.'] });
    const forbidden = await call(t.app, alice.auth, 'GET', '/rest-api/payment/');
    assert.equal(forbidden.statusCode, 403, forbidden.body);
    assert.deepEqual(forbidden.data, { detail: 'You do not have permission to perform this action.' });
    for (const url of ['/rest-api/phonebook/99999999/', '/rest-api/phonebook/abc/', '/rest-api/nothing-here/']) {
      const res = await call(t.app, alice.auth, 'GET', url);
      assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
      assert.deepEqual(res.data, { detail: 'Not found.' });
    }
    const notAllowed = await call(t.app, alice.auth, 'DELETE', '/rest-api/phonebook/');
    assert.equal(notAllowed.statusCode, 405, notAllowed.body);
    assert.deepEqual(notAllowed.data, { detail: 'Method "DELETE" not allowed.' });
  });

  test('responses carry an x-request-id, and honour the one the request gives', async () => {
    const res = await call(t.app, alice.auth, 'GET', '/rest-api/users/');
    assert.match(String(res.headers['x-request-id']), /^[\w-]{8,}$/);
    const given = await call(t.app, undefined, 'GET', '/healthz', undefined, { 'x-request-id': 'trace-abc-123' });
    assert.equal(given.headers['x-request-id'], 'trace-abc-123');
  });

  test('with the database gone, a request answers 500 with no stack, and /healthz 503', async () => {
    const database = await closableDatabase();
    await migrate(database);
    const app = await buildApp({ logger: testLogger, database, config: testConfig() });
    after(() => app.close());
    const user = await makeUser(database.db);
    assert.equal((await call(app, user.auth, 'GET', '/rest-api/phonebook/')).statusCode, 200);
    await database.close();
    const res = await call(app, user.auth, 'GET', '/rest-api/phonebook/');
    assert.equal(res.statusCode, 500, res.body);
    assert.deepEqual(res.data, { detail: 'Internal server error.' });
    const health = await call(app, undefined, 'GET', '/healthz');
    assert.equal(health.statusCode, 503, health.body);
  });

  test('the error handler hides thrown errors and maps conflicts and constraint codes', async () => {
    const app = await buildApp({ logger: testLogger, database: t.database, config: testConfig() });
    after(() => app.close());
    app.get('/boom', async () => {
      throw new Error('secret detail at /srv/app.ts:12');
    });
    app.get('/conflict', async () => {
      throw conflict('The campaign is running.');
    });
    app.get('/fk', async () => {
      throw Object.assign(new Error('fk'), { code: '23503' });
    });
    // Drizzle wraps the driver's error; the code is on its cause.
    app.get('/unique', async () => {
      throw Object.assign(new Error('Failed query: insert …'), { cause: Object.assign(new Error('dup'), { code: '23505' }) });
    });
    const boom = await call(app, undefined, 'GET', '/boom');
    assert.equal(boom.statusCode, 500);
    assert.equal(boom.body, JSON.stringify({ detail: 'Internal server error.' }));
    const clash = await call(app, undefined, 'GET', '/conflict');
    assert.equal(clash.statusCode, 409, clash.body);
    assert.deepEqual(clash.data, { detail: 'The campaign is running.' });
    const fk = await call(app, undefined, 'GET', '/fk');
    assert.equal(fk.statusCode, 409, fk.body);
    assert.equal(typeof fk.data.detail, 'string');
    const duplicate = await call(app, undefined, 'GET', '/unique');
    assert.equal(duplicate.statusCode, 400, duplicate.body);
    assert.ok(Array.isArray(duplicate.data.non_field_errors), duplicate.body);
  });
});
