/**
 * The caller id of each call (contract §6): with a campaign's callerid_group, the group's number
 * whose areacode is the longest prefix of the dialled number ('*' = any), else the campaign's
 * callerid. Observed on what the driver was asked, the callrequest and the CDR.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { queryRows } from '../db/database.ts';
import { callerids, campaigns } from '../db/schema.ts';
import { makeCallerIdGroup } from '../../test/factories.ts';
import { call, dbLabel, testApp } from '../../test/helpers.ts';
import { type Scenario, pass, scenario } from './engine.fixtures.ts';

const t = await testApp();
const db = t.database.db;

/** Dials every subscriber, then returns number → [driver's caller id, callrequest's, CDR's]. */
async function callerIdsOf(s: Scenario): Promise<Record<string, string[]>> {
  for (let i = 0; i < 5 && s.driver.calls.length < s.subscriberIds.length; i++) {
    await pass(s);
    await s.clock.advance(1000);
  }
  const rows = await queryRows<{ phone_number: string; request: string; cdr: string }>(
    db,
    sql`select r.phone_number, r.callerid as request, d.callerid as cdr from callrequests r
        join cdrs d on d.callrequest_id = r.id and d.leg_type = 1 where r.campaign_id = ${s.campaignId}`,
  );
  const asked = new Map(s.driver.calls.map((c) => [c.request.to, c.request.callerId]));
  return Object.fromEntries(rows.map((r) => [r.phone_number, [asked.get(r.phone_number) ?? '(not dialled)', r.request, r.cdr]]));
}

test(`each subscriber is dialled with the group's caller id whose areacode is the longest prefix of its number (${dbLabel})`, async () => {
  const s = await scenario(db, { numbers: ['+33140000000', '+33600000000', '+442070000000', '+15550001'] });
  const group = await makeCallerIdGroup(db, s.userId, [
    { areacode: '33', callerid_num: '+33900000033' },
    { areacode: '331', callerid_num: '+33900000331' },
    { areacode: '+44 20', callerid_num: '+442000000020' },
    { areacode: '*', callerid_num: '+10000000000' },
  ]);
  await db.update(campaigns).set({ callerid_group_id: group }).where(eq(campaigns.id, s.campaignId));
  assert.deepEqual(await callerIdsOf(s), {
    '+33140000000': ['+33900000331', '+33900000331', '+33900000331'],
    '+33600000000': ['+33900000033', '+33900000033', '+33900000033'],
    '+442070000000': ['+442000000020', '+442000000020', '+442000000020'],
    '+15550001': ['+10000000000', '+10000000000', '+10000000000'],
  });
});

test(`a number no areacode of the group matches (and no '*') is dialled with the campaign's callerid (${dbLabel})`, async () => {
  const s = await scenario(db, { numbers: ['+33140000000', '+4930000000'], campaign: { callerid: '+15550100' } });
  const group = await makeCallerIdGroup(db, s.userId, [{ areacode: '33', callerid_num: '+33900000033' }]);
  await db.update(campaigns).set({ callerid_group_id: group }).where(eq(campaigns.id, s.campaignId));
  assert.deepEqual(await callerIdsOf(s), {
    '+33140000000': ['+33900000033', '+33900000033', '+33900000033'],
    '+4930000000': ['+15550100', '+15550100', '+15550100'],
  });
});

test(`without a callerid_group every call uses the campaign's callerid (${dbLabel})`, async () => {
  const s = await scenario(db, { numbers: ['+33140000000', '+15550001'], campaign: { callerid: '+15550199' } });
  assert.deepEqual(await callerIdsOf(s), {
    '+33140000000': ['+15550199', '+15550199', '+15550199'],
    '+15550001': ['+15550199', '+15550199', '+15550199'],
  });
});

// Caller-id rotation (issue 16 item 5): the group's rules are set through the API, the calls
// placed by the engine, and what each number did is read back on the callerid record.

/** Dials until every subscriber was called (one pass a second), then returns the callrequests' caller ids by number. */
async function dialAll(s: Scenario, maxPasses = 20): Promise<void> {
  for (let i = 0; i < maxPasses && s.driver.calls.length < s.subscriberIds.length; i++) {
    await pass(s);
    await s.clock.advance(1000);
  }
}

/** How many calls each caller id showed (driver, callrequest and CDR agree, else it fails). */
async function callsPerCallerId(s: Scenario): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const [number, [asked, request, cdr]] of Object.entries(await callerIdsOf(s))) {
    assert.ok(asked === request && request === cdr, `${number}: driver ${asked}, callrequest ${request}, CDR ${cdr}`);
    counts[asked] = (counts[asked] ?? 0) + 1;
  }
  return counts;
}

async function groupWithRules(s: Scenario, numbers: { areacode: string; callerid_num: string }[], rules: Record<string, unknown>): Promise<number> {
  const group = await makeCallerIdGroup(db, s.userId, numbers);
  const res = await call(t.app, s.user.auth, 'PATCH', `/rest-api/callerid_group/${group}/`, rules);
  assert.equal(res.statusCode, 202, res.body);
  await db.update(campaigns).set({ callerid_group_id: group }).where(eq(campaigns.id, s.campaignId));
  return group;
}

