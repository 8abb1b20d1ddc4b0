/**
 * Login throttling (src/http/login-throttle.ts): guessing a password is stopped per (address,
 * username) and per username across addresses, and nobody else is refused because of it. The
 * counters live in the database: they survive a restart and are shared by several app
 * instances (on PostgreSQL, each with its own connection pool, as separate processes would be).
 * Time comes from an injected clock: lockouts expire without sleeping.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.ts';
import { type Database, openDatabase, queryRows } from '../src/db/database.ts';
import type { ThrottleOptions } from '../src/http/login-throttle.ts';
import { createToken } from '../src/resources/users/users.service.ts';
import { makeUser, type TestUser, unique } from './factories.ts';
import { basic, dbLabel, onPostgres, testConfig, testDatabase, testLogger } from './helpers.ts';

const database = await testDatabase();
let clock = Date.now();
const MINUTE = 60_000;
/** Small numbers, so a test makes a few failures: 3 per address, 6 per username. */
const small: ThrottleOptions = {
  address: { threshold: 3, windowMs: 15 * MINUTE, lockMs: MINUTE, maxLockMs: 4 * MINUTE },
  user: { threshold: 6, windowMs: 15 * MINUTE, lockMs: MINUTE, maxLockMs: 4 * MINUTE },
};

/** An app on `db` with these limits and the test clock; closed after the file unless closed before. */
async function appOn(db: Database, throttle: ThrottleOptions = small): Promise<FastifyInstance> {
  const app = await buildApp({ logger: testLogger, database: db, config: testConfig(), auth: { throttle, now: () => clock } });
  after(() => app.close());
  return app;
}

/** A GET of the users list (or of `url`) from `address` with `auth`. */
async function from(app: FastifyInstance, address: string, auth: string, url = '/rest-api/users/') {
  const res = await app.inject({ method: 'GET', url, remoteAddress: address, headers: { authorization: auth } });
  return Object.assign(res, { data: JSON.parse(res.body) as { detail?: string } });
}

const wrong = (user: TestUser) => basic(user.username, `wrong-${unique()}`);
let lastAddress = 0;
/** A client address no other test uses. */
const newAddress = () => `10.${(++lastAddress >> 8) & 255}.${lastAddress & 255}.1`;

/** `n` wrong passwords for `user` from `address`, each answered 401. */
async function fail(app: FastifyInstance, address: string, user: TestUser, n: number) {
  for (let i = 0; i < n; i++) {
    const res = await from(app, address, wrong(user));
    assert.equal(res.statusCode, 401, `failure ${i + 1} of ${user.username} from ${address}: ${res.body}`);
  }
}

function assertThrottled(res: Awaited<ReturnType<typeof from>>, seconds?: number) {
  assert.equal(res.statusCode, 429, res.body);
  assert.match(String(res.headers['retry-after']), /^\d+$/);
  if (seconds !== undefined) assert.equal(Number(res.headers['retry-after']), seconds);
  assert.ok(Number(res.headers['retry-after']) > 0);
  assert.match(res.data.detail ?? '', /throttled/);
}

const app = await appOn(database);

/** Counts the queries sent to `db` (pool checkouts on PostgreSQL, calls on PGlite) until stop(). */
function countQueries(db: Database): { stop(): number } {
  let count = 0;
  const onAcquire = () => void (count += 1);
  if (db.pool) {
    db.pool.on('acquire', onAcquire);
    return { stop: () => (db.pool?.off('acquire', onAcquire), count) };
  }
  const pglite = db.pglite as unknown as Record<'query' | 'exec' | 'transaction', (...args: unknown[]) => unknown>;
  const originals = { query: pglite.query, exec: pglite.exec, transaction: pglite.transaction };
  for (const name of ['query', 'exec', 'transaction'] as const) {
    pglite[name] = (...args: unknown[]) => {
      count += 1;
      return originals[name].apply(db.pglite, args);
    };
  }
  return { stop: () => (Object.assign(pglite, originals), count) };
}

