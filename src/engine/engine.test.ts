import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { queryRows } from '../db/database.ts';
import { CallRequestStatus, CampaignStatus, SubscriberStatus, campaigns, dncContacts, dncLists, subscribers, users } from '../db/schema.ts';
import { dbLabel, eventually, testDatabase } from '../../test/helpers.ts';
import { type ClaimedCall, claimCalls } from './dialer.ts';
import { pass, type Scenario, scenario } from './engine.fixtures.ts';
import { type CallOutcome, OutcomeWriter, recordOutcomes } from './outcome.ts';

const database = await testDatabase();
const db = database.db;

const subscriberRows = (campaignId: number) =>
  db.select().from(subscribers).where(eq(subscribers.campaign_id, campaignId)).orderBy(subscribers.id);
const campaignRow = async (id: number) => (await db.select().from(campaigns).where(eq(campaigns.id, id)))[0];

test(`frequency 6 per minute starts one call every 10 seconds (${dbLabel})`, async () => {
  const s = await scenario(db, { campaign: { frequency: 6 }, numbers: ['+15550001', '+15550002', '+15550003'] });
  assert.equal(await pass(s), 1);
  await s.clock.advance(5_000);
  assert.equal(await pass(s), 0);
  await s.clock.advance(5_000);
  assert.equal(await pass(s), 1);
  await s.clock.advance(9_900);
  assert.equal(await pass(s), 0);
  await s.clock.advance(100);
  assert.equal(await pass(s), 1);
});

test(`a daily window crossing midnight dials at 23:00 and not at noon (${dbLabel})`, async () => {
  const s = await scenario(db, { campaign: { daily_start_time: '22:00:00', daily_stop_time: '06:00:00' }, clockAt: '2026-01-05T12:00:00Z' });
  assert.equal(await pass(s), 0);
  assert.equal((await campaignRow(s.campaignId)).engine_state, 'outside hours');
  await s.clock.set('2026-01-05T23:00:00Z');
  assert.equal(await pass(s), 1);
});

test(`a weekday turned off is not dialled (${dbLabel})`, async () => {
  const s = await scenario(db, { campaign: { monday: false } }); // 2026-01-05 is a Monday
  assert.equal(await pass(s), 0);
  await s.clock.set('2026-01-06T09:00:00Z');
  assert.equal(await pass(s), 1);
});

test(`timezone_dialing reads the window in each subscriber's zone (${dbLabel})`, async () => {
  const s = await scenario(db, {
    campaign: { timezone_dialing: true, daily_start_time: '09:00:00', daily_stop_time: '17:00:00' },
    numbers: ['+81300000001', '+12120000001'],
    clockAt: '2026-01-05T02:00:00Z', // Tokyo 11:00, New York 21:00 the day before
  });
  await db.update(subscribers).set({ tz_code: 'Asia/Tokyo' }).where(eq(subscribers.id, s.subscriberIds[0]));
  await db.update(subscribers).set({ tz_code: 'America/New_York' }).where(eq(subscribers.id, s.subscriberIds[1]));
  assert.equal(await pass(s), 1);
  assert.deepEqual(s.driver.calls.map((c) => c.request.to), ['+81300000001']);
  await s.clock.set('2026-01-05T15:00:00Z'); // New York 10:00
  assert.equal(await pass(s), 1);
});

test(`a number added to the campaign's DNC list mid-campaign becomes NOT_AUTHORIZED without a call (${dbLabel})`, async () => {
  const s = await scenario(db, { campaign: { frequency: 6 }, numbers: ['+15550001', '+15550002'] });
  const [list] = await db.insert(dncLists).values({ name: 'dnc', user_id: s.userId }).returning();
  await db.update(campaigns).set({ dnc_id: list.id }).where(eq(campaigns.id, s.campaignId));
  assert.equal(await pass(s), 1);
  await db.insert(dncContacts).values({ dnc_id: list.id, phone_number: '+15550002', phone_key: '15550002' });
  await s.clock.advance(10_000);
  assert.equal(await pass(s), 0);
  const rows = await subscriberRows(s.campaignId);
  assert.deepEqual(rows.map((r) => r.status), [5, 7], JSON.stringify(rows));
  assert.equal(s.driver.calls.length, 1);
});

