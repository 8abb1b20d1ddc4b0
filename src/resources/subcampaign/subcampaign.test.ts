/** /rest-api/subcampaign/ (issue 17, item 4): a campaign's subscribers as Newfies lists them, and one's status update. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeGateway, makePhonebook, makeSurvey, makeUser, type TestUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, testApp } from '../../../test/helpers.ts';

const t = await testApp();
const { db } = t.database;
const admin = await makeUser(db, { admin: true });
const alice = await makeUser(db);
const bob = await makeUser(db);
const gateway = (await makeGateway(db)).id;

/** A started campaign of `owner` on a new phonebook of `numbers`; its id and the contacts' ids by number. */
async function startedCampaign(owner: TestUser, numbers: string[]) {
  const book = await makePhonebook(db, owner.id, numbers);
  const res = await call(t.app, owner.auth, 'POST', '/rest-api/campaigns/', {
    name: unique('camp'),
    aleg_gateway: gateway,
    object_id: await makeSurvey(db, owner.id),
    phonebook: [book],
    status: 1,
  });
  assert.equal(res.statusCode, 201, res.body);
  const listed = await call(t.app, owner.auth, 'GET', `/rest-api/contact/?phonebook_id=${book}&page_size=1000`);
  const contactIds = Object.fromEntries(listed.data.results.map((c: { id: number; contact: string }) => [c.contact, c.id]));
  return { id: res.data.id as number, book, contactIds: contactIds as Record<string, number> };
}

const NOT_FOUND_CAMPAIGN = { detail: 'Not found.', error: 'Campaign ID is not valid!' };
const NOT_FOUND_CONTACT = { detail: 'Not found.', error: 'Contact ID is not valid!' };

