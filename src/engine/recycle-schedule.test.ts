/**
 * Recycling a campaign's final subscribers (POST /rest-api/campaigns/<id>/recycle/) and calls at
 * a set time (a subscriber's `scheduled_at`), issue 16 items 8 and 9: through the API, with the
 * engine on the scripted driver and a fake clock.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { buildApp } from '../app.ts';
import { CampaignStatus, SubscriberStatus, campaigns, subscribers } from '../db/schema.ts';
import { makeUser } from '../../test/factories.ts';
import { call, dbLabel, logCaughtUp, testConfig, testDatabase, testLogger } from '../../test/helpers.ts';
import { pass, scenario } from './engine.fixtures.ts';

const database = await testDatabase();
const db = database.db;
const app = await buildApp({ logger: testLogger, database, config: testConfig() });
after(() => app.close());

const rows = (campaignId: number) => db.select().from(subscribers).where(eq(subscribers.campaign_id, campaignId)).orderBy(subscribers.id);
const { Pending, Fail, Sent } = SubscriberStatus;

/** A campaign whose three subscribers ended FAIL (busy), FAIL (no answer) and SENT. */
async function finished() {
  const causes: Record<string, number | undefined> = { '+15550001': 17, '+15550002': 19, '+15550003': undefined };
  const s = await scenario(db, {
    numbers: Object.keys(causes),
    campaign: { next_call_at: '2026-01-05T08:59:59Z' },
    script: (to) => ({ failCause: causes[to] }),
  });
  assert.equal(await pass(s), 3);
  assert.deepEqual((await rows(s.campaignId)).map((r) => [r.status, r.last_disposition]), [[Fail, 'BUSY'], [Fail, 'NOANSWER'], [Sent, 'ANSWER']]);
  // The subscriber-list says why each ended.
  const read = await call(app, s.user.auth, 'GET', `/rest-api/subscriber-list/?campaign_id=${s.campaignId}`);
  assert.deepEqual(
    (read.data as { status: number; reason: string; wait_reason: null }[]).map((r) => [r.status, r.reason, r.wait_reason]),
    [[Fail, 'no attempt left (last: USER_BUSY)', null], [Fail, 'no attempt left (last: NO_ANSWER)', null], [Sent, '', null]],
    read.body,
  );
  const recycle = (body: unknown, auth = s.user.auth) => call(app, auth, 'POST', `/rest-api/campaigns/${s.campaignId}/recycle/`, body);
  return { s, recycle };
}

test(`recycle by disposition returns the matching FAIL subscribers to PENDING with no attempt, and they are dialled again (${dbLabel})`, async () => {
  const { s, recycle } = await finished();
  const res = await recycle({ dispositions: ['BUSY'] });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.data, { recycled: 1 });
  const after = await rows(s.campaignId);
  assert.deepEqual(after.map((r) => [r.status, r.count_attempt, r.reason]), [[Pending, 0, ''], [Fail, 1, 'no attempt left (last: NO_ANSWER)'], [Sent, 1, '']]);
  await s.clock.advance(1_000);
  assert.equal(await pass(s), 1);
  assert.deepEqual(s.driver.calls.map((c) => c.request.to), ['+15550001', '+15550002', '+15550003', '+15550001']);

  await logCaughtUp(database);
  const events = await call(app, s.user.auth, 'GET', `/rest-api/events/?format=json&after=0&campaign_id=${s.campaignId}&types=campaign.recycled`);
  assert.equal(events.data.results.length, 1, events.body);
  const { data } = events.data.results[0];
  assert.deepEqual([data.recycled, data.statuses, data.dispositions, data.last_attempt_before], [1, [4], ['BUSY'], null], events.body);
});

test(`recycle with statuses and last_attempt_before: SENT ones come back, none last called after the date (${dbLabel})`, async () => {
  const { s, recycle } = await finished();
  // The calls were made at the fake clock's 2026-01-05 09:00: none before 08:00.
  assert.deepEqual((await recycle({ statuses: [5], last_attempt_before: '2026-01-05 08:00:00' })).data, { recycled: 0 });
  assert.deepEqual((await recycle({ statuses: [4, 5], last_attempt_before: '2026-01-05T10:00:00Z' })).data, { recycled: 3 });
  assert.deepEqual((await rows(s.campaignId)).map((r) => r.status), [Pending, Pending, Pending]);
});

test(`recycle refuses bad filters (400), another user's campaign (404) and an ended campaign (409), changing nothing (${dbLabel})`, async () => {
  const { s, recycle } = await finished();
  const before = await rows(s.campaignId);
  const bad = await recycle({ statuses: [1], dispositions: ['LATER'], last_attempt_before: 'yesterday' });
  assert.equal(bad.statusCode, 400, bad.body);
  assert.deepEqual(Object.keys(bad.data).sort(), ['dispositions', 'last_attempt_before', 'statuses'], bad.body);
  const bob = await makeUser(db);
  assert.equal((await recycle({}, bob.auth)).statusCode, 404);
  await db.update(campaigns).set({ status: CampaignStatus.End }).where(eq(campaigns.id, s.campaignId));
  assert.equal((await recycle({})).statusCode, 409);
  assert.deepEqual(await rows(s.campaignId), before);
});

test(`a subscriber with scheduled_at is not called before it, and clearing it makes it due at once (${dbLabel})`, async () => {
  const s = await scenario(db, { numbers: ['+15550001'], campaign: { next_call_at: '2026-01-05T08:59:59Z' } });
  const campaign = `/rest-api/campaigns/${s.campaignId}/`;
  const later = await call(app, s.user.auth, 'POST', '/rest-api/subscriber-list/', { campaign, duplicate_contact: '+15550002', scheduled_at: '2026-01-05T10:00:00Z' });
  assert.equal(later.statusCode, 201, later.body);
  assert.equal(later.data.scheduled_at, '2026-01-05T10:00:00.000000Z');
  const other = await call(app, s.user.auth, 'POST', '/rest-api/subscriber-list/', { campaign, duplicate_contact: '+15550003', scheduled_at: '2026-01-05 11:00:00' });
  assert.equal(other.statusCode, 201, other.body);

  assert.equal(await pass(s), 1, 'only the unscheduled one at 09:00');
  await s.clock.set('2026-01-05T09:59:00Z');
  assert.equal(await pass(s), 0);
  await s.clock.set('2026-01-05T10:00:00Z');
  assert.equal(await pass(s), 1);
  assert.equal(s.driver.calls.at(-1)?.request.to, '+15550002');

  const far = await call(app, s.user.auth, 'PATCH', `/rest-api/subscriber-list/${other.data.id}/`, { scheduled_at: '2099-01-01T00:00:00Z' });
  assert.equal(far.data.scheduled_at, '2099-01-01T00:00:00.000000Z', far.body);
  const cleared = await call(app, s.user.auth, 'PATCH', `/rest-api/subscriber-list/${other.data.id}/`, { scheduled_at: null });
  assert.equal(cleared.statusCode, 202, cleared.body);
  assert.equal(cleared.data.scheduled_at, null);
  // Due at once: the API writes in real time, which the engine's fake clock (January 2026) is behind.
  const [row] = await db.select().from(subscribers).where(eq(subscribers.id, other.data.id));
  assert.ok(new Date(row.next_attempt_at).getTime() <= Date.now(), JSON.stringify(row));

  const bad = await call(app, s.user.auth, 'PATCH', `/rest-api/subscriber-list/${other.data.id}/`, { scheduled_at: 'soon' });
  assert.equal(bad.statusCode, 400, bad.body);
  assert.ok(bad.data.scheduled_at, bad.body);
});
