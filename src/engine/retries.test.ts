/**
 * Retries by cause, completion callbacks and callbacks a section asks for (issue 16, items 2
 * and 8), through the engine with the scripted driver and a fake clock.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eq } from 'drizzle-orm';
import { SubscriberStatus, subscribers } from '../db/schema.ts';
import { dbLabel, testDatabase } from '../../test/helpers.ts';
import { flowOf, pass, scenario, section } from './engine.fixtures.ts';

const database = await testDatabase();
const db = database.db;

const rows = (campaignId: number) => db.select().from(subscribers).where(eq(subscribers.campaign_id, campaignId)).orderBy(subscribers.id);
const view = async (campaignId: number) =>
  (await rows(campaignId)).map((r) => ({ status: r.status, attempts: r.count_attempt, due: new Date(r.next_attempt_at).toISOString(), reason: r.reason }));

const { Pending, Fail, Sent, Completed } = SubscriberStatus;

test(`a busy rule retries busy numbers on its own count and interval, while other causes keep maxretry (${dbLabel})`, async () => {
  const s = await scenario(db, {
    numbers: ['+15550001', '+15550002'],
    campaign: { next_call_at: '2026-01-05T08:59:59Z', maxretry: 0, intervalretry: 300, retry_rules: { busy: { attempts: 2, interval: 60 } } },
    script: (to) => ({ failCause: to === '+15550001' ? 17 : 19 }),
  });
  assert.equal(await pass(s), 2);
  const [firstBusy, noAnswer] = await view(s.campaignId);
  assert.deepEqual(firstBusy, { status: Pending, attempts: 1, due: '2026-01-05T09:01:00.000Z', reason: 'USER_BUSY' });
  assert.deepEqual([noAnswer.status, noAnswer.reason], [Fail, 'no attempt left (last: NO_ANSWER)'], 'no rule for no_answer: maxretry 0');
  await s.clock.advance(59_000);
  assert.equal(await pass(s), 0, 'not before the busy interval');
  await s.clock.advance(1_000);
  assert.equal(await pass(s), 1);
  await s.clock.advance(60_000);
  assert.equal(await pass(s), 1);
  const [busy] = await view(s.campaignId);
  assert.deepEqual([busy.status, busy.attempts], [Fail, 3], '1 + attempts calls in all');
});

test(`without retry_rules a busy number follows maxretry and intervalretry as before (${dbLabel})`, async () => {
  const s = await scenario(db, { campaign: { maxretry: 1, intervalretry: 300 }, script: () => ({ failCause: 17 }) });
  await pass(s);
  assert.deepEqual((await view(s.campaignId))[0], { status: Pending, attempts: 1, due: '2026-01-05T09:05:00.000Z', reason: 'USER_BUSY' });
});

test(`unallocated and invalid numbers (Q.850 1, 3, 28) are never retried, whatever the rules (${dbLabel})`, async () => {
  const causes: Record<string, number> = { '+15550001': 1, '+15550002': 3, '+15550003': 28, '+15550004': 41 };
  const s = await scenario(db, {
    numbers: Object.keys(causes),
    campaign: { next_call_at: '2026-01-05T08:59:59Z', maxretry: 3, retry_rules: { failed: { attempts: 5, interval: 10 } } },
    script: (to) => ({ failCause: causes[to] }),
  });
  assert.equal(await pass(s), 4);
  const after = await view(s.campaignId);
  assert.deepEqual(after.map((r) => r.status), [Fail, Fail, Fail, Pending], JSON.stringify(after));
  assert.match(after[0].reason, /^invalid number, not retried/);
  assert.equal(after[3].due, '2026-01-05T09:00:10.000Z', 'a temporary failure follows the failed rule');
});

test(`a machine rule calls back numbers answered by a machine; without it they are SENT as before (${dbLabel})`, async () => {
  const ruled = await scenario(db, { campaign: { retry_rules: { machine: { attempts: 1, interval: 3600 } } }, script: () => ({ amd: 'machine' }) });
  await pass(ruled);
  assert.deepEqual((await view(ruled.campaignId))[0], { status: Pending, attempts: 1, due: '2026-01-05T10:00:00.000Z', reason: 'NORMAL_CLEARING' });
  await ruled.clock.advance(3_600_000);
  assert.equal(await pass(ruled), 1);
  assert.equal((await view(ruled.campaignId))[0].status, Sent, 'no machine attempt left: the answered call stands');
  assert.equal((await rows(ruled.campaignId))[0].last_disposition, 'ANSWER');

  const plain = await scenario(db, { campaign: { maxretry: 3 }, script: () => ({ amd: 'machine' }) });
  await pass(plain);
  assert.equal((await view(plain.campaignId))[0].status, Sent);
});

test(`completion_enabled calls back answered subscribers who did not complete, completion_maxretry times (${dbLabel})`, async () => {
  // Only a 1 reaches the completed section; anything else falls through to a plain hang-up.
  const done = section({ order: 3, question: 'Thanks', completed: true });
  const bye = section({ order: 2, question: 'Bye', type: 7 });
  const ask = section({ order: 1, question: 'Press 1', type: 2, keys: ['', 'yes', null, null, null, null, null, null, null, null], branches: [{ id: 1, keys: '1', goto: done.id }] });
  const s = await scenario(db, {
    numbers: ['+15550001', '+15550002'],
    campaign: { next_call_at: '2026-01-05T08:59:59Z', completion_enabled: true, completion_maxretry: 1, completion_intervalretry: 600, survey_snapshot: flowOf([ask, bye, done]) },
    // The first number presses 1 (completed); the second never answers the question.
    script: (to) => ({ keys: to === '+15550001' ? ['1'] : [] }),
  });
  assert.equal(await pass(s), 2);
  let [completed, unfinished] = await view(s.campaignId);
  assert.equal(completed.status, Completed);
  assert.deepEqual(unfinished, { status: Pending, attempts: 1, due: '2026-01-05T09:10:00.000Z', reason: 'completion callback (not completed)' });
  await s.clock.advance(600_000);
  assert.equal(await pass(s), 1);
  [completed, unfinished] = await view(s.campaignId);
  assert.deepEqual([unfinished.status, unfinished.attempts], [Sent, 2], 'no completion callback left');
  assert.equal((await rows(s.campaignId))[1].completion_attempt, 1);
});

test(`without completion_enabled an answered call that did not complete is SENT at once (${dbLabel})`, async () => {
  const s = await scenario(db, { campaign: { completion_maxretry: 3 } });
  await pass(s);
  assert.equal((await view(s.campaignId))[0].status, Sent);
});

test(`a section with callback_minutes has the subscriber called back that much later (${dbLabel})`, async () => {
  const later = section({ order: 1, question: 'We will call you back', callback_minutes: 30 });
  const s = await scenario(db, { campaign: { survey_snapshot: flowOf([later]) } });
  await pass(s);
  assert.deepEqual((await view(s.campaignId))[0], { status: Pending, attempts: 1, due: '2026-01-05T09:30:00.000Z', reason: 'callback requested in 30 min' });
  await s.clock.advance(29 * 60_000);
  assert.equal(await pass(s), 0);
  await s.clock.advance(60_000);
  assert.equal(await pass(s), 1);
});
