import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { CampaignStatus, campaignPhonebooks, contacts, phonebooks, smsCampaignPhonebooks } from '../../db/schema.ts';
import { makeCampaign, makeSmsCampaign, makeUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, idOf, testApp } from '../../../test/helpers.ts';

const t = await testApp();
const { db } = t.database;
const admin = await makeUser(db, { admin: true });
const alice = await makeUser(db);
const bob = await makeUser(db);

/** A phonebook created through the API (checks the 201). */
async function postPhonebook(owner: { auth: string }, name = unique('pb')) {
  const res = await call(t.app, owner.auth, 'POST', '/rest-api/phonebook/', { name });
  assert.equal(res.statusCode, 201, res.body);
  return { id: idOf(res.data.url), url: res.data.url as string };
}

/** A campaign of `ownerId` in `status` that dials `phonebookId` (written directly). */
async function makeVoiceCampaign(ownerId: number, phonebookId: number, status: number) {
  const row = await makeCampaign(db, { user_id: ownerId, status });
  await db.insert(campaignPhonebooks).values({ campaign_id: row.id, phonebook_id: phonebookId });
  return row.id;
}

/** The same for an SMS campaign. */
async function makeSmsCampaignOf(ownerId: number, phonebookId: number, status: number) {
  const row = await makeSmsCampaign(db, { user_id: ownerId, status });
  await db.insert(smsCampaignPhonebooks).values({ sms_campaign_id: row.id, phonebook_id: phonebookId });
  return row.id;
}

/** Each kind of campaign: how to make one that dials a phonebook, and how many phonebooks it has. */
const kinds = [
  { kind: 'voice', make: makeVoiceCampaign, books: (id: number) => db.$count(campaignPhonebooks, eq(campaignPhonebooks.campaign_id, id)) },
  { kind: 'SMS', make: makeSmsCampaignOf, books: (id: number) => db.$count(smsCampaignPhonebooks, eq(smsCampaignPhonebooks.sms_campaign_id, id)) },
];

