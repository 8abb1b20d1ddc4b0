/** An account's contact caps and legal calling hours (issue 16, items 3–4) through /rest-api/accounts/. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeUser } from '../../../test/factories.ts';
import { call, dbLabel, testApp } from '../../../test/helpers.ts';

const t = await testApp();
const db = t.database.db;
const admin = await makeUser(db, { admin: true });

const read = async (id: number) => (await call(t.app, admin.auth, 'GET', `/rest-api/accounts/${id}/`)).data;
const patch = (id: number, body: unknown) => call(t.app, admin.auth, 'PATCH', `/rest-api/accounts/${id}/`, body);

describe(`contact caps and calling hours on accounts (${dbLabel})`, () => {
  test('off by default; "regulation_f" turns on 7 attempts in 7 days and a 7-day quiet period; null turns them off', async () => {
    const u = await makeUser(db);
    assert.deepEqual([(await read(u.id)).contact_caps, (await read(u.id)).calling_hours], [null, null]);
    assert.equal((await patch(u.id, { contact_caps: 'regulation_f', calling_hours: { start: '8:00', end: '21:00' } })).statusCode, 202);
    const on = await read(u.id);
    assert.deepEqual(on.contact_caps, { attempts: 7, window_days: 7, quiet_days: 7, daily: null });
    assert.deepEqual(on.calling_hours, { start: '08:00', end: '21:00' });
    assert.equal((await patch(u.id, { contact_caps: { daily: '3', quiet_days: 2 }, calling_hours: '09:30-20:00' })).statusCode, 202);
    const custom = await read(u.id);
    assert.deepEqual(custom.contact_caps, { attempts: null, window_days: null, quiet_days: 2, daily: 3 });
    assert.deepEqual(custom.calling_hours, { start: '09:30', end: '20:00' });
    assert.equal((await patch(u.id, { contact_caps: null, calling_hours: null })).statusCode, 202);
    assert.deepEqual([(await read(u.id)).contact_caps, (await read(u.id)).calling_hours], [null, null]);
  });

  test('400 for bad caps or hours, each under its field, and nothing changes', async () => {
    const u = await makeUser(db);
    await patch(u.id, { contact_caps: 'regulation_f', calling_hours: '08:00-21:00' });
    const before = await read(u.id);
    const bad: [string, unknown][] = [
      ['contact_caps', 'sometimes'],
      ['contact_caps', 7],
      ['contact_caps', [7, 7]],
      ['contact_caps', { attempts: 0, window_days: 7 }],
      ['contact_caps', { attempts: 7 }],
      ['contact_caps', { window_days: 7 }],
      ['contact_caps', { attempts: 1.5, window_days: 7 }],
      ['contact_caps', { daily: -1 }],
      ['contact_caps', { quiet_days: 400 }],
      ['contact_caps', { weekly: 3 }],
      ['calling_hours', { start: '21:00', end: '08:00' }],
      ['calling_hours', { start: '08:00', end: '08:00' }],
      ['calling_hours', { start: '25:00', end: '26:00' }],
      ['calling_hours', { start: '08:00' }],
      ['calling_hours', 'all day'],
      ['calling_hours', 9],
    ];
    for (const [field, value] of bad) {
      const res = await patch(u.id, { [field]: value, first_name: 'Changed' });
      assert.equal(res.statusCode, 400, `${field} ${JSON.stringify(value)}: ${res.body}`);
      assert.deepEqual(Object.keys(res.data), [field], res.body);
      assert.ok(Array.isArray(res.data[field]) && typeof res.data[field][0] === 'string', res.body);
    }
    assert.deepEqual(await read(u.id), before, 'a refused PATCH changed the account');
    const created = await call(t.app, admin.auth, 'POST', '/rest-api/accounts/', { username: 'capped-new', password: 'x', contact_caps: { attempts: 7 } });
    assert.equal(created.statusCode, 400, created.body);
    assert.deepEqual(Object.keys(created.data), ['contact_caps']);
  });

  test('an account created with caps and hours shows them; the OpenAPI document describes both', async () => {
    const res = await call(t.app, admin.auth, 'POST', '/rest-api/accounts/', {
      username: 'capped-at-birth',
      password: 'x',
      contact_caps: { attempts: 3, window_days: 1 },
      calling_hours: { start: '08:00', end: '24:00' },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(res.data.contact_caps, { attempts: 3, window_days: 1, quiet_days: null, daily: null });
    assert.deepEqual(res.data.calling_hours, { start: '08:00', end: '24:00' });
    const doc = await call(t.app, undefined, 'GET', '/rest-api/openapi.json');
    const body = JSON.stringify(doc.data.paths['/rest-api/accounts/'].post.requestBody);
    assert.match(body, /regulation_f/);
    assert.match(body, /calling_hours/);
  });
});
