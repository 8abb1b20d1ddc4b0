import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { campaigns, GatewayStatus, subscribers } from '../../db/schema.ts';
import { makeGateway, makePhonebook, makeSurvey, makeUser, unique } from '../../../test/factories.ts';
import { assertDatesChecked } from '../../../test/campaign-dates.ts';
import { call, dbLabel, idOf, testApp } from '../../../test/helpers.ts';

const t = await testApp();
const db = t.database.db;
const alice = await makeUser(db);
const bob = await makeUser(db);
const gateway = (await makeGateway(db)).id;
const offGateway = (await makeGateway(db, { status: GatewayStatus.Inactive })).id;
const survey = await makeSurvey(db, alice.id);

async function create(body: Record<string, unknown> = {}, auth = alice.auth) {
  return call(t.app, auth, 'POST', '/rest-api/campaigns/', {
    name: unique('camp'),
    aleg_gateway: `/rest-api/gateway/${gateway}/`,
    object_id: survey,
    ...body,
  });
}

async function created(body: Record<string, unknown> = {}) {
  const res = await create(body);
  assert.equal(res.statusCode, 201, res.body);
  return res.data;
}

const patch = (id: number, body: unknown, auth = alice.auth) => call(t.app, auth, 'PATCH', `/rest-api/campaigns/${id}/`, body);
const statusOf = async (id: number) => (await db.select().from(campaigns).where(eq(campaigns.id, id)))[0].status;