test(`credit running out makes the campaign wait, and a payment resumes it (${dbLabel})`, async () => {
  const s = await scenario(db, { user: { balance: '0', call_rate: '0.1' } });
  assert.equal(await pass(s), 0);
  assert.equal((await campaignRow(s.campaignId)).engine_state, 'waiting for credit');
  assert.equal((await subscriberRows(s.campaignId))[0].status, 1);
  await db.update(users).set({ balance: '5' }).where(eq(users.id, s.userId));
  await s.clock.advance(1000);
  assert.equal(await pass(s), 1);
});

test(`a deactivated owner's campaign stops dialling, and resumes when the account is activated again (${dbLabel})`, async () => {
  const s = await scenario(db, { campaign: { frequency: 6 }, numbers: ['+15550001', '+15550002'] });
  assert.equal(await pass(s), 1);
  await db.update(users).set({ is_active: false }).where(eq(users.id, s.userId));
  await s.clock.advance(10_000);
  assert.equal(await pass(s), 0);
  assert.equal((await campaignRow(s.campaignId)).engine_state, 'account deactivated');
  assert.equal((await subscriberRows(s.campaignId))[1].status, 1);
  await db.update(users).set({ is_active: true }).where(eq(users.id, s.userId));
  await s.clock.advance(1000);
  assert.equal(await pass(s), 1);
  assert.equal(s.driver.calls.length, 2);
});

test(`a busy number is retried intervalretry later, then FAIL when no attempt is left (${dbLabel})`, async () => {
  const s = await scenario(db, { campaign: { maxretry: 1, intervalretry: 300 }, script: () => ({ failCause: 17 }) });
  assert.equal(await pass(s), 1);
  let [sub] = await subscriberRows(s.campaignId);
  assert.equal(sub.status, 1);
  assert.equal(sub.count_attempt, 1);
  await s.clock.advance(200_000);
  assert.equal(await pass(s), 0);
  await s.clock.advance(100_000);
  assert.equal(await pass(s), 1);
  [sub] = await subscriberRows(s.campaignId);
  assert.equal(sub.status, 4, JSON.stringify(sub));
  assert.equal(sub.count_attempt, 2);
  const cdr = await queryRows<{ disposition: string }>(db, sql`select disposition from cdrs where campaign_id = ${s.campaignId}`);
  assert.deepEqual(cdr.map((c) => c.disposition), ['BUSY', 'BUSY']);
});

test(`billing rounds billsec 61 up to 66 and costs 0.13580 at rate 0.12345 (${dbLabel})`, async () => {
  const s = await scenario(db, { user: { balance: '10', call_rate: '0.12345' }, script: () => ({ billsec: 61 }) });
  assert.equal(await pass(s), 1);
  const [cdr] = await queryRows<{ billed_duration: number; call_cost: string; disposition: string }>(
    db,
    sql`select billed_duration, call_cost::text, disposition from cdrs where campaign_id = ${s.campaignId}`,
  );
  assert.deepEqual(cdr, { billed_duration: 66, call_cost: '0.13580', disposition: 'ANSWER' });
  const [u] = await db.select().from(users).where(eq(users.id, s.userId));
  assert.equal(u.balance, '9.86420');
  assert.equal((await subscriberRows(s.campaignId))[0].status, 5);
});

test(`END comes by itself at expiration, and with end_when_done once every subscriber is final (${dbLabel})`, async () => {
  const a = await scenario(db, { campaign: { expirationdate: '2026-01-05T10:00:00Z' } });
  await a.clock.set('2026-01-05T10:00:01Z');
  await pass(a);
  assert.equal((await campaignRow(a.campaignId)).status, CampaignStatus.End);
  const b = await scenario(db, { campaign: { end_when_done: true } });
  assert.equal(await pass(b), 1);
  assert.equal((await campaignRow(b.campaignId)).status, CampaignStatus.Start);
  await pass(b);
  assert.equal((await campaignRow(b.campaignId)).status, CampaignStatus.End);
  const c = await scenario(db, {});
  await pass(c);
  await pass(c);
  assert.equal((await campaignRow(c.campaignId)).status, CampaignStatus.Start, 'without end_when_done it stays START');
});

