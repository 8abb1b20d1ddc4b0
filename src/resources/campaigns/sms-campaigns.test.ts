import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { campaigns, GatewayStatus, smsCampaigns, smsSubscribers } from '../../db/schema.ts';
import { makeGateway, makePhonebook, makeSmsGateway, makeSurvey, makeUser, unique } from '../../../test/factories.ts';
import { assertDatesChecked } from '../../../test/campaign-dates.ts';
import { call, dbLabel, idOf, testApp } from '../../../test/helpers.ts';

const t = await testApp();
const db = t.database.db;
const alice = await makeUser(db);
const bob = await makeUser(db);
const admin = await makeUser(db, { admin: true });
const gateway = (await makeSmsGateway(db)).id;
const offGateway = (await makeSmsGateway(db, { status: GatewayStatus.Inactive })).id;

async function create(body: Record<string, unknown> = {}, auth = alice.auth) {
  return call(t.app, auth, 'POST', '/rest-api/sms-campaigns/', {
    name: unique('sms'),
    sms_gateway: `/rest-api/sms-gateway/${gateway}/`,
    text_message: 'Hello {full_name}',
    ...body,
  });
}

async function created(body: Record<string, unknown> = {}, auth = alice.auth) {
  const res = await create(body, auth);
  assert.equal(res.statusCode, 201, res.body);
  return res.data;
}

const patch = (id: number, body: unknown, auth = alice.auth) => call(t.app, auth, 'PATCH', `/rest-api/sms-campaigns/${id}/`, body);
const statusOf = async (id: number) => (await db.select().from(smsCampaigns).where(eq(smsCampaigns.id, id)))[0].status;
const subscribersOf = (id: number) => db.select().from(smsSubscribers).where(eq(smsSubscribers.sms_campaign_id, id)).orderBy(smsSubscribers.id);

