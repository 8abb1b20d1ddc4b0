/**
 * /rest-api/callrequest/ through the HTTP API: the list (envelope, order, filters campaign_id and
 * status, paging), the detail and its survey answers, visibility (contract §3: a callrequest is
 * its campaign owner's; another user's answers 404 and is not listed; an admin sees all), and
 * that the resource is read-only. Rows are inserted directly (the engine writes them).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { callrequests, callResults, campaigns } from '../../db/schema.ts';
import { makeGateway, makeUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, idOf, testApp } from '../../../test/helpers.ts';

const t = await testApp();
const db = t.database.db;
const admin = await makeUser(db, { admin: true });
const alice = await makeUser(db);
const bob = await makeUser(db);
const gateway = await makeGateway(db);

/** A campaign of `userId` with three calls: answered (with two answers), busy, and one in flight. */
async function campaignWithCalls(userId = alice.id) {
  const [campaign] = await db.insert(campaigns).values({ campaign_code: unique('C').toUpperCase(), name: unique('camp'), user_id: userId }).returning();
  const [answered, busy, calling] = await db
    .insert(callrequests)
    .values([
      { campaign_id: campaign.id, status: 4, call_uuid: unique('u'), phone_number: '+12035550101', phone_key: '12035550101', gateway_id: gateway.id, completed: true, hangup_cause: 'NORMAL_CLEARING', hangup_cause_q850: 16, call_time: '2026-03-02T10:00:00Z' },
      { campaign_id: campaign.id, status: 2, call_uuid: unique('u'), phone_number: '+12035550102', phone_key: '12035550102', attempt: 2, hangup_cause: 'USER_BUSY', hangup_cause_q850: 17 },
      { campaign_id: campaign.id, status: 7, call_uuid: unique('u'), phone_number: '+12035550103', phone_key: '12035550103' },
    ])
    .returning();
  await db.insert(callResults).values([
    { callrequest_id: answered.id, section_order: 1, question: 'Satisfied?', response: '1' },
    { callrequest_id: answered.id, section_order: 2, question: 'Score', response: '9' },
  ]);
  return { campaign: campaign.id, answered, busy, calling };
}

const get = (url: string, auth = alice.auth) => call(t.app, auth, 'GET', url);
const ids = (res: { data: { results: { id: number }[] } }) => res.data.results.map((r) => r.id);