describe(`subcampaign (${dbLabel})`, () => {
  test("GET /subcampaign/<campaign_id>/ lists the campaign's subscribers as Newfies does, a bare array", async () => {
    const c = await startedCampaign(alice, ['+12035550101', '+12035550102']);
    const res = await call(t.app, alice.auth, 'GET', `/rest-api/subcampaign/${c.id}/`);
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(Array.isArray(res.data), res.body);
    assert.equal(res.data.length, 2);
    const first = res.data[0];
    assert.deepEqual(Object.keys(first).sort(), ['completion_count_attempt', 'contact', 'contact_id', 'count_attempt', 'last_attempt', 'status', 'subscriber_id']);
    assert.deepEqual(
      res.data.map((s: Record<string, unknown>) => [s.contact, s.contact_id, s.status, s.count_attempt, s.last_attempt]),
      [
        ['+12035550101', c.contactIds['+12035550101'], 1, 0, null],
        ['+12035550102', c.contactIds['+12035550102'], 1, 0, null],
      ],
    );
    const list = await call(t.app, alice.auth, 'GET', `/rest-api/subscriber-list/?campaign_id=${c.id}`);
    assert.deepEqual(res.data.map((s: { subscriber_id: number }) => s.subscriber_id), list.data.map((s: { id: number }) => s.id));
    const byAdmin = await call(t.app, admin.auth, 'GET', `/rest-api/subcampaign/${c.id}`);
    assert.deepEqual(byAdmin.data, res.data);
  });

  test('GET /subcampaign/<campaign_id>/<contact_id>/ is the subscriber of that contact; PATCH sets its status and answers 202', async () => {
    const c = await startedCampaign(alice, ['+12035550111', '+12035550112']);
    const contactId = c.contactIds['+12035550112'];
    const one = await call(t.app, alice.auth, 'GET', `/rest-api/subcampaign/${c.id}/${contactId}/`);
    assert.equal(one.statusCode, 200, one.body);
    assert.equal(one.data.length, 1);
    assert.equal(one.data[0].contact, '+12035550112');

    const patch = await call(t.app, alice.auth, 'PATCH', `/rest-api/subcampaign/${c.id}/${contactId}/`, { status: '2' });
    assert.equal(patch.statusCode, 202, patch.body);
    assert.deepEqual(patch.data, [{ ...one.data[0], status: 2 }]);
    const put = await call(t.app, alice.auth, 'PUT', `/rest-api/subcampaign/${c.id}/${contactId}/`, { status: 3 });
    assert.equal(put.statusCode, 202, put.body);
    const read = await call(t.app, alice.auth, 'GET', `/rest-api/subscriber-list/${one.data[0].subscriber_id}/`);
    assert.equal(read.data.status, 3);
    const other = await call(t.app, alice.auth, 'GET', `/rest-api/subcampaign/${c.id}/${c.contactIds['+12035550111']}/`);
    assert.equal(other.data[0].status, 1, 'the other subscriber is unchanged');
  });

  test('a bad or missing status answers 400 and changes nothing; a contact of the caller that is not a subscriber lists [] and PATCH is 404', async () => {
    const c = await startedCampaign(alice, ['+12035550121']);
    const contactId = c.contactIds['+12035550121'];
    for (const body of [{}, { status: 9 }, { status: 'x' }]) {
      const res = await call(t.app, alice.auth, 'PATCH', `/rest-api/subcampaign/${c.id}/${contactId}/`, body);
      assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
      assert.deepEqual(Object.keys(res.data), ['status']);
    }
    const after = await call(t.app, alice.auth, 'GET', `/rest-api/subcampaign/${c.id}/${contactId}/`);
    assert.equal(after.data[0].status, 1);
    const elsewhere = await startedCampaign(alice, ['+12035550122']);
    const stranger = elsewhere.contactIds['+12035550122'];
    const none = await call(t.app, alice.auth, 'GET', `/rest-api/subcampaign/${c.id}/${stranger}/`);
    assert.equal(none.statusCode, 200, none.body);
    assert.deepEqual(none.data, []);
    const patch = await call(t.app, alice.auth, 'PATCH', `/rest-api/subcampaign/${c.id}/${stranger}/`, { status: 2 });
    assert.equal(patch.statusCode, 404, patch.body);
  });

  test("a contact finds the subscriber of its number in any form: (203) 555-0151 read in the US is the one made from +12035550151", async () => {
    const carol = await makeUser(db);
    const country = await call(t.app, admin.auth, 'PATCH', `/rest-api/accounts/${carol.id}/`, { default_country: 'US' });
    assert.equal(country.statusCode, 202, country.body);
    const c = await startedCampaign(carol, ['+12035550151']);
    const book = await call(t.app, carol.auth, 'POST', '/rest-api/phonebook/', { name: unique('book') });
    assert.equal(book.statusCode, 201, book.body);
    const made = await call(t.app, carol.auth, 'POST', '/rest-api/contact/', { phonebook: book.data.id, contact: '(203) 555-0151' });
    assert.equal(made.statusCode, 201, made.body);
    const joined = await call(t.app, carol.auth, 'PATCH', `/rest-api/campaigns/${c.id}/`, { phonebook: [c.book, book.data.id] });
    assert.equal(joined.statusCode, 202, joined.body);
    const one = await call(t.app, carol.auth, 'GET', `/rest-api/subcampaign/${c.id}/${made.data.id}/`);
    assert.equal(one.statusCode, 200, one.body);
    assert.deepEqual(one.data.map((s: { contact: string; contact_id: number }) => [s.contact, s.contact_id]), [['+12035550151', c.contactIds['+12035550151']]]);
    const patch = await call(t.app, carol.auth, 'PATCH', `/rest-api/subcampaign/${c.id}/${made.data.id}/`, { status: 2 });
    assert.equal(patch.statusCode, 202, patch.body);
    assert.deepEqual(patch.data, [{ ...one.data[0], status: 2 }]);
  });

  test("another user's campaign or contact answers 404 with Newfies' message, and nothing changes", async () => {
    const theirs = await startedCampaign(bob, ['+12035550131']);
    const mine = await startedCampaign(alice, ['+12035550131']);
    const bobsContact = theirs.contactIds['+12035550131'];
    for (const path of [`/rest-api/subcampaign/${theirs.id}/`, `/rest-api/subcampaign/${theirs.id}/${bobsContact}/`, '/rest-api/subcampaign/', '/rest-api/subcampaign/999999/', '/rest-api/subcampaign/x/']) {
      const res = await call(t.app, alice.auth, 'GET', path);
      assert.equal(res.statusCode, 404, `${path}: ${res.body}`);
      assert.deepEqual(res.data, NOT_FOUND_CAMPAIGN, path);
    }
    const foreignContact = await call(t.app, alice.auth, 'GET', `/rest-api/subcampaign/${mine.id}/${bobsContact}/`);
    assert.equal(foreignContact.statusCode, 404, foreignContact.body);
    assert.deepEqual(foreignContact.data, NOT_FOUND_CONTACT);
    const patch = await call(t.app, alice.auth, 'PATCH', `/rest-api/subcampaign/${theirs.id}/${bobsContact}/`, { status: 3 });
    assert.equal(patch.statusCode, 404, patch.body);
    const still = await call(t.app, bob.auth, 'GET', `/rest-api/subcampaign/${theirs.id}/${bobsContact}/`);
    assert.equal(still.data[0].status, 1);
  });

  test('401 without credentials', async () => {
    const c = await startedCampaign(alice, ['+12035550141']);
    assert.equal((await call(t.app, undefined, 'GET', `/rest-api/subcampaign/${c.id}/`)).statusCode, 401);
  });
});