describe(`phonebook (${dbLabel})`, () => {
  test('POST creates a phonebook owned by the caller: 201, the record and its Location', async () => {
    const res = await call(t.app, alice.auth, 'POST', '/rest-api/phonebook/', { name: 'Leads', description: 'Q3' });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.headers.location, res.data.url);
    assert.equal(res.data.url, `http://localhost:80/rest-api/phonebook/${res.data.id}/`);
    assert.equal(res.data.user, `http://localhost:80/rest-api/users/${alice.id}/`);
    assert.equal(res.data.name, 'Leads');
    assert.equal(res.data.description, 'Q3');
    assert.match(res.data.created_date, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  test('POST without name, or with a name over 100 characters, answers 400 and creates nothing', async () => {
    const before = await db.$count(phonebooks);
    const missing = await call(t.app, alice.auth, 'POST', '/rest-api/phonebook/', { description: 'x' });
    assert.equal(missing.statusCode, 400, missing.body);
    assert.deepEqual(missing.data, { name: ['This field is required.'] });
    const long = await call(t.app, alice.auth, 'POST', '/rest-api/phonebook/', { name: 'n'.repeat(101) });
    assert.equal(long.statusCode, 400, long.body);
    assert.deepEqual(long.data, { name: ['Ensure this field has no more than 100 characters.'] });
    assert.equal(await db.$count(phonebooks), before);
  });

  test('a non-admin naming another user answers 400 on user; an admin may', async () => {
    const res = await call(t.app, alice.auth, 'POST', '/rest-api/phonebook/', { name: 'x', user: `/rest-api/users/${bob.id}/` });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.data, { user: ['Invalid hyperlink - Object does not exist.'] });
    const byAdmin = await call(t.app, admin.auth, 'POST', '/rest-api/phonebook/', { name: 'for bob', user: bob.id });
    assert.equal(byAdmin.statusCode, 201, byAdmin.body);
    assert.equal(idOf(byAdmin.data.user), bob.id);
  });

  test("a user lists and reads only their phonebooks; another user's answers 404", async () => {
    const mine = await postPhonebook(alice);
    const theirs = await postPhonebook(bob);
    const list = await call(t.app, alice.auth, 'GET', '/rest-api/phonebook/?page_size=1000');
    assert.equal(list.statusCode, 200, list.body);
    const ids = list.data.results.map((r: { id: number }) => r.id);
    assert.ok(ids.includes(mine.id));
    assert.ok(!ids.includes(theirs.id));
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/phonebook/${mine.id}/`)).statusCode, 200);
    const other = await call(t.app, alice.auth, 'GET', `/rest-api/phonebook/${theirs.id}/`);
    assert.equal(other.statusCode, 404, other.body);
    assert.deepEqual(other.data, { detail: 'Not found.' });
    assert.equal((await call(t.app, admin.auth, 'GET', `/rest-api/phonebook/${theirs.id}/`)).statusCode, 200);
  });

  test('PATCH and PUT answer 200 with an empty body and change only the fields given', async () => {
    const pb = await postPhonebook(alice, 'before');
    const patch = await call(t.app, alice.auth, 'PATCH', `/rest-api/phonebook/${pb.id}/`, { name: 'after' });
    assert.equal(patch.statusCode, 200, patch.body);
    assert.equal(patch.body, '');
    const put = await call(t.app, alice.auth, 'PUT', `/rest-api/phonebook/${pb.id}/`, { description: 'desc' });
    assert.equal(put.statusCode, 200, put.body);
    assert.equal(put.body, '');
    const read = await call(t.app, alice.auth, 'GET', `/rest-api/phonebook/${pb.id}/`);
    assert.equal(read.data.name, 'after');
    assert.equal(read.data.description, 'desc');
  });

  test('a rejected PATCH changes nothing; PATCH of another user\'s phonebook answers 404', async () => {
    const pb = await postPhonebook(alice, 'kept');
    const bad = await call(t.app, alice.auth, 'PATCH', `/rest-api/phonebook/${pb.id}/`, { name: '', description: 'new' });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.deepEqual(bad.data, { name: ['This field may not be blank.'] });
    const read = await call(t.app, alice.auth, 'GET', `/rest-api/phonebook/${pb.id}/`);
    assert.equal(read.data.name, 'kept');
    assert.equal(read.data.description, '');
    const foreign = await call(t.app, bob.auth, 'PATCH', `/rest-api/phonebook/${pb.id}/`, { name: 'stolen' });
    assert.equal(foreign.statusCode, 404, foreign.body);
  });

  test('DELETE answers 204 and takes the contacts with it', async () => {
    const pb = await postPhonebook(alice);
    await db.insert(contacts).values({ phonebook_id: pb.id, contact: '12035550101', phone_key: '12035550101' });
    const res = await call(t.app, alice.auth, 'DELETE', `/rest-api/phonebook/${pb.id}/`);
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(await db.$count(contacts, eq(contacts.phonebook_id, pb.id)), 0);
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/phonebook/${pb.id}/`)).statusCode, 404);
  });

  test('DELETE of a phonebook that a running campaign dials answers 409 and keeps it', async () => {
    const pb = await postPhonebook(alice);
    await makeVoiceCampaign(alice.id, pb.id, CampaignStatus.Start);
    const res = await call(t.app, alice.auth, 'DELETE', `/rest-api/phonebook/${pb.id}/`);
    assert.equal(res.statusCode, 409, res.body);
    assert.match(res.data.detail, /running campaign/);
    assert.equal(await db.$count(phonebooks, eq(phonebooks.id, pb.id)), 1);
  });

  test('DELETE of a phonebook used by a campaign that is not running answers 204 and unlinks it', async () => {
    const pb = await postPhonebook(alice);
    const campaignId = await makeVoiceCampaign(alice.id, pb.id, CampaignStatus.Pause);
    const res = await call(t.app, alice.auth, 'DELETE', `/rest-api/phonebook/${pb.id}/`);
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(await db.$count(campaignPhonebooks, eq(campaignPhonebooks.campaign_id, campaignId)), 0);
  });

  test('DELETE follows one rule for voice and SMS campaigns: 409 while one runs, else 204 and unlinked from those not running', async () => {
    for (const { kind, make, books } of kinds) {
      for (const status of [CampaignStatus.New, CampaignStatus.Pause, CampaignStatus.Abort, CampaignStatus.End]) {
        const pb = await postPhonebook(alice);
        const campaignId = await make(alice.id, pb.id, status);
        const res = await call(t.app, alice.auth, 'DELETE', `/rest-api/phonebook/${pb.id}/`);
        assert.equal(res.statusCode, 204, `${kind} campaign in status ${status}: ${res.body}`);
        assert.equal(await books(campaignId), 0, `${kind} campaign in status ${status} keeps the link`);
        assert.equal(await db.$count(phonebooks, eq(phonebooks.id, pb.id)), 0);
      }
      const pb = await postPhonebook(alice);
      const stopped = await make(alice.id, pb.id, CampaignStatus.Pause);
      const running = await make(alice.id, pb.id, CampaignStatus.Start);
      const res = await call(t.app, alice.auth, 'DELETE', `/rest-api/phonebook/${pb.id}/`);
      assert.equal(res.statusCode, 409, `${kind}: ${res.body}`);
      assert.equal(res.data.detail, 'This phonebook is dialed by a running campaign; pause or end the campaign first.');
      assert.equal(await db.$count(phonebooks, eq(phonebooks.id, pb.id)), 1);
      assert.deepEqual([await books(stopped), await books(running)], [1, 1], `${kind}: a refused delete unlinks nothing`);
    }
  });

  test("DELETE of another user's phonebook answers 404 and deletes nothing", async () => {
    const pb = await postPhonebook(bob);
    const res = await call(t.app, alice.auth, 'DELETE', `/rest-api/phonebook/${pb.id}/`);
    assert.equal(res.statusCode, 404, res.body);
    assert.equal(await db.$count(phonebooks, eq(phonebooks.id, pb.id)), 1);
  });

  test('every route answers 401 without credentials', async () => {
    const pb = await postPhonebook(alice);
    for (const [method, url] of [
      ['GET', '/rest-api/phonebook/'],
      ['POST', '/rest-api/phonebook/'],
      ['GET', `/rest-api/phonebook/${pb.id}/`],
      ['PATCH', `/rest-api/phonebook/${pb.id}/`],
      ['DELETE', `/rest-api/phonebook/${pb.id}/`],
    ] as const) {
      const res = await call(t.app, undefined, method, url, method === 'GET' || method === 'DELETE' ? undefined : {});
      assert.equal(res.statusCode, 401, `${method} ${url}: ${res.body}`);
    }
  });
});