const numbersOf = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(2, '0')}`);

test(`rotation spreads calls over every number matching the area code, least used today first, and the callerid record counts them (${dbLabel})`, async () => {
  // The engine's clock is today: the record shows today's counters.
  const s = await scenario(db, {
    numbers: numbersOf('+120355501', 6),
    clockAt: new Date().toISOString(),
    campaign: { expirationdate: '2099-01-01T00:00:00Z', frequency: 60 },
  });
  await groupWithRules(s, [
    { areacode: '203', callerid_num: '+12035550900' },
    { areacode: '1203', callerid_num: '+12035550901' },
    { areacode: '203', callerid_num: '+12035550902' },
    { areacode: '212', callerid_num: '+12125550903' },
    { areacode: '*', callerid_num: '+18005550904' },
  ], {});
  // +12035550900 was already used three times today (by this day's counters).
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'UTC' }).format(s.clock.now());
  await db.update(callerids).set({ usage_day: today, calls_today: 3, ended_today: 3, answered_today: 3 }).where(eq(callerids.callerid_num, '+12035550900'));
  await dialAll(s);
  // Areacode 203 (the national number's leading digits) and 1203 (the whole number's) match
  // alike, so the two unused numbers share the six calls; 212 and '*' are not used.
  assert.deepEqual(await callsPerCallerId(s), { '+12035550901': 3, '+12035550902': 3 });
  const list = await call(t.app, s.user.auth, 'GET', '/rest-api/callerid/?areacode=203');
  assert.equal(list.statusCode, 200, list.body);
  const byNum = Object.fromEntries(list.data.results.map((r: Record<string, unknown>) => [r.callerid_num, r]));
  assert.deepEqual(
    ['+12035550900', '+12035550902'].map((n) => [n, byNum[n]?.calls_today, byNum[n]?.ended_today, byNum[n]?.answered_today, byNum[n]?.calls_total, byNum[n]?.resting_until]),
    [['+12035550900', 3, 3, 3, 0, null], ['+12035550902', 3, 3, 3, 3, null]],
  );
});

test(`a number at its group's daily cap is not used again that day; with every matching number capped the campaign's callerid shows (${dbLabel})`, async () => {
  const s = await scenario(db, { numbers: numbersOf('+120355502', 5), campaign: { callerid: '+15550100', frequency: 60 } });
  await groupWithRules(s, [
    { areacode: '203', callerid_num: '+12035550910' },
    { areacode: '203', callerid_num: '+12035550911' },
  ], { daily_cap: 2 });
  await dialAll(s);
  assert.deepEqual(await callsPerCallerId(s), { '+12035550910': 2, '+12035550911': 2, '+15550100': 1 });
  const rows = await db.select().from(callerids).where(eq(callerids.callerid_num, '+12035550910'));
  assert.equal(rows[0].calls_today, 2);
});

test(`a number whose answer rate today falls under the group's floor rests for a day, then is used again (${dbLabel})`, async () => {
  // Every call is busy: each number's answer rate is 0 once it has ended two calls.
  const s = await scenario(db, {
    numbers: numbersOf('+120355503', 6),
    campaign: { callerid: '+15550100', frequency: 60 },
    script: () => ({ failCause: 17 }),
  });
  await groupWithRules(s, [
    { areacode: '203', callerid_num: '+12035550920' },
    { areacode: '203', callerid_num: '+12035550921' },
  ], { min_answer_rate: '0.5', answer_rate_min_calls: 2 });
  // One call a pass, each recorded before the next claim.
  const shown: string[] = [];
  for (let i = 0; i < 5; i++) {
    await pass(s);
    shown.push(s.driver.calls.at(-1)?.request.callerId ?? '(none)');
    await s.clock.advance(1000);
  }
  assert.equal(s.driver.calls.length, 5, 'one call a pass');
  assert.deepEqual(shown, ['+12035550920', '+12035550921', '+12035550920', '+12035550921', '+15550100']);
  const resting = await db.select().from(callerids).where(eq(callerids.callerid_num, '+12035550920'));
  assert.ok(resting[0].resting_until, 'the number rests');
  // A day later it is back, its counters started afresh.
  await s.clock.advance(24 * 3600_000);
  await pass(s);
  assert.equal(s.driver.calls.at(-1)?.request.callerId, '+12035550920');
});

test(`callerid_group rotation rules are validated: a floor above 1, a cap of 0 (${dbLabel})`, async () => {
  const s = await scenario(db);
  const group = await makeCallerIdGroup(db, s.userId, []);
  const res = await call(t.app, s.user.auth, 'PATCH', `/rest-api/callerid_group/${group}/`, { min_answer_rate: '1.5', daily_cap: 0 });
  assert.equal(res.statusCode, 400, res.body);
  assert.deepEqual(Object.keys(res.data).sort(), ['daily_cap', 'min_answer_rate']);
  const read = await call(t.app, s.user.auth, 'GET', `/rest-api/callerid_group/${group}/`);
  assert.deepEqual([read.data.daily_cap, read.data.min_answer_rate, read.data.answer_rate_min_calls], [null, null, 20]);
});
