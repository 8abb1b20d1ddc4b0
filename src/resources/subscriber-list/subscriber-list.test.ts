import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { contacts, subscribers } from '../../db/schema.ts';
import { makeGateway, makePhonebook, makeSurvey, makeUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, idOf, testApp } from '../../../test/helpers.ts';

const t = await testApp();
const db = t.database.db;
const alice = await makeUser(db);
const bob = await makeUser(db);
const gateway = (await makeGateway(db)).id;

async function campaign(user = alice): Promise<number> {
  const res = await call(t.app, user.auth, 'POST', '/rest-api/campaigns/', {
    name: unique('camp'),
    aleg_gateway: gateway,
    object_id: await makeSurvey(db, user.id),
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.data.id;
}

const post = (body: unknown, auth = alice.auth) => call(t.app, auth, 'POST', '/rest-api/subscriber-list/', body);

describe(`subscriber-list (${dbLabel})`, () => {
  test('POST with duplicate_contact answers 201 with the record, zone derived from the number', async () => {
    const c = await campaign();
    const res = await post({ campaign: `/rest-api/campaigns/${c}/`, duplicate_contact: '+1 (203) 555-0101', full_name: 'Ann', additional_vars: '{"a": 1}' });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.headers.location, res.data.url);
    assert.equal(idOf(res.data.url), res.data.id);
    assert.equal(res.data.duplicate_contact, '+12035550101');
    assert.equal(res.data.tz_code, 'America/New_York');
    assert.match(res.data.gmt_offset, /^-[45]\.00$/);
    assert.deepEqual(res.data.additional_vars, { a: 1 });
    assert.equal(res.data.status, 1);
    assert.equal(res.data.contact, null);
    assert.equal(res.data.count_attempt, 0);
  });

  test('the derived zone is the area code\'s, not only the country\'s (contract §5)', async () => {
    const c = await campaign();
    const zoneOf = async (number: string) => (await post({ campaign: `/rest-api/campaigns/${c}/`, duplicate_contact: number })).data;
    const sanFrancisco = await zoneOf('+1 415 555 0199');
    assert.equal(sanFrancisco.tz_code, 'America/Los_Angeles');
    assert.match(sanFrancisco.gmt_offset, /^-[78]\.00$/);
    assert.equal((await zoneOf('+1 312 555 0199')).tz_code, 'America/Chicago');
    assert.equal((await zoneOf('+1 808 555 0199')).tz_code, 'Pacific/Honolulu');
    const perth = await zoneOf('+61 8 9300 1234');
    assert.match(perth.tz_code, /^Australia\/(Perth|Adelaide)$/);
    assert.equal((await zoneOf('+61 2 9123 4567')).tz_code, 'Australia/Sydney');
  });

  test('POST with a contact link copies its number and name', async () => {
    const c = await campaign();
    const book = await makePhonebook(db, alice.id, ['+33612345678']);
    const [contact] = await db.select().from(contacts).where(eq(contacts.phonebook_id, book));
    const res = await post({ campaign: c, contact: `/rest-api/contact/${contact.id}/`, gmt_offset: '2', tz_code: 'Europe/Paris' });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.data.duplicate_contact, '+33612345678');
    assert.equal(res.data.full_name, 'N +33612345678');
    assert.equal(res.data.gmt_offset, '2.00');
    assert.equal(res.data.contact, `http://localhost:80/rest-api/contact/${contact.id}/`);
  });

  test('POST errors: missing campaign, no number, bad number, bad vars, same number twice, foreign campaign', async () => {
    const c = await campaign();
    let res = await post({});
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.data.campaign, ['This field is required.']);
    res = await post({ campaign: c });
    assert.equal(res.statusCode, 400, res.body);
    assert.ok(res.data.duplicate_contact);
    res = await post({ campaign: c, duplicate_contact: 'abc', additional_vars: '[1]' });
    assert.deepEqual(res.data.duplicate_contact, ['Enter a valid phone number.']);
    assert.ok(res.data.additional_vars);
    assert.equal((await post({ campaign: c, duplicate_contact: '+4930123456' })).statusCode, 201);
    assert.equal((await post({ campaign: c, duplicate_contact: '+4930123456' })).statusCode, 400);
    res = await post({ campaign: await campaign(bob), duplicate_contact: '+4930123456' });
    assert.deepEqual(res.data.campaign, ['Invalid hyperlink - Object does not exist.']);
  });

  test('GET is a bare array filtered by campaign_id and status; another user sees none; 401 without credentials', async () => {
    const c = await campaign();
    for (const n of ['+4930000001', '+4930000002', '+4930000003']) assert.equal((await post({ campaign: c, duplicate_contact: n })).statusCode, 201);
    const one = await post({ campaign: c, duplicate_contact: '+4930000004' });
    await call(t.app, alice.auth, 'PATCH', `/rest-api/subscriber-list/${one.data.id}/`, { status: 2 });
    const res = await call(t.app, alice.auth, 'GET', `/rest-api/subscriber-list/?campaign_id=${c}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(Array.isArray(res.data));
    assert.equal(res.data.length, 4);
    assert.ok(res.data[0].id && res.data[0].url);
    const paused = await call(t.app, alice.auth, 'GET', `/rest-api/subscriber-list/?campaign_id=${c}&status=2`);
    assert.deepEqual(paused.data.map((s: { id: number }) => s.id), [one.data.id]);
    const other = await call(t.app, bob.auth, 'GET', `/rest-api/subscriber-list/?campaign_id=${c}`);
    assert.deepEqual(other.data, []);
    assert.equal((await call(t.app, undefined, 'GET', '/rest-api/subscriber-list/')).statusCode, 401);
  });

  test('GET streams more rows than one batch; page slices with a Link header', async () => {
    const c = await campaign();
    await db.insert(subscribers).values(Array.from({ length: 2100 }, (_, i) => ({ campaign_id: c, duplicate_contact: `+3361${String(i).padStart(7, '0')}`, phone_key: `3361${String(i).padStart(7, '0')}` })));
    const all = await call(t.app, alice.auth, 'GET', `/rest-api/subscriber-list/?campaign_id=${c}`);
    assert.equal(all.data.length, 2100);
    assert.equal(new Set(all.data.map((s: { id: number }) => s.id)).size, 2100);
    const page = await call(t.app, alice.auth, 'GET', `/rest-api/subscriber-list/?campaign_id=${c}&page=2&page_size=5`);
    assert.equal(page.data.length, 5);
    assert.equal(page.data[0].id, all.data[5].id);
    assert.match(String(page.headers.link), /page=3.*rel="next"/);
    const last = await call(t.app, alice.auth, 'GET', `/rest-api/subscriber-list/?campaign_id=${c}&page=210`);
    assert.equal(last.data.length, 10);
    assert.equal(last.headers.link, undefined);
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/subscriber-list/?campaign_id=${c}&page=999`)).statusCode, 404);
  });

  test('GET detail, PATCH → 202 with the record, DELETE → 200 {data}; another user gets 404', async () => {
    const c = await campaign();
    const s = (await post({ campaign: c, duplicate_contact: '+4930000009' })).data;
    assert.equal((await call(t.app, bob.auth, 'GET', `/rest-api/subscriber-list/${s.id}/`)).statusCode, 404);
    assert.equal((await call(t.app, bob.auth, 'PATCH', `/rest-api/subscriber-list/${s.id}/`, { status: 2 })).statusCode, 404);
    assert.equal((await call(t.app, bob.auth, 'DELETE', `/rest-api/subscriber-list/${s.id}/`)).statusCode, 404);
    const patched = await call(t.app, alice.auth, 'PUT', `/rest-api/subscriber-list/${s.id}/`, { status: '2', full_name: 'Zed' });
    assert.equal(patched.statusCode, 202, patched.body);
    assert.equal(patched.data.status, 2);
    assert.equal(patched.data.full_name, 'Zed');
    assert.equal((await call(t.app, alice.auth, 'PATCH', `/rest-api/subscriber-list/${s.id}/`, { status: 9 })).statusCode, 400);
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/subscriber-list/${s.id}/`)).data.full_name, 'Zed');
    const del = await call(t.app, alice.auth, 'DELETE', `/rest-api/subscriber-list/${s.id}/`);
    assert.equal(del.statusCode, 200);
    assert.deepEqual(del.data, { data: 'subscriber deleted' });
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/subscriber-list/${s.id}/`)).statusCode, 404);
  });
});
