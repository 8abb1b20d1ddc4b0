/**
 * The caller id of each call (contract §6): with a campaign's callerid_group, the group's number
 * whose areacode is the longest prefix of the dialled number ('*' = any), else the campaign's
 * callerid. Observed on what the driver was asked, the callrequest and the CDR.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { queryRows } from '../db/database.ts';
import { campaigns } from '../db/schema.ts';
import { makeCallerIdGroup } from '../../test/factories.ts';
import { dbLabel, testDatabase } from '../../test/helpers.ts';
import { type Scenario, pass, scenario } from './engine.fixtures.ts';

const database = await testDatabase();
const db = database.db;

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