describe(`sms-campaigns (${dbLabel})`, () => {
  test('POST with the spec fields answers 201 with the record, status 2 and a code, and Location', async () => {
    const book = await makePhonebook(db, alice.id, ['+12035550101']);
    const res = await create({
      description: 'd',
      callerid: 'ACME',
      startingdate: '2026-11-21 08:00:00',
      expirationdate: '2026-11-30T08:00:00Z',
      frequency: '20',
      maxretry: '2',
      intervalretry: '600',
      callmaxduration: '60',
      phonebook: [`/rest-api/phonebook/${book}/`],
      daily_start_time: '09:00:00',
      daily_stop_time: '18:00',
      monday: 'False',
      user: `/rest-api/users/${alice.id}/`,
    });
    assert.equal(res.statusCode, 201, res.body);
    const c = res.data;
    assert.equal(res.headers.location, c.url);
    assert.match(c.url, /\/rest-api\/sms-campaigns\/\d+\/$/);
    assert.equal(c.status, 2);
    assert.match(c.sms_campaign_code, /^[A-Z0-9]{10}$/);
    assert.equal(c.sms_gateway, `http://localhost:80/rest-api/sms-gateway/${gateway}/`);
    assert.deepEqual(c.phonebook, [`http://localhost:80/rest-api/phonebook/${book}/`]);
    assert.equal(c.user, `http://localhost:80/rest-api/users/${alice.id}/`);
    assert.equal(c.text_message, 'Hello {full_name}');
    assert.equal(c.startingdate, '2026-11-21T08:00:00.000000Z');
    assert.equal(c.expirationdate, '2026-11-30T08:00:00.000000Z');
    assert.deepEqual([c.frequency, c.maxretry, c.intervalretry, c.callmaxduration], [20, 2, 600, 60]);
    assert.deepEqual([c.daily_start_time, c.daily_stop_time, c.monday, c.tuesday], ['09:00:00', '18:00:00', false, true]);
    assert.deepEqual([c.end_when_done, c.has_been_started, c.totalcontact], [false, false, 0]);
    assert.equal(c.dialing_state, 'paused');
    assert.equal(c.progress.subscribers.total, 0);
    assert.equal(c.progress.total_cost, '0.00000');
    assert.ok(c.created_date.endsWith('Z'));
    const again = await call(t.app, alice.auth, 'GET', `/rest-api/sms-campaigns/${c.id}/`);
    assert.deepEqual(again.data.sms_campaign_code, c.sms_campaign_code);
  });

  test('POST without the required fields lists every one', async () => {
    const res = await call(t.app, alice.auth, 'POST', '/rest-api/sms-campaigns/', {});
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(Object.keys(res.data).sort(), ['name', 'sms_gateway', 'text_message']);
  });

  test('POST with bad values answers 400 per field', async () => {
    const res = await create({
      frequency: 'abc',
      startingdate: 'yesterday',
      phonebook: [`/rest-api/phonebook/${await makePhonebook(db, bob.id)}/`],
      sms_gateway: '/rest-api/gateway/1/',
      daily_start_time: '25:00:00',
      user: `/rest-api/users/${bob.id}/`,
      status: 3,
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(Object.keys(res.data).sort(), ['daily_start_time', 'frequency', 'phonebook', 'sms_gateway', 'startingdate', 'user']);
    assert.deepEqual(res.data.sms_gateway, ['Invalid hyperlink - Incorrect URL match.']);
    assert.deepEqual(res.data.user, ['Invalid hyperlink - Object does not exist.']);
    const missing = await create({ sms_gateway: 999999 });
    assert.deepEqual(missing.data.sms_gateway, ['Invalid hyperlink - Object does not exist.']);
    const status = await create({ status: 3 });
    assert.equal(status.statusCode, 400, status.body);
    assert.ok(status.data.status);
  });

  test('a name is unique per user: a second one answers 400, another user may use it', async () => {
    const c = await created();
    const res = await create({ name: c.name });
    assert.equal(res.statusCode, 400, res.body);
    assert.ok(res.data.name);
    await created({ name: c.name }, bob.auth);
    const other = await created();
    assert.equal((await patch(other.id, { name: c.name })).statusCode, 400);
  });

  test('an admin may create for another user; codes differ', async () => {
    const a = await created({ user: alice.id }, admin.auth);
    const b = await created();
    assert.equal(a.user, `http://localhost:80/rest-api/users/${alice.id}/`);
    assert.notEqual(a.sms_campaign_code, b.sms_campaign_code);
  });

  test('without credentials answers 401', async () => {
    assert.equal((await call(t.app, undefined, 'GET', '/rest-api/sms-campaigns/')).statusCode, 401);
    assert.equal((await call(t.app, undefined, 'POST', '/rest-api/sms-campaigns/', {})).statusCode, 401);
  });

  test("another user's SMS campaign answers 404 and is not listed; an admin sees it", async () => {
    const c = await created();
    assert.equal((await call(t.app, bob.auth, 'GET', `/rest-api/sms-campaigns/${c.id}/`)).statusCode, 404);
    assert.equal((await patch(c.id, { name: 'x' }, bob.auth)).statusCode, 404);
    assert.equal((await call(t.app, bob.auth, 'DELETE', `/rest-api/sms-campaigns/${c.id}/`)).statusCode, 404);
    const list = await call(t.app, bob.auth, 'GET', '/rest-api/sms-campaigns/?page_size=1000');
    assert.ok(!list.data.results.some((r: { id: number }) => r.id === c.id));
    assert.equal((await call(t.app, admin.auth, 'GET', `/rest-api/sms-campaigns/${c.id}/`)).statusCode, 200);
  });

  test('the list is an envelope in id order', async () => {
    const a = await created();
    const b = await created();
    const list = await call(t.app, alice.auth, 'GET', '/rest-api/sms-campaigns/?page_size=1000');
    assert.equal(list.statusCode, 200, list.body);
    const ids = list.data.results.map((r: { id: number }) => r.id);
    assert.ok(ids.indexOf(a.id) < ids.indexOf(b.id));
    assert.equal(list.data.count, ids.length);
  });

  test('POST with status 1 starts at once: one subscriber per distinct number', async () => {
    const book = await makePhonebook(db, alice.id, ['+12035550101', '+12035550102', '+12035550101'], ['+12035550109']);
    const c = await created({ status: 1, phonebook: [book] });
    assert.equal(c.status, 1);
    assert.equal(c.has_been_started, true);
    assert.equal(c.totalcontact, 2);
    assert.equal(c.progress.subscribers.pending, 2);
    assert.deepEqual((await subscribersOf(c.id)).map((s) => s.duplicate_contact), ['+12035550101', '+12035550102']);
  });

  test('POST with status 1 that cannot start answers 400 and creates nothing', async () => {
    const name = unique('sms');
    const res = await create({ name, status: 1 });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.data, { status: ['The SMS campaign cannot start: it has no phonebook.'] });
    assert.equal((await db.select().from(smsCampaigns).where(eq(smsCampaigns.name, name))).length, 0);
  });

  test('POST with status 0 creates it NEW', async () => {
    assert.equal((await created({ status: 0 })).status, 0);
  });

  test('every legal transition answers 202', async () => {
    const book = await makePhonebook(db, alice.id, ['+12035550101']);
    const paths: number[][] = [[1, 2, 1, 4], [1, 3], [3], [4], [1, 2, 3], [1, 2, 4]];
    for (const path of paths) {
      const c = await created({ phonebook: [book] });
      for (const to of path) {
        const res = await patch(c.id, { status: to });
        assert.equal(res.statusCode, 202, `${path} → ${to}: ${res.body}`);
        assert.equal(res.body, '');
        assert.equal(await statusOf(c.id), to);
      }
    }
    const fresh = await created({ status: 0, phonebook: [book] });
    assert.equal((await patch(fresh.id, { status: 1 })).statusCode, 202);
  });

  test('illegal transitions answer 400 naming both states', async () => {
    const book = await makePhonebook(db, alice.id, ['+12035550101']);
    const c = await created({ phonebook: [book] });
    const res = await patch(c.id, { status: 0 });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.data, { status: ['Cannot change status from 2 (PAUSE) to 0 (NEW).'] });
    await patch(c.id, { status: 4 });
    for (const to of [1, 2, 3]) assert.equal((await patch(c.id, { status: to })).statusCode, 400);
    const aborted = await created();
    await patch(aborted.id, { status: 3 });
    assert.deepEqual((await patch(aborted.id, { status: 1 })).data, { status: ['Cannot change status from 3 (ABORT) to 1 (START).'] });
  });

  test('start is refused with the reason: no phonebook, inactive gateway', async () => {
    const noBook = await created();
    assert.deepEqual((await patch(noBook.id, { status: 1 })).data, { status: ['The SMS campaign cannot start: it has no phonebook.'] });
    const book = await makePhonebook(db, alice.id, ['+12035550101']);
    const off = await created({ phonebook: [book], sms_gateway: offGateway });
    assert.deepEqual((await patch(off.id, { status: 1 })).data, { status: ['The SMS campaign cannot start: its SMS gateway is inactive.'] });
    assert.equal(await statusOf(off.id), 2);
  });

  test('abort marks pending subscribers ABORT', async () => {
    const book = await makePhonebook(db, alice.id, ['+12035550101', '+12035550102']);
    const c = await created({ status: 1, phonebook: [book] });
    assert.equal((await patch(c.id, { status: 3 })).statusCode, 202);
    assert.deepEqual((await subscribersOf(c.id)).map((s) => s.status), [3, 3]);
    const read = await call(t.app, alice.auth, 'GET', `/rest-api/sms-campaigns/${c.id}/`);
    assert.equal(read.data.dialing_state, 'aborted');
    assert.equal(read.data.progress.subscribers.abort, 2);
  });

  test('a phonebook added while running joins it; fields change by PUT too', async () => {
    const book = await makePhonebook(db, alice.id, ['+12035550101']);
    const c = await created({ status: 1, phonebook: [book] });
    const more = await makePhonebook(db, alice.id, ['+12035550201', '+12035550101']);
    assert.equal((await patch(c.id, { phonebook: [book, more], frequency: 30 })).statusCode, 202);
    assert.deepEqual((await subscribersOf(c.id)).map((s) => s.duplicate_contact), ['+12035550101', '+12035550201']);
    const put = await call(t.app, alice.auth, 'PUT', `/rest-api/sms-campaigns/${c.id}/`, { text_message: 'Bye', end_when_done: true });
    assert.equal(put.statusCode, 202, put.body);
    const read = await call(t.app, alice.auth, 'GET', `/rest-api/sms-campaigns/${c.id}/`);
    assert.deepEqual([read.data.frequency, read.data.text_message, read.data.end_when_done, read.data.totalcontact], [30, 'Bye', true, 2]);
    assert.equal(read.data.dialing_state, 'sending');
    assert.equal((await patch(c.id, { frequency: 0 })).statusCode, 400);
  });

  test('DELETE answers 200 {"data": "sms campaign deleted"}, and 409 while the campaign runs', async () => {
    const book = await makePhonebook(db, alice.id, ['+12035550101']);
    const running = await created({ status: 1, phonebook: [book] });
    const res = await call(t.app, alice.auth, 'DELETE', `/rest-api/sms-campaigns/${running.id}/`);
    assert.equal(res.statusCode, 409, res.body);
    assert.ok(res.data.detail);
    await patch(running.id, { status: 2 });
    const deleted = await call(t.app, alice.auth, 'DELETE', `/rest-api/sms-campaigns/${running.id}/`);
    assert.equal(deleted.statusCode, 200, deleted.body);
    assert.deepEqual(deleted.data, { data: 'sms campaign deleted' });
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/sms-campaigns/${running.id}/`)).statusCode, 404);
  });

  test("a voice campaign's sms_gateway takes a link to an SMS gateway", async () => {
    const body = { name: unique('camp'), aleg_gateway: (await makeGateway(db)).id, object_id: await makeSurvey(db, alice.id) };
    const res = await call(t.app, alice.auth, 'POST', '/rest-api/campaigns/', { ...body, sms_gateway: `/rest-api/sms-gateway/${gateway}/` });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.data.sms_gateway, `http://localhost:80/rest-api/sms-gateway/${gateway}/`);
    const id = idOf(res.data.url);
    assert.equal((await db.select().from(campaigns).where(eq(campaigns.id, id)))[0].sms_gateway_id, gateway);
    assert.equal((await call(t.app, alice.auth, 'PATCH', `/rest-api/campaigns/${id}/`, { sms_gateway: '' })).statusCode, 202);
    assert.equal((await db.select().from(campaigns).where(eq(campaigns.id, id)))[0].sms_gateway_id, null);
    const bad = await call(t.app, alice.auth, 'PATCH', `/rest-api/campaigns/${id}/`, { sms_gateway: 999999 });
    assert.deepEqual(bad.data, { sms_gateway: ['Invalid hyperlink - Object does not exist.'] });
  });

  test('dates: before 1970 or after 9999 is a 400 saying the range; an expiration before the start is a 400, on create and on update', async () => {
    await assertDatesChecked({ create, created, patch, read: (id) => call(t.app, alice.auth, 'GET', `/rest-api/sms-campaigns/${id}/`) });
  });
});
