import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeUser, type TestUser } from '../../../test/factories.ts';
import { call, dbLabel, testApp } from '../../../test/helpers.ts';

const t = await testApp();
const admin = await makeUser(t.database.db, { admin: true });
const alice = await makeUser(t.database.db, { balance: '10' });
const origin = 'http://localhost:80';
const userUrl = (user: TestUser) => `${origin}/rest-api/users/${user.id}/`;

async function balanceOf(user: TestUser): Promise<number> {
  const res = await call(t.app, admin.auth, 'GET', `/rest-api/users/${user.id}/`);
  assert.equal(res.statusCode, 200, res.body);
  return res.data.balance;
}

async function paymentCount(): Promise<number> {
  const res = await call(t.app, admin.auth, 'GET', '/rest-api/payment/');
  assert.equal(res.statusCode, 200, res.body);
  return res.data.count;
}

describe(`payment (${dbLabel})`, () => {
  test('an admin POST answers 201 with the payment and no Location', async () => {
    const res = await call(t.app, admin.auth, 'POST', '/rest-api/payment/', { amount: 1, user: userUrl(alice), description: 'top-up' });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(Object.keys(res.data).sort(), ['amount', 'created_date', 'description', 'user']);
    assert.equal(res.data.amount, '1.00000');
    assert.equal(res.data.user, userUrl(alice));
    assert.equal(res.data.description, 'top-up');
    assert.match(res.data.created_date, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.equal(res.headers.location, undefined);
  });

  test("a payment raises the user's balance", async () => {
    const bob = await makeUser(t.database.db, { balance: '2.5' });
    const res = await call(t.app, admin.auth, 'POST', '/rest-api/payment/', { amount: '7.12345', user: bob.id });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.data.description, '');
    assert.equal(await balanceOf(bob), 9.62345);
  });

  test('a payment shows in the balance at once, though the user was just read', async () => {
    const carl = await makeUser(t.database.db, { balance: '1' });
    for (let i = 1; i <= 5; i++) {
      assert.equal(await balanceOf(carl), i);
      const own = await call(t.app, carl.auth, 'GET', `/rest-api/users/${carl.id}/`);
      assert.equal(own.data.balance, i, own.body);
      const res = await call(t.app, admin.auth, 'POST', '/rest-api/payment/', { amount: '1', user: carl.id });
      assert.equal(res.statusCode, 201, res.body);
    }
    assert.equal(await balanceOf(carl), 6);
  });

  test('the payment and the balance are written together: a balance overflow leaves no payment', async () => {
    const rich = await makeUser(t.database.db, { balance: '99999999999' });
    const before = await paymentCount();
    const res = await call(t.app, admin.auth, 'POST', '/rest-api/payment/', { amount: '1', user: rich.id });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(await paymentCount(), before);
    assert.equal(await balanceOf(rich), 99999999999);
  });

  test('a non-admin answers 403 to GET and POST', async () => {
    const before = await balanceOf(alice);
    for (const [method, body] of [['GET', undefined], ['POST', { amount: '1', user: alice.id }]] as const) {
      const res = await call(t.app, alice.auth, method, '/rest-api/payment/', body);
      assert.equal(res.statusCode, 403, `${method}: ${res.body}`);
      assert.deepEqual(res.data, { detail: 'You do not have permission to perform this action.' });
    }
    assert.equal(await balanceOf(alice), before);
  });

  test('a bad amount answers 400 with a message on amount, and the balance is unchanged', async () => {
    const carol = await makeUser(t.database.db, { balance: '3' });
    const cases: Array<[unknown, RegExp]> = [
      [0, /greater than 0/],
      ['-1', /greater than 0/],
      ['1.123456', /no more than 5 decimal places/],
      ['abc', /valid number/],
      [undefined, /This field is required\./],
    ];
    for (const [amount, message] of cases) {
      const res = await call(t.app, admin.auth, 'POST', '/rest-api/payment/', { amount, user: carol.id });
      assert.equal(res.statusCode, 400, `${String(amount)}: ${res.body}`);
      assert.deepEqual(Object.keys(res.data), ['amount'], res.body);
      assert.match(res.data.amount[0], message);
    }
    assert.equal(await balanceOf(carol), 3);
  });

  test('every problem is listed at once: no amount and no user', async () => {
    const res = await call(t.app, admin.auth, 'POST', '/rest-api/payment/', {});
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.data, { amount: ['This field is required.'], user: ['This field is required.'] });
  });

  test('the list is the paginated envelope, oldest first', async () => {
    const dan = await makeUser(t.database.db);
    for (const amount of ['1', '2', '3']) {
      assert.equal((await call(t.app, admin.auth, 'POST', '/rest-api/payment/', { amount, user: dan.id })).statusCode, 201);
    }
    const res = await call(t.app, admin.auth, 'GET', '/rest-api/payment/?page_size=1000');
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(Object.keys(res.data).sort(), ['count', 'next', 'previous', 'results']);
    assert.equal(res.data.count, res.data.results.length);
    const dans = res.data.results.filter((p: { user: string }) => p.user === userUrl(dan));
    assert.deepEqual(dans.map((p: { amount: string }) => p.amount), ['1.00000', '2.00000', '3.00000']);
    const paged = await call(t.app, admin.auth, 'GET', '/rest-api/payment/?page_size=1');
    assert.equal(paged.data.results.length, 1);
    assert.equal(paged.data.next, `${origin}/rest-api/payment/?page_size=1&page=2`);
  });
});