describe(`login throttling (${dbLabel})`, () => {
  test('9 guesses at alice and 1 good login as bob, repeated, are stopped for alice (default limits)', async () => {
    const standard = await appOn(database, {});
    const [alice, bob] = [await makeUser(database.db), await makeUser(database.db)];
    const address = newAddress();
    const answers: number[] = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 9; i++) answers.push((await from(standard, address, wrong(alice))).statusCode);
      const good = await from(standard, address, bob.auth);
      assert.equal(good.statusCode, 200, `bob's own login, round ${round + 1}: ${good.body}`);
    }
    // The 10th failure locks (address, alice): the 11th guess on is refused, bob's logins notwithstanding.
    assert.deepEqual(answers, [...Array(10).fill(401), ...Array(17).fill(429)]);
    assertThrottled(await from(standard, address, alice.auth), 300);
  });

  test("while alice is throttled, bob's password and carol's token from the same address work", async () => {
    const [alice, bob, carol] = [await makeUser(database.db), await makeUser(database.db), await makeUser(database.db)];
    const address = newAddress();
    assert.equal((await from(app, address, alice.auth)).statusCode, 200); // alice's password is cached
    await fail(app, address, alice, 3);
    assertThrottled(await from(app, address, wrong(alice)), 60);
    // Even the right password (verified and cached before) gains nothing from this address now.
    assertThrottled(await from(app, address, alice.auth), 60);
    const key = await createToken(database.db, carol.username);
    for (const [who, auth] of [['bob', bob.auth], ['carol (token)', `Token ${key}`], ['bob again', bob.auth]]) {
      const res = await from(app, address, auth);
      assert.equal(res.statusCode, 200, `${who}: ${res.body}`);
    }
    const elsewhere = await from(app, newAddress(), alice.auth);
    assert.equal(elsewhere.statusCode, 200, `alice from another address: ${elsewhere.body}`);
  });

  test('failures for alice from many addresses throttle guessing at alice from each of them, but not her login from a clean one', async () => {
    const alice = await makeUser(database.db);
    const addresses = [newAddress(), newAddress(), newAddress()];
    for (const address of addresses) await fail(app, address, alice, 2); // below the per-address limit
    for (const address of addresses) {
      assertThrottled(await from(app, address, wrong(alice)), 60);
      assertThrottled(await from(app, address, alice.auth), 60);
    }
    // An address with no failure for alice: the right password works, a guess counts and is the last.
    assert.equal((await from(app, newAddress(), alice.auth)).statusCode, 200);
    const fresh = newAddress();
    await fail(app, fresh, alice, 1);
    assertThrottled(await from(app, fresh, wrong(alice)));
    assertThrottled(await from(app, fresh, alice.auth));
    const bob = await makeUser(database.db);
    assert.equal((await from(app, addresses[0], bob.auth)).statusCode, 200);
  });

  test('parallel guesses from one address cannot pass the check together', async () => {
    const alice = await makeUser(database.db);
    const address = newAddress();
    const answers = await Promise.all(Array.from({ length: 12 }, () => from(app, address, wrong(alice))));
    const codes = answers.map((r) => r.statusCode).sort();
    assert.deepEqual(codes, [...Array(3).fill(401), ...Array(9).fill(429)]);
  });

  test('a success forgets the failures of its own address and username only', async () => {
    // A high limit across addresses, so that only the count of (address, alice) is at play.
    const app = await appOn(database, { ...small, user: { ...small.user, threshold: 100 } });
    const [alice, bob] = [await makeUser(database.db), await makeUser(database.db)];
    const address = newAddress();
    for (let round = 0; round < 3; round++) {
      await fail(app, address, alice, 2);
      const ok = await from(app, address, alice.auth);
      assert.equal(ok.statusCode, 200, `round ${round + 1}: ${ok.body}`);
    }
    // Bob's success at the same address does not forget alice's failures.
    await fail(app, address, alice, 2);
    assert.equal((await from(app, address, bob.auth)).statusCode, 200);
    await fail(app, address, alice, 1);
    assertThrottled(await from(app, address, alice.auth));
  });

  test('an IPv6 /64 counts as one address', async () => {
    const alice = await makeUser(database.db);
    for (const address of ['2001:db8:7:1::1', '2001:db8:7:1::2', '2001:db8:7:1:ffff::3']) await fail(app, address, alice, 1);
    assertThrottled(await from(app, '2001:db8:7:1:abcd::99', wrong(alice)));
    assert.equal((await from(app, '2001:db8:7:2::1', alice.auth)).statusCode, 200);
  });

  test('a password verified lately costs no database query, though others are throttled from its address', async () => {
    const [alice, bob] = [await makeUser(database.db), await makeUser(database.db)];
    const address = newAddress();
    assert.equal((await from(app, address, alice.auth)).statusCode, 200); // verified and cached
    await fail(app, address, bob, 3); // bob is locked at alice's address
    await fail(app, newAddress(), alice, 3); // alice is locked at another address
    const queries = countQueries(database);
    // The user's own detail: read from the user cache, as bench:api does.
    for (let i = 0; i < 5; i++) assert.equal((await from(app, address, alice.auth, `/rest-api/users/${alice.id}/`)).statusCode, 200);
    assert.equal(queries.stop(), 0, 'database queries made by 5 requests with a verified password');
  });

  test('the lockout ends after its time, and the next one lasts twice as long', async () => {
    const alice = await makeUser(database.db);
    const address = newAddress();
    await fail(app, address, alice, 3);
    assertThrottled(await from(app, address, alice.auth), 60);
    clock += 30_000;
    assertThrottled(await from(app, address, alice.auth), 30);
    clock += 30_001;
    await fail(app, address, alice, 3);
    assertThrottled(await from(app, address, alice.auth), 120);
    clock += 120_001;
    assert.equal((await from(app, address, alice.auth)).statusCode, 200);
  });
});

