import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { smsCampaigns, smsMessages } from '../../db/schema.ts';
import { makeSmsGateway, makeUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, testApp } from '../../../test/helpers.ts';

const t = await testApp();
const db = t.database.db;
const alice = await makeUser(db);
const bob = await makeUser(db);
const admin = await makeUser(db, { admin: true });
const gateway = (await makeSmsGateway(db)).id;

/** An SMS campaign of `userId` with three messages: delivered, failed, unsent. */
async function messages(userId: number) {
  const [c] = await db
    .insert(smsCampaigns)
    .values({ name: unique('sms'), sms_campaign_code: unique('C').toUpperCase(), user_id: userId, sms_gateway_id: gateway, text_message: 'Hi' })
    .returning();
  const base = { sms_campaign_id: c.id, user_id: userId, sms_gateway_id: gateway, sender_number: 'ACME', content: 'Hi' };
  const rows = await db
    .insert(smsMessages)
    .values([
      { ...base, recipient_number: '+12035550101', status: 'delivered', cost: '0.0123', parts: 2, gateway_message_id: 'g1', send_date: '2026-11-21T10:00:00Z', delivery_date: '2026-11-21T10:00:05Z' },
      { ...base, recipient_number: '+12035550102', status: 'failed', error: 'no route', send_date: null },
      { ...base, recipient_number: '+12035550103' },
    ])
    .returning();
  return { campaign: c.id, rows };
}

describe(`sms-message (${dbLabel})`, () => {
  test('the list and detail carry every field; cost has 5 decimals', async () => {
    const { campaign, rows } = await messages(alice.id);
    const list = await call(t.app, alice.auth, 'GET', `/rest-api/sms-message/?sms_campaign_id=${campaign}`);
    assert.equal(list.statusCode, 200, list.body);
    assert.equal(list.data.count, 3);
    const one = await call(t.app, alice.auth, 'GET', `/rest-api/sms-message/${rows[0].id}/`);
    assert.equal(one.statusCode, 200, one.body);
    assert.deepEqual(one.data, {
      id: rows[0].id,
      url: `http://localhost:80/rest-api/sms-message/${rows[0].id}/`,
      sms_campaign: `http://localhost:80/rest-api/sms-campaigns/${campaign}/`,
      callrequest: null,
      recipient_number: '+12035550101',
      sender_number: 'ACME',
      content: 'Hi',
      parts: 2,
      cost: '0.01230',
      status: 'delivered',
      gateway_message_id: 'g1',
      send_date: '2026-11-21T10:00:00.000000Z',
      delivery_date: '2026-11-21T10:00:05.000000Z',
      error: '',
    });
    assert.deepEqual(list.data.results[2].send_date, null);
    assert.equal(list.data.results[2].status, 'unsent');
  });

  test('filters by status and recipient_number; a bad filter answers 400', async () => {
    const { campaign } = await messages(alice.id);
    const q = (s: string) => call(t.app, alice.auth, 'GET', `/rest-api/sms-message/?sms_campaign_id=${campaign}&${s}`);
    assert.deepEqual((await q('status=failed')).data.results.map((r: { error: string }) => r.error), ['no route']);
    assert.equal((await q('recipient_number=%2B1 203-555-0103')).data.count, 1);
    assert.equal((await q('status=lost')).statusCode, 400);
    assert.equal((await q('sms_campaign_id=x')).statusCode, 400);
  });

  test("another user's messages answer 404 and are not listed; an admin sees them; 401 without credentials", async () => {
    const { campaign, rows } = await messages(alice.id);
    assert.equal((await call(t.app, bob.auth, 'GET', `/rest-api/sms-message/${rows[0].id}/`)).statusCode, 404);
    assert.equal((await call(t.app, bob.auth, 'GET', `/rest-api/sms-message/?sms_campaign_id=${campaign}`)).data.count, 0);
    assert.equal((await call(t.app, admin.auth, 'GET', `/rest-api/sms-message/?sms_campaign_id=${campaign}`)).data.count, 3);
    assert.equal((await call(t.app, undefined, 'GET', '/rest-api/sms-message/')).statusCode, 401);
    assert.equal((await call(t.app, alice.auth, 'POST', '/rest-api/sms-message/', {})).statusCode, 405);
    assert.equal((await call(t.app, alice.auth, 'GET', '/rest-api/sms-message/999999/')).statusCode, 404);
  });
});