test(`ABORT hangs up the calls in progress and aborts pending subscribers (${dbLabel})`, async () => {
  const s = await scenario(db, { campaign: { frequency: 6 }, numbers: ['+15550001', '+15550002'], script: () => ({ hold: true }) });
  assert.equal((await s.engine.runOnce()).started, 1);
  assert.equal(s.engine.callsInFlight, 1);
  await db.update(campaigns).set({ status: CampaignStatus.Abort }).where(eq(campaigns.id, s.campaignId));
  await pass(s);
  assert.equal(s.engine.callsInFlight, 0);
  assert.deepEqual(s.driver.calls[0].log, ['hangup:487']);
  const rows = await subscriberRows(s.campaignId);
  assert.deepEqual(rows.map((r) => r.status), [3, 3], JSON.stringify(rows));
});

/** The outcome of `call`, answered and talked a minute as the scenario's clock stands, not completed. */
const answered = (s: Scenario, call: ClaimedCall, callUuid = call.callUuid): CallOutcome => {
  const at = s.clock.now();
  return {
    callrequestId: call.callrequestId,
    callUuid,
    campaignId: s.campaignId,
    userId: s.userId,
    subscriberId: call.subscriber.id,
    contactId: null,
    phoneNumber: call.subscriber.duplicate_contact,
    callerId: call.callerId,
    hangup: { cause: 16, causeName: 'NORMAL_CLEARING', startedAt: at, answeredAt: at, endedAt: new Date(at.getTime() + 60_000), duration: 60, billsec: 60 },
    amd: 'none',
    results: [],
    transfers: [],
    completed: false,
  };
};

test(`outcomes written in one batch: one that fails leaves the other recorded and itself untouched (${dbLabel})`, async () => {
  const s = await scenario(db, { numbers: ['+15550001', '+15550002'], user: { balance: '10', call_rate: '0.6' }, campaign: { next_call_at: '2026-01-05T08:59:59Z' } });
  const { calls } = await claimCalls(s.engine.ctx, s.campaignId);
  assert.equal(calls.length, 2);
  const outcome = (i: number, callUuid: string) => answered(s, calls[i], callUuid);
  const writer = new OutcomeWriter(db, 6, { delayMs: 50 });
  // Both wait in the same batch; the second's CDR callid is too long for the column.
  const [good, bad] = await Promise.allSettled([writer.record(outcome(0, calls[0].callUuid)), writer.record(outcome(1, 'x'.repeat(100)))]);
  assert.equal(good.status, 'fulfilled');
  assert.equal(bad.status, 'rejected');
  const requests = await queryRows<{ id: number; status: number }>(
    db,
    sql`select id, status from callrequests where campaign_id = ${s.campaignId} order by id`,
  );
  assert.deepEqual(requests.map((r) => r.status), [CallRequestStatus.Success, CallRequestStatus.Calling]);
  const cdrs = await queryRows<{ callrequest_id: number; call_cost: string }>(db, sql`select callrequest_id, call_cost from cdrs where campaign_id = ${s.campaignId}`);
  assert.deepEqual(cdrs.map((c) => [Number(c.callrequest_id), Number(c.call_cost)]), [[calls[0].callrequestId, 0.6]]);
  assert.deepEqual((await subscriberRows(s.campaignId)).map((r) => r.status), [SubscriberStatus.Sent, SubscriberStatus.InProcess]);
  const [owner] = await db.select().from(users).where(eq(users.id, s.userId));
  assert.equal(Number(owner.balance), 9.4); // billed once, for the recorded call only
});

test(`a call its engine's fence hung up is written ENGINE_FENCED, its subscriber retried as recovery would, unless the call completed (${dbLabel})`, async () => {
  const s = await scenario(db, { numbers: ['+15550001', '+15550002'], campaign: { next_call_at: '2026-01-05T08:59:59Z', maxretry: 1, intervalretry: 300 } });
  const { calls } = await claimCalls(s.engine.ctx, s.campaignId);
  assert.equal(calls.length, 2);
  const closed = await recordOutcomes(db, [{ ...answered(s, calls[0]), fenced: true }, { ...answered(s, calls[1]), fenced: true, completed: true }], 0);
  assert.deepEqual(closed, [], 'both written');
  const requests = await queryRows<{ status: number; hangup_cause: string; disposition: string; billsec: number }>(
    db,
    sql`select r.status, r.hangup_cause, c.disposition, c.billsec from callrequests r join cdrs c on c.callrequest_id = r.id
        where r.campaign_id = ${s.campaignId} order by r.id`,
  );
  assert.deepEqual(
    requests.map((r) => [r.status, r.hangup_cause, r.disposition, r.billsec]),
    [[CallRequestStatus.Success, 'ENGINE_FENCED', 'ANSWER', 60], [CallRequestStatus.Success, 'ENGINE_FENCED', 'ANSWER', 60]],
    'the calls as they were, and why they ended',
  );
  const [cut, completed] = await subscriberRows(s.campaignId);
  assert.deepEqual([cut.status, cut.reason, new Date(cut.next_attempt_at).toISOString()], [SubscriberStatus.Pending, 'ENGINE_FENCED', '2026-01-05T09:06:00.000Z'], 'retried by maxretry and intervalretry');
  assert.equal(completed.status, SubscriberStatus.Completed, 'a call that reached a completed section is done');
});

