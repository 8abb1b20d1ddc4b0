import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { makeUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, onPostgres, testApp } from '../../../test/helpers.ts';
import { type Database, openDatabase } from '../../db/database.ts';
import { migrate } from '../../db/migrate.ts';
import { QueueStrategy } from '../../db/schema.ts';
import { findQueue, insertQueue } from './queue.repository.ts';
import { withoutUsingLine } from '../../../test/cli-process.ts';

const t = await testApp();
const db = t.database.db;
const admin = await makeUser(db, { admin: true });
const alice = await makeUser(db);
const bob = await makeUser(db);

const makeQueue = (userId: number, name = unique('queue')) => insertQueue(db, { name, user_id: userId });

describe(`queue (${dbLabel})`, () => {
  test('a queue reads with the defaults, its manager and its owner link', async () => {
    const queue = await makeQueue(alice.id, 'Support');
    const res = await call(t.app, alice.auth, 'GET', `/rest-api/queue/${queue.id}/`);
    assert.equal(res.statusCode, 200, res.body);
    const { created_date, updated_date, ...rest } = res.data;
    assert.deepEqual(rest, {
      id: queue.id,
      manager: alice.username,
      url: `http://localhost:80/rest-api/queue/${queue.id}/`,
      user: `http://localhost:80/rest-api/users/${alice.id}/`,
      name: 'Support',
      strategy: QueueStrategy.AgentWithLeastTalkTime,
      moh_sound: '',
      record_template: '',
      time_base_score: 'queue',
      tier_rules_apply: false,
      tier_rule_wait_second: 300,
      tier_rule_wait_multiply_level: true,
      tier_rule_no_agent_no_wait: false,
      discard_abandoned_after: 14400,
      abandoned_resume_allowed: true,
      max_wait_time: 0,
      max_wait_time_with_no_agent: 120,
      max_wait_time_with_no_agent_time_reached: 5,
    });
    assert.match(created_date, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.match(updated_date, /Z$/);
  });

  test("the list shows a user's own queues only; an admin sees every queue", async () => {
    const mine = await makeQueue(alice.id);
    const theirs = await makeQueue(bob.id);
    const list = await call(t.app, alice.auth, 'GET', '/rest-api/queue/?page_size=1000');
    assert.equal(list.statusCode, 200, list.body);
    const ids = list.data.results.map((q: { id: number }) => q.id);
    assert.ok(ids.includes(mine.id) && !ids.includes(theirs.id), list.body);
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/queue/${theirs.id}/`)).statusCode, 404);
    const all = await call(t.app, admin.auth, 'GET', '/rest-api/queue/?page_size=1000');
    const allIds = all.data.results.map((q: { id: number }) => q.id);
    assert.ok(allIds.includes(mine.id) && allIds.includes(theirs.id), all.body);
  });

  test('PUT and PATCH update a queue and answer 202 with an empty body', async () => {
    const queue = await makeQueue(alice.id);
    const put = await call(t.app, alice.auth, 'PUT', `/rest-api/queue/${queue.id}/`, { name: 'Renamed' });
    assert.equal(put.statusCode, 202, put.body);
    assert.equal(put.body, '');
    const patch = await call(t.app, alice.auth, 'PATCH', `/rest-api/queue/${queue.id}`, {
      strategy: '1',
      time_base_score: 'system',
      tier_rules_apply: 'True',
      max_wait_time: 60,
    });
    assert.equal(patch.statusCode, 202, patch.body);
    const read = await call(t.app, alice.auth, 'GET', `/rest-api/queue/${queue.id}/`);
    assert.equal(read.data.name, 'Renamed');
    assert.equal(read.data.strategy, QueueStrategy.RingAll);
    assert.equal(read.data.time_base_score, 'system');
    assert.equal(read.data.tier_rules_apply, true);
    assert.equal(read.data.max_wait_time, 60);
  });

  test('an update with bad values answers 400 listing every field', async () => {
    const queue = await makeQueue(alice.id);
    const res = await call(t.app, alice.auth, 'PATCH', `/rest-api/queue/${queue.id}/`, {
      strategy: 10,
      time_base_score: 'member',
      tier_rule_wait_second: -1,
      abandoned_resume_allowed: 'maybe',
      user: bob.id,
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(Object.keys(res.data).sort(), [
      'abandoned_resume_allowed',
      'strategy',
      'tier_rule_wait_second',
      'time_base_score',
      'user',
    ]);
    assert.deepEqual(res.data.user, ['Invalid hyperlink - Object does not exist.']);
  });

  test("another user's queue cannot be updated (404)", async () => {
    const theirs = await makeQueue(bob.id);
    const res = await call(t.app, alice.auth, 'PUT', `/rest-api/queue/${theirs.id}/`, { name: 'Mine now' });
    assert.equal(res.statusCode, 404, res.body);
  });

  test('POST and DELETE answer 405: queues are not created or deleted through the API', async () => {
    const post = await call(t.app, admin.auth, 'POST', '/rest-api/queue/', { name: 'New' });
    assert.equal(post.statusCode, 405, post.body);
    assert.deepEqual(post.data, { detail: 'Method "POST" not allowed.' });
    const queue = await makeQueue(alice.id);
    const del = await call(t.app, alice.auth, 'DELETE', `/rest-api/queue/${queue.id}/`);
    assert.equal(del.statusCode, 405, del.body);
  });

  test('requests without credentials answer 401', async () => {
    assert.equal((await call(t.app, undefined, 'GET', '/rest-api/queue/')).statusCode, 401);
  });
});

describe(`campaign-dialer queue create (${dbLabel})`, async () => {
  const run = promisify(execFile);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-queue-cli-'));
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  // The command's database: this file's PostgreSQL database, or a PGlite one under DATA_DIR
  // (PGlite allows one process at a time, so it is closed while the command runs).
  const env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: onPostgres ? t.database.url : '' };
  const withCommandDatabase = async <T>(work: (database: Database) => Promise<T>): Promise<T> => {
    if (onPostgres) return work(t.database);
    const database = await openDatabase({ dataDir });
    try {
      await migrate(database);
      return await work(database);
    } finally {
      await database.close();
    }
  };
  const manager = await withCommandDatabase((database) => makeUser(database.db));
  const cli = (...args: string[]) =>
    run(process.execPath, ['bin/campaign-dialer.js', 'queue', 'create', ...args], { env }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr: withoutUsingLine(stderr) }),
      (err: { code: number; stdout: string; stderr: string }) => ({ ...err, stderr: withoutUsingLine(err.stderr) }),
    );

  test('creates a queue for the manager and prints one line naming its id', async () => {
    const res = await cli('--name', 'Billing', '--manager', manager.username, '--strategy', '2');
    assert.equal(res.code, 0, res.stderr);
    const m = /^created queue Billing \(id (\d+)\) managed by \S+\n$/.exec(res.stdout);
    assert.ok(m, res.stdout);
    const row = await withCommandDatabase((database) =>
      findQueue(database.db, { id: manager.id, username: manager.username, is_admin: false }, Number(m[1])),
    );
    assert.equal(row?.name, 'Billing');
    assert.equal(row?.strategy, QueueStrategy.LongestIdleAgent);
    assert.equal(row?.manager, manager.username);
  });

  test('an unknown manager or strategy is one line on stderr and a non-zero exit', async () => {
    const nobody = await cli('--name', 'Lost', '--manager', unique('nobody'));
    assert.notEqual(nobody.code, 0);
    assert.match(nobody.stderr, /^campaign-dialer: no user named "nobody\w+"\n$/);
    const strategy = await cli('--name', 'Odd', '--manager', manager.username, '--strategy', '12');
    assert.notEqual(strategy.code, 0);
    assert.match(strategy.stderr, /^campaign-dialer: --strategy must be one of 1, .*, got "12"\n$/);
  });
});
