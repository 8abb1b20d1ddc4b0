/**
 * Idempotency keys (issue 14 §4): a POST with an Idempotency-Key is done once per user; a retry
 * with the same key and body replays the first answer, another body is a 422, concurrent
 * requests with one key make one record, a 5xx or a bad key keeps nothing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/database.ts';
import { makeUser, unique } from './factories.ts';
import { call, dbLabel, testApp } from './helpers.ts';

const t = await testApp();
const alice = await makeUser(t.database.db);
const bob = await makeUser(t.database.db);

async function phonebooksNamed(name: string): Promise<number> {
  const rows = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from phonebooks where name = ${name}`);
  return Number(rows[0].n);
}

const post = (auth: string, body: unknown, key?: string) =>
  call(t.app, auth, 'POST', '/rest-api/phonebook/', body, key === undefined ? {} : { 'idempotency-key': key });

describe(`idempotency keys (${dbLabel})`, () => {
  test('a retry with the same key and body replays the first answer and creates nothing', async () => {
    const name = unique('book');
    const key = unique('key');
    const first = await post(alice.auth, { name }, key);
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const again = await post(alice.auth, { name }, key);
    assert.equal(again.statusCode, 201);
    assert.equal(again.body, first.body);
    assert.equal(again.headers.location, first.headers.location);
    assert.match(String(again.headers['content-type']), /application\/json/);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(await phonebooksNamed(name), 1);
  });

  test('the same key with another body is a 422 and changes nothing', async () => {
    const key = unique('key');
    const name = unique('book');
    assert.equal((await post(alice.auth, { name }, key)).statusCode, 201);
    const other = unique('book');
    const refused = await post(alice.auth, { name: other }, key);
    assert.equal(refused.statusCode, 422, refused.body);
    assert.match(refused.data.detail, /different request/);
    assert.equal(await phonebooksNamed(other), 0);
  });

  test('concurrent requests with one key make one record and all get its answer', async () => {
    const name = unique('book');
    const key = unique('key');
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(alice.auth, { name }, key)));
    assert.deepEqual(
      answers.map((a) => a.statusCode),
      answers.map(() => 201),
      answers.map((a) => a.body).join(' | '),
    );
    assert.equal(new Set(answers.map((a) => a.body)).size, 1);
    assert.equal(answers.filter((a) => a.headers['idempotent-replayed'] === 'true').length, 5);
    assert.equal(await phonebooksNamed(name), 1);
  });

  test('keys are per user: another user with the same key gets a record of their own', async () => {
    const key = unique('key');
    const a = await post(alice.auth, { name: unique('book') }, key);
    const b = await post(bob.auth, { name: unique('book') }, key);
    assert.equal(a.statusCode, 201);
    assert.equal(b.statusCode, 201, b.body);
    assert.equal(b.headers['idempotent-replayed'], undefined);
    assert.notEqual(a.data.url, b.data.url);
  });

  test('a 4xx answer is kept and replayed too', async () => {
    const key = unique('key');
    const first = await post(alice.auth, { description: 'no name' }, key);
    assert.equal(first.statusCode, 400);
    const again = await post(alice.auth, { description: 'no name' }, key);
    assert.equal(again.statusCode, 400);
    assert.equal(again.body, first.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');
  });

  test('a malformed key is a 400 and nothing is created', async () => {
    const name = unique('book');
    for (const key of ['x'.repeat(256), 'with space', 'é']) {
      const refused = await post(alice.auth, { name }, key);
      assert.equal(refused.statusCode, 400, `${key}: ${refused.body}`);
      assert.match(refused.data.detail, /Idempotency-Key/);
    }
    assert.equal(await phonebooksNamed(name), 0);
  });

  test('without a key, each POST is done', async () => {
    const name = unique('book');
    assert.equal((await post(alice.auth, { name })).statusCode, 201);
    assert.equal((await post(alice.auth, { name })).statusCode, 201);
    assert.equal(await phonebooksNamed(name), 2);
  });

  test('a key older than 24 hours is forgotten: the request is done again', async () => {
    const name = unique('book');
    const key = unique('key');
    assert.equal((await post(alice.auth, { name }, key)).statusCode, 201);
    await queryRows(t.database.db, sql`update idempotency_keys set created = now() - interval '25 hours' where key = ${key}`);
    const again = await post(alice.auth, { name }, key);
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], undefined);
    assert.equal(await phonebooksNamed(name), 2);
  });

  test('a key whose first request was cut off (no answer kept) is a 409, never a second execution', async () => {
    const name = unique('book');
    const key = unique('key');
    assert.equal((await post(alice.auth, { name }, key)).statusCode, 201);
    // As a process killed after its commit leaves it: claimed, no answer.
    await queryRows(
      t.database.db,
      sql`update idempotency_keys set status = null, body = null, created = now() - interval '10 minutes' where key = ${key}`,
    );
    const again = await post(alice.auth, { name }, key);
    assert.equal(again.statusCode, 409, again.body);
    assert.match(again.data.detail, /interrupted/);
    assert.equal(await phonebooksNamed(name), 1);
  });
});
