import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { queryRows } from '../../db/database.ts';
import { CampaignStatus, contacts, dncContacts, dncLists, smsCampaigns, smsSubscribers, users } from '../../db/schema.ts';
import { isDoNotCall } from '../../campaign/dnc.ts';
import { makeEngine, makePhonebook, makeUser } from '../../../test/factories.ts';
import { call, dbLabel, testApp } from '../../../test/helpers.ts';
import { claimMessages } from './claim.ts';
import { ScriptedSmsDriver, smsMessageRows, smsPass, smsScenario, smsSubscriberRows } from './sms.fixtures.ts';

const t = await testApp();
const db = t.database.db;

const subscriberRows = (campaignId: number) => smsSubscriberRows(db, campaignId);
const messageRows = (campaignId: number) => smsMessageRows(db, campaignId);
const campaignRow = async (id: number) => (await db.select().from(smsCampaigns).where(eq(smsCampaigns.id, id)))[0];
const balanceOf = async (id: number) => (await db.select({ b: users.balance }).from(users).where(eq(users.id, id)))[0].b;

test(`frequency 6 per minute sends one message every 10 seconds (${dbLabel})`, async () => {
  const s = await smsScenario(db, { campaign: { frequency: 6 }, numbers: ['+15550001', '+15550002', '+15550003'] });
  assert.equal(await smsPass(s), 1);
  await s.clock.advance(5_000);
  assert.equal(await smsPass(s), 0);
  await s.clock.advance(5_000);
  assert.equal(await smsPass(s), 1);
  await s.clock.advance(9_900);
  assert.equal(await smsPass(s), 0);
  await s.clock.advance(100);
  assert.equal(await smsPass(s), 1);
  assert.deepEqual((await subscriberRows(s.campaignId)).map((r) => r.status), [5, 5, 5]);
});

test(`without a pace limit every due subscriber is sent in one pass (${dbLabel})`, async () => {
  const numbers = Array.from({ length: 30 }, (_, i) => `+1555100${String(i).padStart(2, '0')}`);
  const s = await smsScenario(db, { numbers });
  assert.equal(await smsPass(s), 30);
  const messages = await messageRows(s.campaignId);
  assert.equal(messages.length, 30);
  assert.ok(messages.every((m) => m.status === 'sent' && m.gateway_message_id === `sim-${m.id}` && m.engine_id === ''), JSON.stringify(messages[0]));
});

test(`a daily window crossing midnight sends at 23:00 and not at noon (${dbLabel})`, async () => {
  const s = await smsScenario(db, { campaign: { daily_start_time: '22:00:00', daily_stop_time: '06:00:00' }, clockAt: '2026-01-05T12:00:00Z' });
  assert.equal(await smsPass(s), 0);
  assert.equal((await campaignRow(s.campaignId)).engine_state, 'outside hours');
  const read = await call(t.app, s.user.auth, 'GET', `/rest-api/sms-campaigns/${s.campaignId}/`);
  assert.equal(read.data.dialing_state, 'outside hours', read.body);
  await s.clock.set('2026-01-05T23:00:00Z');
  assert.equal(await smsPass(s), 1);
});

test(`an inactive gateway sends nothing and says so (${dbLabel})`, async () => {
  const s = await smsScenario(db, { gateway: { status: 0 } });
  assert.equal(await smsPass(s), 0);
  assert.equal((await campaignRow(s.campaignId)).engine_state, 'gateway inactive');
  assert.equal((await messageRows(s.campaignId)).length, 0);
});

test(`a number put on the owner's global DNC list mid-campaign becomes NOT_AUTHORIZED without a message (${dbLabel})`, async () => {
  const s = await smsScenario(db, { campaign: { frequency: 6 }, numbers: ['+15550001', '+1 555-0002'] });
  assert.equal(await smsPass(s), 1);
  const [list] = await db.insert(dncLists).values({ name: 'global', user_id: s.user.id, is_global: true }).returning();
  await db.insert(dncContacts).values({ dnc_id: list.id, phone_number: '15550002', phone_key: '15550002' });
  await s.clock.advance(10_000);
  assert.equal(await smsPass(s), 0);
  const rows = await subscriberRows(s.campaignId);
  assert.deepEqual(rows.map((r) => r.status), [5, 7]);
  assert.deepEqual((await messageRows(s.campaignId)).map((m) => m.recipient_number), ['+15550001']);
});

