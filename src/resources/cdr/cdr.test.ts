import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { callrequests, callResults, cdrs } from '../../db/schema.ts';
import { makeGateway, makeSurvey, makeUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, testApp } from '../../../test/helpers.ts';

const t = await testApp();
const db = t.database.db;
const alice = await makeUser(db);
const bob = await makeUser(db);
const gateway = (await makeGateway(db)).id;

/** A campaign of alice with two calls: one answered (with a survey answer), one busy. */
async function calls() {
  const body = { name: unique('camp'), aleg_gateway: gateway, object_id: await makeSurvey(db, alice.id) };
  const campaign = (await call(t.app, alice.auth, 'POST', '/rest-api/campaigns/', body)).data.id as number;
  const [answered, busy] = await db
    .insert(callrequests)
    .values([
      { campaign_id: campaign, status: 4, call_uuid: unique('u'), phone_number: '+12035550101', phone_key: '12035550101' },
      { campaign_id: campaign, status: 2, call_uuid: unique('u'), phone_number: '+12035550102', phone_key: '12035550102' },
    ])
    .returning();
  await db.insert(callResults).values({ callrequest_id: answered.id, question: 'Q1', response: '1' });
  await db.insert(cdrs).values([
    { callid: answered.call_uuid, phone_number: '+12035550101', starting_date: '2026-11-20T10:00:00Z', billsec: 30, duration: 40, billed_duration: 30, call_cost: '0.01', hangup_cause_q850: 16, disposition: 'ANSWER', callrequest_id: answered.id, campaign_id: campaign, user_id: alice.id },
    { callid: busy.call_uuid, phone_number: '+12035550102', starting_date: '2026-11-21T10:00:00Z', hangup_cause_q850: 17, disposition: 'BUSY', callrequest_id: busy.id, campaign_id: campaign, user_id: alice.id, callerid: 'a,"b"' },
  ]);
  return { campaign, answered, busy };
}

describe(`callrequest and cdr (${dbLabel})`, () => {
  test('callrequest list filters by campaign_id and status; detail and results answer', async () => {
    const { campaign, answered } = await calls();
    const list = await call(t.app, alice.auth, 'GET', `/rest-api/callrequest/?campaign_id=${campaign}`);
    assert.equal(list.statusCode, 200, list.body);
    assert.equal(list.data.count, 2);
    const ok = await call(t.app, alice.auth, 'GET', `/rest-api/callrequest/?campaign_id=${campaign}&status=4`);
    assert.deepEqual(ok.data.results.map((r: { id: number }) => r.id), [answered.id]);
    const one = await call(t.app, alice.auth, 'GET', `/rest-api/callrequest/${answered.id}/`);
    assert.equal(one.data.phone_number, '+12035550101');
    const results = await call(t.app, alice.auth, 'GET', `/rest-api/callrequest/${answered.id}/results/`);
    assert.equal(results.statusCode, 200, results.body);
    assert.equal(results.data.results[0].response, '1');
    assert.equal((await call(t.app, alice.auth, 'POST', '/rest-api/callrequest/', {})).statusCode, 405);
  });

  test("another user's calls and CDRs answer 404 and are not listed; 401 without credentials", async () => {
    const { campaign, answered } = await calls();
    assert.equal((await call(t.app, bob.auth, 'GET', `/rest-api/callrequest/${answered.id}/`)).statusCode, 404);
    assert.equal((await call(t.app, bob.auth, 'GET', `/rest-api/callrequest/${answered.id}/results/`)).statusCode, 404);
    assert.equal((await call(t.app, bob.auth, 'GET', `/rest-api/cdr/?campaign_id=${campaign}`)).data.count, 0);
    assert.equal((await call(t.app, bob.auth, 'GET', `/rest-api/callrequest/`)).data.count, 0);
    assert.equal((await call(t.app, undefined, 'GET', '/rest-api/cdr/')).statusCode, 401);
  });

  test('cdr list carries the spec fields and disposition, and filters', async () => {
    const { campaign } = await calls();
    const list = await call(t.app, alice.auth, 'GET', `/rest-api/cdr/?campaign_id=${campaign}`);
    assert.equal(list.data.count, 2, list.body);
    const [first] = list.data.results;
    assert.equal(first.call_cost, '0.01000');
    assert.equal(first.disposition, 'ANSWER');
    assert.equal(first.starting_date, '2026-11-20T10:00:00.000000Z');
    const q = (s: string) => call(t.app, alice.auth, 'GET', `/rest-api/cdr/?campaign_id=${campaign}&${s}`);
    assert.equal((await q('disposition=BUSY')).data.count, 1);
    assert.equal((await q('phone_number=%2B12035550101')).data.count, 1);
    assert.equal((await q('starting_date__gte=2026-11-21 00:00:00')).data.count, 1);
    assert.equal((await q('starting_date__lte=2026-11-21T00:00:00Z')).data.count, 1);
    assert.equal((await q('starting_date__gte=soon')).statusCode, 400);
    const one = await call(t.app, alice.auth, 'GET', `/rest-api/cdr/${first.id}/`);
    assert.equal(one.data.callid, first.callid);
  });

  test('format=csv streams the same filter as CSV', async () => {
    const { campaign } = await calls();
    const res = await call(t.app, alice.auth, 'GET', `/rest-api/cdr/?campaign_id=${campaign}&format=csv`);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    const lines = res.body.trim().split('\r\n');
    assert.equal(lines.length, 3, res.body);
    assert.match(lines[0], /^id,callid,callerid,phone_number,starting_date/);
    assert.match(lines[2], /,"a,""b""",\+12035550102,/);
    const busy = await call(t.app, alice.auth, 'GET', `/rest-api/cdr/?campaign_id=${campaign}&format=csv&disposition=busy`);
    assert.equal(busy.body.trim().split('\r\n').length, 2);
  });

  test('format=csv neutralises formula-like cells behind a quote, unless csv_injection_safe=false', async () => {
    const { campaign, busy } = await calls();
    await db.update(cdrs).set({ callerid: '=HYPERLINK("http://example.test","x")' }).where(eq(cdrs.callid, busy.call_uuid));
    const url = `/rest-api/cdr/?campaign_id=${campaign}&format=csv&disposition=busy`;
    const safe = await call(t.app, alice.auth, 'GET', url);
    assert.equal(safe.statusCode, 200, safe.body);
    assert.match(safe.body.split('\r\n')[1], /,"'=HYPERLINK\(""http:\/\/example.test"",""x""\)",\+12035550102,/);
    const raw = await call(t.app, alice.auth, 'GET', `${url}&csv_injection_safe=false`);
    assert.match(raw.body.split('\r\n')[1], /,"=HYPERLINK\(""http:\/\/example.test"",""x""\)",\+12035550102,/);
    const bad = await call(t.app, alice.auth, 'GET', `${url}&csv_injection_safe=nope`);
    assert.equal(bad.statusCode, 400, bad.body);
  });
});