describe(`the counters are kept in the database (${dbLabel})`, () => {
  test('they survive a restart: a new app on the same database still refuses', async () => {
    const alice = await makeUser(database.db);
    const address = newAddress();
    const first = await appOn(database);
    await fail(first, address, alice, 3);
    await first.close();
    const second = await appOn(database);
    assertThrottled(await from(second, address, alice.auth), 60);
    assert.equal((await from(second, newAddress(), alice.auth)).statusCode, 200);
  });

  test('two app instances (two processes) share them', async () => {
    // On PostgreSQL the second instance has a pool of its own, as another process would.
    const other = onPostgres ? await openDatabase({ url: database.url, poolSize: 2 }) : database;
    if (other !== database) after(() => other.close());
    const [one, two] = [await appOn(database), await appOn(other)];
    const alice = await makeUser(database.db);
    const address = newAddress();
    await fail(one, address, alice, 2);
    await fail(two, address, alice, 1);
    assertThrottled(await from(one, address, wrong(alice)));
    assertThrottled(await from(two, address, wrong(alice)));
    // Across addresses too: 3 more failures of alice, from 3 other addresses, split between them.
    const others = [newAddress(), newAddress(), newAddress()];
    for (const [i, other] of others.entries()) await fail(i % 2 ? one : two, other, alice, 1);
    assertThrottled(await from(one, others[0], alice.auth));
    assertThrottled(await from(two, others[1], alice.auth));
    const rows = await queryRows<{ address: string; failures: number }>(
      database.db,
      sql`select address, failures from login_failures where username = ${alice.username} order by address`,
    );
    assert.equal(rows.length, 5, JSON.stringify(rows)); // 4 addresses and the username's own count
  });

  test('rows are forgotten a day after their last failure', async () => {
    const alice = await makeUser(database.db);
    await fail(app, newAddress(), alice, 1);
    const count = async () =>
      Number((await queryRows<{ n: string }>(database.db, sql`select count(*) as n from login_failures where username = ${alice.username}`))[0].n);
    assert.equal(await count(), 2);
    clock += 24 * 60 * MINUTE + 1;
    await fail(app, newAddress(), await makeUser(database.db), 1); // a later failure prunes old rows
    assert.equal(await count(), 0);
  });
});