test(`credit running out stops sending until a payment (${dbLabel})`, async () => {
  const s = await smsScenario(db, { user: { balance: '0.02', sms_rate: '0.01' }, numbers: ['+15550001', '+15550002', '+15550003', '+15550004'] });
  assert.equal(await smsPass(s), 2);
  assert.equal(Number(await balanceOf(s.user.id)), 0);
  assert.equal(await smsPass(s), 0);
  assert.equal((await campaignRow(s.campaignId)).engine_state, 'waiting for credit');
  const read = await call(t.app, s.user.auth, 'GET', `/rest-api/sms-campaigns/${s.campaignId}/`);
  assert.equal(read.data.dialing_state, 'waiting for credit');
  const admin = await makeUser(db, { admin: true });
  const paid = await call(t.app, admin.auth, 'POST', '/rest-api/payment/', { user: s.user.id, amount: '1' });
  assert.equal(paid.statusCode, 201, paid.body);
  assert.equal(await smsPass(s), 2);
  assert.equal(await balanceOf(s.user.id), '0.98000');
});

test(`an owner deactivated through /accounts/ stops sending until activated again (${dbLabel})`, async () => {
  const s = await smsScenario(db, { campaign: { frequency: 6 }, numbers: ['+15550001', '+15550002'] });
  assert.equal(await smsPass(s), 1);
  const admin = await makeUser(db, { admin: true });
  const off = await call(t.app, admin.auth, 'PATCH', `/rest-api/accounts/${s.user.id}/`, { is_active: false });
  assert.equal(off.statusCode, 202, off.body);
  await s.clock.advance(10_000);
  assert.equal(await smsPass(s), 0);
  const read = await call(t.app, admin.auth, 'GET', `/rest-api/sms-campaigns/${s.campaignId}/`);
  assert.equal(read.data.dialing_state, 'account deactivated');
  const on = await call(t.app, admin.auth, 'PATCH', `/rest-api/accounts/${s.user.id}/`, { is_active: true });
  assert.equal(on.statusCode, 202, on.body);
  assert.equal(await smsPass(s), 1);
  assert.deepEqual((await messageRows(s.campaignId)).map((m) => m.recipient_number), ['+15550001', '+15550002']);
});

test(`a failed send is retried after intervalretry while attempts remain, and not charged (${dbLabel})`, async () => {
  const driver = new ScriptedSmsDriver((m, nth) => (nth === 1 ? { ok: false, error: 'throttled', retry: true } : { ok: true, gatewayMessageId: `ok-${m.messageId}` }));
  const s = await smsScenario(db, { driver, user: { sms_rate: '0.05' }, campaign: { maxretry: 1, intervalretry: 60 } });
  assert.equal(await smsPass(s), 1);
  let [sub] = await subscriberRows(s.campaignId);
  assert.equal(sub.status, 1);
  assert.equal(sub.reason, 'throttled');
  assert.equal(await balanceOf(s.user.id), '100.00000');
  await s.clock.advance(30_000);
  assert.equal(await smsPass(s), 0);
  await s.clock.advance(30_000);
  assert.equal(await smsPass(s), 1);
  [sub] = await subscriberRows(s.campaignId);
  assert.equal(sub.status, 5);
  assert.equal(sub.count_attempt, 2);
  const messages = await messageRows(s.campaignId);
  assert.deepEqual(messages.map((m) => [m.status, m.attempt, m.cost, m.error]), [['failed', 1, '0.00000', 'throttled'], ['sent', 2, '0.05000', '']]);
  assert.equal(await balanceOf(s.user.id), '99.95000');
});

test(`a failed send with no attempt left, or a permanent refusal, makes the subscriber FAIL (${dbLabel})`, async () => {
  const driver = new ScriptedSmsDriver((m) =>
    m.to === '+15550001' ? { ok: false, error: 'no route', retry: true } : { ok: false, error: 'invalid number', retry: false },
  );
  const s = await smsScenario(db, { driver, numbers: ['+15550001', '+15550002'], campaign: { maxretry: 0 } });
  await smsPass(s);
  const rows = await subscriberRows(s.campaignId);
  assert.deepEqual(rows.map((r) => [r.status, r.reason]), [[4, 'no attempt left (last: no route)'], [4, 'no attempt left (last: invalid number)']]);
});

test(`text_message is rendered with full_name and additional_vars; unknown placeholders stay (${dbLabel})`, async () => {
  const s = await smsScenario(db, {
    campaign: { text_message: 'Hi {full_name}, you owe {debt} (ref {ref}) {unknown}' },
    subscriber: { full_name: 'Ada Lovelace', additional_vars: { debt: '12.50', ref: 7 } },
  });
  await smsPass(s);
  const [m] = await messageRows(s.campaignId);
  assert.equal(m.content, 'Hi Ada Lovelace, you owe 12.50 (ref 7) {unknown}');
  assert.equal(m.sender_number, '5550100');
});