describe(`campaigns (${dbLabel})`, () => {
  test('POST with the spec fields as a Newfies client sends them answers 201 with the record', async () => {
    const book = await makePhonebook(db, alice.id, ['+12035550101']);
    const res = await create({
      description: 'd',
      callerid: '123456',
      startingdate: '2026-11-21 08:00:00',
      expirationdate: '2026-11-30 08:00:00',
      frequency: '20',
      callmaxduration: '60',
      maxretry: '2',
      intervalretry: '600',
      calltimeout: '30',
      max_aleg: '5',
      dial_method: '3',
      agent_dial_rate: '1.5',
      sms_gateway: '',
      extra_data: 'x',
      voicemail: 'True',
      amd_behavior: '2',
      voicemail_audiofile: '',
      dnc: '',
      user: `/rest-api/users/${alice.id}/`,
      phonebook: [`/rest-api/phonebook/${book}/`],
      daily_start_time: '09:00:00',
      daily_stop_time: '18:00',
      saturday: 'False',
      callerid_group: '',
    });
    assert.equal(res.statusCode, 201, res.body);
    const c = res.data;
    assert.equal(typeof c.id, 'number');
    assert.equal(res.headers.location, c.url);
    assert.equal(idOf(c.url), c.id);
    assert.match(c.campaign_code, /^[A-Z0-9]{10}$/);
    assert.equal(c.status, 0);
    assert.equal(c.frequency, 20);
    assert.equal(c.voicemail, true);
    assert.equal(c.saturday, false);
    assert.equal(c.agent_dial_rate, '1.50');
    assert.equal(c.startingdate, '2026-11-21T08:00:00.000000Z');
    assert.equal(c.daily_stop_time, '18:00:00');
    assert.deepEqual(c.phonebook, [`http://localhost:80/rest-api/phonebook/${book}/`]);
    assert.equal(c.aleg_gateway, `http://localhost:80/rest-api/gateway/${gateway}/`);
    assert.equal(c.object_id, survey);
    assert.equal(c.dnc, null);
    assert.equal(c.end_when_done, false);
    assert.equal(c.dialing_state, 'not started');
    assert.equal(c.progress.total_cost, '0.00000');
  });

  test('POST applies the defaults of contract §5', async () => {
    const c = await created();
    assert.equal(c.frequency, 10);
    assert.equal(c.callmaxduration, 1800);
    assert.equal(c.maxretry, 0);
    assert.equal(c.intervalretry, 300);
    assert.equal(c.calltimeout, 45);
    assert.equal(c.daily_start_time, '00:00:00');
    assert.equal(c.daily_stop_time, '23:59:59');
    assert.equal(c.sunday, true);
    assert.equal(new Date(c.expirationdate).getTime() - new Date(c.startingdate).getTime(), 86_400_000);
  });

  test('POST without the required fields lists every one', async () => {
    const res = await call(t.app, alice.auth, 'POST', '/rest-api/campaigns/', {});
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(Object.keys(res.data).sort(), ['aleg_gateway', 'name', 'object_id']);
  });

  test('POST with bad values answers 400 per field', async () => {
    const res = await create({
      frequency: 'abc',
      startingdate: 'yesterday',
      phonebook: ['/rest-api/contact/1/'],
      sms_gateway: '/rest-api/sms-gateway/1/',
      object_id: await makeSurvey(db, bob.id),
      daily_start_time: '25:00:00',
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(Object.keys(res.data).sort(), ['daily_start_time', 'frequency', 'object_id', 'phonebook', 'sms_gateway', 'startingdate']);
    assert.deepEqual(res.data.object_id, ['Invalid hyperlink - Object does not exist.']);
    assert.deepEqual(res.data.sms_gateway, ['Invalid hyperlink - Object does not exist.']);
  });

  test('a second campaign with the same name for the same user answers 400', async () => {
    const c = await created();
    const res = await create({ name: c.name });
    assert.equal(res.statusCode, 400, res.body);
    assert.ok(res.data.name, res.body);
  });

  test('without credentials answers 401', async () => {
    assert.equal((await call(t.app, undefined, 'GET', '/rest-api/campaigns/')).statusCode, 401);
  });

  test("another user's campaign answers 404 and is not listed", async () => {
    const c = await created();
    assert.equal((await call(t.app, bob.auth, 'GET', `/rest-api/campaigns/${c.id}/`)).statusCode, 404);
    assert.equal((await patch(c.id, { name: 'x' }, bob.auth)).statusCode, 404);
    assert.equal((await call(t.app, bob.auth, 'DELETE', `/rest-api/campaigns/${c.id}/`)).statusCode, 404);
    const list = await call(t.app, bob.auth, 'GET', '/rest-api/campaigns/');
    assert.equal(list.data.count, 0, list.body);
  });

  test('POST with status 1 starts at once: subscribers spooled, survey frozen', async () => {
    const book = await makePhonebook(db, alice.id, ['+12035550101', '+12035550102', '+12035550101'], ['+12035550103']);
    const res = await create({ status: 1, phonebook: [book] });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.data.status, 1);
    assert.equal(res.data.has_been_started, true);
    assert.equal(res.data.totalcontact, 2);
    assert.equal(res.data.progress.subscribers.pending, 2);
    assert.equal(res.data.dialing_state, 'dialing');
    const [row] = await db.select().from(campaigns).where(eq(campaigns.id, res.data.id));
    assert.equal((row.survey_snapshot as { survey_id: number }).survey_id, survey);
  });

  test('POST with status 1 that cannot start answers 400 and creates nothing', async () => {
    const name = unique('camp');
    const res = await create({ status: 1, name });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.data.status[0], /no phonebook/);
    const list = await call(t.app, alice.auth, 'GET', '/rest-api/campaigns/?page_size=1000');
    assert.ok(!list.data.results.some((c: { name: string }) => c.name === name));
  });

  test('POST with status 2 creates it paused; 3 is refused', async () => {
    assert.equal((await created({ status: '2' })).status, 2);
    assert.equal((await create({ status: 3 })).statusCode, 400);
  });

  test('every legal transition answers 202', async () => {
    const book = await makePhonebook(db, alice.id, ['+33612345678']);
    const paths = [[1, 2, 1, 3], [1, 4], [1, 2, 1, 2, 4], [3], [4], [1, 2, 3]];
    for (const path of paths) {
      const c = await created({ phonebook: [book] });
      for (const to of path) {
        const res = await patch(c.id, { status: to });
        assert.equal(res.statusCode, 202, `${path} → ${to}: ${res.body}`);
        assert.equal(res.body, '');
        assert.equal(await statusOf(c.id), to);
      }
    }
  });

  test('illegal transitions answer 400 naming both states', async () => {
    const book = await makePhonebook(db, alice.id, ['+33612345679']);
    const cases: [number[], number][] = [[[], 2], [[3], 1], [[3], 2], [[4], 1], [[4], 3], [[1, 2], 0], [[1], 0]];
    for (const [before, to] of cases) {
      const c = await created({ phonebook: [book] });
      for (const s of before) assert.equal((await patch(c.id, { status: s })).statusCode, 202);
      const from = await statusOf(c.id);
      const res = await patch(c.id, { status: to });
      assert.equal(res.statusCode, 400, res.body);
      assert.match(res.data.status[0], new RegExp(`from ${from} .* to ${to} `), res.body);
      assert.equal(await statusOf(c.id), from);
    }
  });

  test('start is refused with the reason: no phonebook, survey without sections, inactive gateway', async () => {
    const book = await makePhonebook(db, alice.id, ['+4930123456']);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /no phonebook/],
      [{ phonebook: [book], object_id: await makeSurvey(db, alice.id, 0) }, /no sections/],
      [{ phonebook: [book], aleg_gateway: offGateway }, /gateway is inactive/],
    ];
    for (const [body, why] of cases) {
      const c = await created(body);
      const res = await patch(c.id, { status: 1 });
      assert.equal(res.statusCode, 400, res.body);
      assert.match(res.data.status[0], why);
      assert.equal(await statusOf(c.id), 0);
    }
  });

  test('abort marks pending subscribers ABORT', async () => {
    const book = await makePhonebook(db, alice.id, ['+4930123457', '+4930123458']);
    const c = await created({ phonebook: [book], status: 1 });
    assert.equal((await patch(c.id, { status: 3 })).statusCode, 202);
    const subs = await db.select().from(subscribers).where(eq(subscribers.campaign_id, c.id));
    assert.deepEqual(subs.map((s) => s.status), [3, 3]);
    const read = await call(t.app, alice.auth, 'GET', `/rest-api/campaigns/${c.id}/`);
    assert.equal(read.data.dialing_state, 'aborted');
    assert.equal(read.data.progress.subscribers.abort, 2);
  });

  test('pace and hours change while running; a phonebook added while running joins it', async () => {
    const book = await makePhonebook(db, alice.id, ['+4930123459']);
    const c = await created({ phonebook: [book], status: 1 });
    const later = await makePhonebook(db, alice.id, ['+4930123460', '+4930123459']);
    const res = await call(t.app, alice.auth, 'PUT', `/rest-api/campaigns/${c.id}/`, {
      frequency: 60,
      daily_start_time: '08:00:00',
      maxretry: 3,
      phonebook: [book, later],
    });
    assert.equal(res.statusCode, 202, res.body);
    const read = await call(t.app, alice.auth, 'GET', `/rest-api/campaigns/${c.id}/`);
    assert.equal(read.data.frequency, 60);
    assert.equal(read.data.maxretry, 3);
    assert.equal(read.data.totalcontact, 2);
    assert.equal(read.data.phonebook.length, 2);
  });

  test('renaming to a name the user already has answers 400', async () => {
    const a = await created();
    const b = await created();
    assert.equal((await patch(b.id, { name: a.name })).statusCode, 400);
  });

  test('DELETE answers 204, and 409 while the campaign runs', async () => {
    const book = await makePhonebook(db, alice.id, ['+4930123461']);
    const c = await created({ phonebook: [book], status: 1 });
    assert.equal((await call(t.app, alice.auth, 'DELETE', `/rest-api/campaigns/${c.id}/`)).statusCode, 409);
    assert.equal((await patch(c.id, { status: 2 })).statusCode, 202);
    assert.equal((await call(t.app, alice.auth, 'DELETE', `/rest-api/campaigns/${c.id}/`)).statusCode, 204);
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/campaigns/${c.id}/`)).statusCode, 404);
  });

  test('dialing_state tells why a running campaign does not dial', async () => {
    const book = await makePhonebook(db, alice.id, ['+4930123462']);
    const future = await created({ phonebook: [book], status: 1, startingdate: '2099-01-01 00:00:00' });
    assert.equal(future.dialing_state, 'before start date');
    const noDay = Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [d, false]));
    assert.equal((await created({ phonebook: [book], status: 1, ...noDay })).dialing_state, 'not a dialing day');
    const c = await created({ phonebook: [book], status: 1 });
    await db.update(campaigns).set({ engine_state: 'waiting for credit' }).where(eq(campaigns.id, c.id));
    const read = await call(t.app, alice.auth, 'GET', `/rest-api/campaigns/${c.id}/`);
    assert.equal(read.data.dialing_state, 'waiting for credit');
  });

  test('dates: before 1970 or after 9999 is a 400 saying the range; an expiration before the start is a 400, on create and on update', async () => {
    await assertDatesChecked({ create, created, patch, read: (id) => call(t.app, alice.auth, 'GET', `/rest-api/campaigns/${id}/`) });
  });
});
