/**
 * Recycling an SMS campaign's final subscribers (POST /rest-api/sms-campaigns/<id>/recycle/):
 * through the API, with the engine on a scripted SMS driver, delivery reports and a fake clock.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eq } from 'drizzle-orm';
import { CampaignStatus, SmsSubscriberStatus, smsCampaigns } from '../../db/schema.ts';
import { makeUser } from '../../../test/factories.ts';
import { call, dbLabel, logCaughtUp, testApp } from '../../../test/helpers.ts';
import { ScriptedSmsDriver, smsMessageRows, smsPass, smsScenario, smsSubscriberRows } from './sms.fixtures.ts';

const t = await testApp();
const db = t.database.db;
const { Pending, Fail, Complete } = SmsSubscriberStatus;

const subscriberRows = (campaignId: number) => smsSubscriberRows(db, campaignId);
const messageRows = (campaignId: number) => smsMessageRows(db, campaignId);

/**
 * A campaign whose three subscribers ended FAIL (refused), COMPLETE with their message's delivery
 * report failed, and COMPLETE delivered; the driver refuses only the first send to +15550001.
 */
async function finished() {
  const driver = new ScriptedSmsDriver((m, nth) =>
    m.to === '+15550001' && nth <= 3 ? { ok: false, error: 'invalid number', retry: false } : { ok: true, gatewayMessageId: `gw-${m.messageId}` },
  );
  const s = await smsScenario(db, { driver, numbers: ['+15550001', '+15550002', '+15550003'], user: { sms_rate: '0.05' } });
  assert.equal(await smsPass(s), 3);
  const sent = await messageRows(s.campaignId);
  await s.events.report(s.gatewayId, { gatewayMessageId: sent[1].gateway_message_id, status: 'failed', at: s.clock.now() });
  await s.events.report(s.gatewayId, { gatewayMessageId: sent[2].gateway_message_id, status: 'delivered', at: s.clock.now() });
  assert.deepEqual((await messageRows(s.campaignId)).map((m) => m.status), ['failed', 'failed', 'delivered']);
  assert.deepEqual((await subscriberRows(s.campaignId)).map((r) => [r.status, r.reason]), [[Fail, 'no attempt left (last: invalid number)'], [Complete, ''], [Complete, '']]);
  const recycle = (body: unknown, auth = s.user.auth) => call(t.app, auth, 'POST', `/rest-api/sms-campaigns/${s.campaignId}/recycle/`, body);
  return { s, driver, recycle };
}

test(`SMS recycle by the last message's status sends again to those whose delivery failed, attempts from zero (${dbLabel})`, async () => {
  const { s, driver, recycle } = await finished();
  const res = await recycle({ statuses: [5], message_statuses: ['failed'] });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.data, { recycled: 1 });
  assert.deepEqual((await subscriberRows(s.campaignId)).map((r) => [r.status, r.count_attempt]), [[Fail, 1], [Pending, 0], [Complete, 1]]);
  await s.clock.advance(1_000);
  assert.equal(await smsPass(s), 1);
  assert.deepEqual(driver.sent.map((m) => m.to), ['+15550001', '+15550002', '+15550003', '+15550002']);
  const messages = await messageRows(s.campaignId);
  // A new round: its first attempt again, charged again.
  assert.deepEqual(messages.map((m) => [m.recipient_number, m.status, m.attempt, m.cost]), [
    ['+15550001', 'failed', 1, '0.00000'],
    ['+15550002', 'failed', 1, '0.05000'],
    ['+15550003', 'delivered', 1, '0.05000'],
    ['+15550002', 'sent', 1, '0.05000'],
  ]);
  assert.deepEqual((await subscriberRows(s.campaignId)).map((r) => [r.status, r.count_attempt]), [[Fail, 1], [Complete, 1], [Complete, 1]]);

  // The default is FAIL: the refused one, sent again (the driver now takes it).
  assert.deepEqual((await recycle({})).data, { recycled: 1 });
  await s.clock.advance(1_000);
  assert.equal(await smsPass(s), 1);
  assert.deepEqual((await subscriberRows(s.campaignId)).map((r) => r.status), [Complete, Complete, Complete]);

  await logCaughtUp(t.database);
  const events = await call(t.app, s.user.auth, 'GET', `/rest-api/events/?format=json&after=0&campaign_id=${s.campaignId}&types=campaign.recycled`);
  assert.deepEqual(
    events.data.results.map((e: { data: Record<string, unknown> }) => [e.data.kind, String(e.data.campaign).endsWith(`/rest-api/sms-campaigns/${s.campaignId}/`), e.data.recycled, e.data.statuses, e.data.message_statuses, e.data.last_attempt_before]),
    [
      ['sms', true, 1, [5], ['failed'], null],
      ['sms', true, 1, [4], null, null],
    ],
    events.body,
  );
});

test(`SMS recycle with last_attempt_before: none sent after the date come back (${dbLabel})`, async () => {
  const { s, recycle } = await finished();
  // The messages were sent at the fake clock's 2026-01-05 09:00.
  assert.deepEqual((await recycle({ statuses: [4, 5], last_attempt_before: '2026-01-05 08:00:00' })).data, { recycled: 0 });
  assert.deepEqual((await recycle({ statuses: [4, 5], message_statuses: 'DELIVERED', last_attempt_before: '2026-01-05T10:00:00Z' })).data, { recycled: 1 });
  assert.deepEqual((await subscriberRows(s.campaignId)).map((r) => r.status), [Fail, Complete, Pending]);
});

test(`SMS recycle refuses bad filters (400), another user's campaign (404) and an ended campaign (409), changing nothing (${dbLabel})`, async () => {
  const { s, recycle } = await finished();
  const before = await subscriberRows(s.campaignId);
  // 8 (COMPLETED) is a voice status; BUSY is a call's disposition, not a message's status.
  const bad = await recycle({ statuses: [8], message_statuses: ['BUSY'], last_attempt_before: 'yesterday' });
  assert.equal(bad.statusCode, 400, bad.body);
  assert.deepEqual(Object.keys(bad.data).sort(), ['last_attempt_before', 'message_statuses', 'statuses'], bad.body);
  assert.match(bad.data.statuses[0], /use 3, 4, 5, 7/);
  assert.equal((await recycle({ message_statuses: [] })).statusCode, 400);
  const bob = await makeUser(db);
  assert.equal((await recycle({}, bob.auth)).statusCode, 404);
  await db.update(smsCampaigns).set({ status: CampaignStatus.End }).where(eq(smsCampaigns.id, s.campaignId));
  const ended = await recycle({});
  assert.equal(ended.statusCode, 409, ended.body);
  assert.match(ended.data.detail, /An ended or aborted SMS campaign does not send again/);
  assert.deepEqual(await subscriberRows(s.campaignId), before);
});