test(`parts and cost: GSM-7 161 characters is 2 parts, UCS-2 71 characters 2 parts, 70 one; cost to 5 decimals (${dbLabel})`, async () => {
  const cases = [
    { text: 'a'.repeat(160), parts: 1 },
    { text: 'a'.repeat(161), parts: 2 },
    { text: 'Ж'.repeat(70), parts: 1 },
    { text: 'Ж'.repeat(71), parts: 2 },
  ];
  for (const c of cases) {
    const s = await smsScenario(db, { campaign: { text_message: c.text }, user: { sms_rate: '0.00333', balance: '1' } });
    await smsPass(s);
    const [m] = await messageRows(s.campaignId);
    assert.equal(m.parts, c.parts, c.text);
    assert.equal(m.cost, (0.00333 * c.parts).toFixed(5));
    assert.equal(await balanceOf(s.user.id), (1 - 0.00333 * c.parts).toFixed(5));
    const read = await call(t.app, s.user.auth, 'GET', `/rest-api/sms-message/${m.id}/`);
    assert.equal(read.data.cost, (0.00333 * c.parts).toFixed(5), read.body);
  }
});

test(`a START campaign ends at its expiration (${dbLabel})`, async () => {
  const s = await smsScenario(db, { campaign: { expirationdate: '2026-01-05T10:00:00Z', frequency: 1 }, numbers: ['+15550001', '+15550002'] });
  assert.equal(await smsPass(s), 1);
  await s.clock.set('2026-01-05T10:00:01Z');
  assert.equal(await smsPass(s), 0);
  const c = await campaignRow(s.campaignId);
  assert.equal(c.status, CampaignStatus.End);
  assert.equal(c.engine_state, 'finished (expired)');
});

test(`end_when_done ends once every subscriber is final; without it the campaign stays START (${dbLabel})`, async () => {
  const done = await smsScenario(db, { campaign: { end_when_done: true } });
  await smsPass(done);
  await smsPass(done);
  assert.equal((await campaignRow(done.campaignId)).status, CampaignStatus.End);
  const open = await smsScenario(db, {});
  await smsPass(open);
  await smsPass(open);
  assert.equal((await campaignRow(open.campaignId)).status, CampaignStatus.Start);
});

test(`a contact added to a running campaign's phonebook is messaged (${dbLabel})`, async () => {
  // Spooled subscribers are due from the wall-clock now: the test clock is set after it.
  const s = await smsScenario(db, { numbers: [], campaign: { expirationdate: '2099-01-01T00:00:00Z' }, clockAt: '2098-01-05T09:00:00Z' });
  const book = await makePhonebook(db, s.user.id, ['+15557001']);
  const patched = await call(t.app, s.user.auth, 'PATCH', `/rest-api/sms-campaigns/${s.campaignId}/`, { phonebook: [book] });
  assert.equal(patched.statusCode, 202, patched.body);
  assert.equal(await smsPass(s), 1);
  await db.insert(contacts).values({ phonebook_id: book, contact: '+15557002', phone_key: '15557002', full_name: 'Late' });
  assert.equal(await smsPass(s), 1);
  assert.deepEqual((await messageRows(s.campaignId)).map((m) => m.recipient_number), ['+15557001', '+15557002']);
});

test(`PAUSE stops sending; ABORT marks pending subscribers ABORT (${dbLabel})`, async () => {
  const s = await smsScenario(db, { campaign: { frequency: 6 }, numbers: ['+15550001', '+15550002', '+15550003'] });
  assert.equal(await smsPass(s), 1);
  await db.update(smsCampaigns).set({ status: CampaignStatus.Pause }).where(eq(smsCampaigns.id, s.campaignId));
  await s.clock.advance(60_000);
  assert.equal(await smsPass(s), 0);
  await db.update(smsCampaigns).set({ status: CampaignStatus.Abort }).where(eq(smsCampaigns.id, s.campaignId));
  await smsPass(s);
  assert.deepEqual((await subscriberRows(s.campaignId)).map((r) => r.status), [5, 3, 3]);
});