test(`a claim capped below the pace says more is due, and the last one does not (${dbLabel})`, async () => {
  // The pace allows thousands now (the last start was half a second ago at 10,000 a second).
  const s = await scenario(db, { numbers: ['+15550001', '+15550002', '+15550003'], campaign: { frequency: 600_000, next_call_at: '2026-01-05T08:59:59.500Z' } });
  const first = await claimCalls(s.engine.ctx, s.campaignId, { limit: 2 });
  assert.equal(first.calls.length, 2);
  assert.equal(first.more, true);
  const second = await claimCalls(s.engine.ctx, s.campaignId, { limit: 2 });
  assert.equal(second.calls.length, 1);
  assert.equal(second.more, false);
});

test(`max_aleg and the gateway's maximum_call still cap the calls at once when the pace allows more (${dbLabel})`, async () => {
  const numbers = ['+15550001', '+15550002', '+15550003', '+15550004'];
  const capped = await scenario(db, { numbers, campaign: { frequency: 600_000, max_aleg: 2, next_call_at: '2026-01-05T08:59:59.500Z' }, script: () => ({ hold: true }) });
  assert.equal((await capped.engine.runOnce()).started, 2);
  assert.equal((await capped.engine.runOnce()).started, 0);
  await capped.engine.stop();
  const gateway = await scenario(db, { numbers, campaign: { frequency: 600_000, next_call_at: '2026-01-05T08:59:59.500Z' }, gateway: { maximum_call: 3 }, script: () => ({ hold: true }) });
  assert.equal((await gateway.engine.runOnce()).started, 3);
  await gateway.engine.stop();
});

test(`after a pass cut short by the claim cap the next ones only claim, until a poll's time has gone; every subscriber dialled once (${dbLabel})`, async () => {
  // 1,200 subscribers due at once (the last start a second ago, no pace limit): claims of at most 500 (maxPerPass).
  const numbers = Array.from({ length: 1200 }, (_, i) => `+1555${String(i).padStart(7, '0')}`);
  const open = [SubscriberStatus.Pending, SubscriberStatus.Pause, SubscriberStatus.InProcess];
  /** Runs the engine's loop until every subscriber is final; returns how many whole passes (runOnce) it made. */
  const run = async (pollMs: number) => {
    const s = await scenario(db, { numbers, pollMs, campaign: { frequency: 1_000_000, next_call_at: '2026-01-05T08:59:59Z' } });
    let whole = 0;
    const runOnce = s.engine.runOnce.bind(s.engine);
    s.engine.runOnce = () => {
      whole++;
      return runOnce();
    };
    s.engine.start();
    const left = async () =>
      (await queryRows<{ n: number }>(db, sql`select count(*)::int as n from subscribers where campaign_id = ${s.campaignId} and status in (${sql.join(open, sql`, `)})`))[0].n;
    const done = await eventually(async () => (await left()) === 0, 60_000);
    await s.engine.stop();
    assert.ok(done, `${await left()} subscribers not final`);
    const dialled = s.driver.calls.map((c) => c.request.to);
    assert.equal(dialled.length, numbers.length);
    assert.equal(new Set(dialled).size, numbers.length, 'a number dialled twice');
    return whole;
  };
  // The loop's first pass is whole and claims 500; the two after it only claim (500, then 200), a minute being far off.
  assert.equal(await run(60_000), 1);
  // With no time between whole passes each pass is whole: three at least, one a claim.
  assert.ok((await run(0)) >= 3);
});