describe(`callrequest (${dbLabel})`, () => {
  test('the list is the DRF envelope, in id order, each record with its links', async () => {
    const { campaign, answered, busy, calling } = await campaignWithCalls();
    const res = await get(`/rest-api/callrequest/?campaign_id=${campaign}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.data.count, 3);
    assert.equal(res.data.next, null);
    assert.equal(res.data.previous, null);
    assert.deepEqual(ids(res), [answered.id, busy.id, calling.id]);
    const [first] = res.data.results;
    assert.deepEqual(Object.keys(first).sort(), [
      'aleg_gateway', 'attempt', 'call_time', 'callerid', 'campaign', 'completed', 'created_date', 'hangup_cause',
      'hangup_cause_q850', 'id', 'phone_number', 'request_uuid', 'results', 'status', 'subscriber', 'updated_date', 'url',
    ]);
    assert.equal(idOf(first.url), answered.id);
    assert.equal(first.campaign, `http://localhost:80/rest-api/campaigns/${campaign}/`);
    assert.equal(first.aleg_gateway, `http://localhost:80/rest-api/gateway/${gateway.id}/`);
    assert.equal(first.subscriber, null);
    assert.equal(first.results, `${first.url}results/`);
    assert.equal(first.request_uuid, answered.call_uuid);
    assert.equal(first.status, 4);
    assert.equal(first.completed, true);
    assert.equal(first.hangup_cause, 'NORMAL_CLEARING');
    assert.equal(first.hangup_cause_q850, 16);
    assert.match(first.call_time, /^2026-03-02T10:00:00/);
    assert.equal(res.data.results[1].aleg_gateway, null);
    assert.equal(res.data.results[1].attempt, 2);
    assert.equal(res.data.results[1].call_time, null);
  });

  test('filters: campaign_id and status, alone and together; pages by page_size', async () => {
    const one = await campaignWithCalls();
    const two = await campaignWithCalls();
    assert.deepEqual(ids(await get(`/rest-api/callrequest/?campaign_id=${two.campaign}`)), [two.answered.id, two.busy.id, two.calling.id]);
    assert.deepEqual(ids(await get(`/rest-api/callrequest/?campaign_id=${one.campaign}&status=2`)), [one.busy.id]);
    const calling = ids(await get('/rest-api/callrequest/?status=7&page_size=1000'));
    assert.ok(calling.includes(one.calling.id) && calling.includes(two.calling.id));
    assert.ok(!calling.includes(one.answered.id));
    const page = await get(`/rest-api/callrequest/?campaign_id=${one.campaign}&page_size=2`);
    assert.equal(page.data.count, 3);
    assert.deepEqual(ids(page), [one.answered.id, one.busy.id]);
    assert.ok(page.data.next);
    const next = await get(page.data.next);
    assert.deepEqual(ids(next), [one.calling.id]);
  });

  test('detail and its survey answers, in order', async () => {
    const { answered, busy } = await campaignWithCalls();
    const one = await get(`/rest-api/callrequest/${answered.id}/`);
    assert.equal(one.statusCode, 200, one.body);
    assert.equal(one.data.id, answered.id);
    assert.equal(one.data.phone_number, '+12035550101');
    const results = await get(`/rest-api/callrequest/${answered.id}/results/`);
    assert.equal(results.statusCode, 200, results.body);
    assert.equal(results.data.count, 2);
    assert.deepEqual(results.data.results.map((r: { question: string; response: string }) => [r.question, r.response]), [['Satisfied?', '1'], ['Score', '9']]);
    assert.equal(results.data.results[0].callrequest, one.data.url);
    assert.equal(results.data.results[0].section, null);
    assert.equal((await get(`/rest-api/callrequest/${busy.id}/results/`)).data.count, 0);
  });

  test("another user's callrequest is 404 (detail and answers) and not listed; an admin sees it", async () => {
    const { campaign, answered } = await campaignWithCalls(alice.id);
    assert.equal((await get(`/rest-api/callrequest/${answered.id}/`, bob.auth)).statusCode, 404);
    assert.equal((await get(`/rest-api/callrequest/${answered.id}/results/`, bob.auth)).statusCode, 404);
    assert.equal((await get(`/rest-api/callrequest/?campaign_id=${campaign}`, bob.auth)).data.count, 0);
    assert.equal((await get('/rest-api/callrequest/', bob.auth)).data.count, 0);
    assert.equal((await get(`/rest-api/callrequest/${answered.id}/`, admin.auth)).statusCode, 200);
    assert.equal((await get(`/rest-api/callrequest/?campaign_id=${campaign}`, admin.auth)).data.count, 3);
  });

  test('an unknown id is 404; without credentials 401; the resource is read-only', async () => {
    const { answered } = await campaignWithCalls();
    assert.equal((await get('/rest-api/callrequest/999999999/')).statusCode, 404);
    assert.equal((await call(t.app, undefined, 'GET', '/rest-api/callrequest/')).statusCode, 401);
    assert.equal((await call(t.app, alice.auth, 'POST', '/rest-api/callrequest/', {})).statusCode, 405);
    assert.equal((await call(t.app, alice.auth, 'PATCH', `/rest-api/callrequest/${answered.id}/`, { status: 1 })).statusCode, 405);
    assert.equal((await call(t.app, alice.auth, 'DELETE', `/rest-api/callrequest/${answered.id}/`)).statusCode, 405);
  });
});