test(`a STOP reply puts the number on the owner's "SMS opt-out" global list: never messaged nor called again (${dbLabel})`, async () => {
  const s = await smsScenario(db, { numbers: ['+15558001'] });
  await smsPass(s);
  await s.events.inbound(s.gatewayId, { from: '15558001', to: '5550100', text: '  stop please', at: s.clock.now() });
  const [inbound] = await queryRows<{ opt_out: string; sender_number: string }>(db, sql`select opt_out, sender_number from sms_inbound where sms_gateway_id = ${s.gatewayId}`);
  assert.deepEqual({ ...inbound }, { opt_out: 'STOP', sender_number: '15558001' });
  const lists = await db.select().from(dncLists).where(eq(dncLists.user_id, s.user.id));
  assert.deepEqual(lists.map((l) => [l.name, l.is_global]), [['SMS opt-out', true]]);
  assert.equal(await isDoNotCall(db, s.user.id, null, '+15558001'), true);
  // Another campaign of the same owner: the number is NOT_AUTHORIZED, no message.
  const again = await smsScenario(db, { numbers: ['+15558001'] });
  await db.update(smsCampaigns).set({ user_id: s.user.id }).where(eq(smsCampaigns.id, again.campaignId));
  await smsPass(again);
  assert.deepEqual((await subscriberRows(again.campaignId)).map((r) => r.status), [7]);
  assert.equal((await messageRows(again.campaignId)).length, 0);
  // A reply that is not an opt-out is only stored.
  await s.events.inbound(s.gatewayId, { from: '+15558002', to: '5550100', text: 'stopping by later', at: s.clock.now() });
  assert.equal(await isDoNotCall(db, s.user.id, null, '+15558002'), false);
});

test(`delivery reports change statuses; 'sent' never downgrades; a failed delivery is not refunded (${dbLabel})`, async () => {
  const delivered = await smsScenario(db, { gateway: { settings: { delivery_rate: 1, failure_rate: 0 } }, user: { sms_rate: '0.01' } });
  await smsPass(delivered);
  let [m] = await messageRows(delivered.campaignId);
  assert.equal(m.status, 'delivered');
  assert.ok(m.delivery_date);
  await delivered.events.report(delivered.gatewayId, { gatewayMessageId: m.gateway_message_id, status: 'sent', at: delivered.clock.now() });
  await delivered.events.report(delivered.gatewayId, { gatewayMessageId: m.gateway_message_id, status: 'failed', at: delivered.clock.now() });
  [m] = await messageRows(delivered.campaignId);
  assert.equal(m.status, 'delivered');

  const failed = await smsScenario(db, { gateway: { settings: { delivery_rate: 0, failure_rate: 1 } }, user: { sms_rate: '0.01' } });
  await smsPass(failed);
  [m] = await messageRows(failed.campaignId);
  assert.deepEqual([m.status, m.error, m.cost], ['failed', 'simulated failure', '0.01000']);
  assert.equal(await balanceOf(failed.user.id), '99.99000');
  assert.deepEqual((await subscriberRows(failed.campaignId)).map((r) => r.status), [5]);

  const silent = await smsScenario(db, {});
  await smsPass(silent);
  [m] = await messageRows(silent.campaignId);
  assert.equal(m.status, 'sent');
  await silent.events.report(silent.gatewayId, { gatewayMessageId: m.gateway_message_id, status: 'delivered', at: silent.clock.now() });
  [m] = await messageRows(silent.campaignId);
  assert.equal(m.status, 'delivered');
  // Another gateway's report does not touch it.
  await silent.events.report(delivered.gatewayId, { messageId: m.id, status: 'failed', at: silent.clock.now() });
  assert.equal((await messageRows(silent.campaignId))[0].status, 'delivered');
});

test(`messages left unsent by a dead engine are settled as failed ENGINE_RESTART and retried, never sent twice (${dbLabel})`, async () => {
  const driver = new ScriptedSmsDriver();
  const s = await smsScenario(db, { driver, numbers: ['+15559001', '+15559002'], campaign: { maxretry: 1, intervalretry: 0 } });
  await db.update(smsSubscribers).set({ count_attempt: 0 }).where(eq(smsSubscribers.sms_campaign_id, s.campaignId));
  const dead = makeEngine(db, s.clock, { smsDriver: driver, engineId: 'dead-engine' });
  const claim = await claimMessages(dead.ctx, s.campaignId); // committed, then the engine "dies"
  assert.equal(claim.messages.length, 2);
  await s.clock.advance(60_000);
  assert.equal(await s.engine.recover(), 2);
  let messages = await messageRows(s.campaignId);
  assert.deepEqual(messages.map((m) => [m.status, m.error]), [['failed', 'ENGINE_RESTART'], ['failed', 'ENGINE_RESTART']]);
  assert.deepEqual((await subscriberRows(s.campaignId)).map((r) => r.status), [1, 1]);
  assert.equal(await s.engine.recover(), 0);
  assert.equal(await smsPass(s), 2);
  messages = await messageRows(s.campaignId);
  assert.deepEqual(messages.map((m) => [m.status, m.attempt]), [['failed', 1], ['failed', 1], ['sent', 2], ['sent', 2]]);
  assert.equal(driver.sent.length, 2);
});
